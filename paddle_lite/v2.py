"""Run a PaddlePaddle v2 program unchanged (``python -m paddle_lite.v2 program.py``).

``import paddle.v2 as paddle``, ``from paddle.v2.layer import ...``,
``paddle.trainer_config_helpers`` and ``paddle.trainer.PyDataProvider2`` import
paddle_lite, and the program runs as ``python program.py`` would run it (its arguments,
``__name__ == "__main__"``, its exit status). In a notebook, call
``paddle_lite.install_v2_imports()`` instead.

Example:
    ```python
    python -m paddle_lite.v2 train.py --num-passes 5
    ```
"""

import sys

from paddle_lite._src.compat.v2_imports.runner import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
