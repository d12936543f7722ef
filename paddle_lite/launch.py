"""Start a multi-process training job on this machine (``python -m paddle_lite.launch``).

Example:
    ```python
    python -m paddle_lite.launch --nproc 2 train.py --num-passes 5
    ```
"""

import sys

from paddle_lite._src.distributed.launcher import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
