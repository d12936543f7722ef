"""``python bench/run.py [options]``: the same as ``python -m bench [options]``."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from bench.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
