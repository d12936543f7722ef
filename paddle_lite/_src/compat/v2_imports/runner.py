"""``python -m paddle_lite.v2 [--replace-installed-paddle] program.py [args ...]``.

Runs a paddle.v2 program file unchanged on paddle_lite: the v2 imports are installed
(``v2_imports.install``), then the program runs as ``python program.py args`` would run
it: ``__name__ == "__main__"``, ``sys.argv`` the program's path and its arguments,
``sys.path[0]`` its folder. Its exit status is the program's (``sys.exit(n)`` gives n);
an exception it does not catch prints its traceback, from the program's own frames on,
through ``sys.excepthook``, and exits with 1; ``KeyboardInterrupt`` ends the process as
it ends Python's.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import types
from collections.abc import Sequence

from paddle_lite._src.compat.v2_imports import install
from paddle_lite._src.errors import InstalledPaddleError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m paddle_lite.v2",
        description="Run a PaddlePaddle v2 program unchanged on paddle_lite: "
        "'import paddle.v2 as paddle', paddle.trainer_config_helpers and "
        "paddle.trainer.PyDataProvider2 import paddle_lite.",
    )
    parser.add_argument(
        "--replace-installed-paddle",
        action="store_true",
        help="run on paddle_lite even where a real PaddlePaddle is installed as 'paddle' "
        "(without it, that is refused)",
    )
    parser.add_argument("program", help="the v2 program file")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the program ``argv`` names (default ``sys.argv[1:]``); return its exit status."""
    parser = _parser()
    options = parser.parse_args(argv)
    try:
        install(replace_installed_paddle=options.replace_installed_paddle)
    except InstalledPaddleError as err:
        parser.exit(2, f"{parser.prog}: {err}\n")
    return run_program(options.program, options.args)


def run_program(path: str, args: Sequence[str]) -> int:
    """Run the file ``path`` as ``__main__`` with ``args``; 0 when it ends normally,
    1 after printing an exception it raised (``SystemExit`` passes through)."""
    where = os.path.abspath(path)  # the program's __file__, as Python 3.9+ gives it
    if not os.path.isfile(where):
        print(f"{sys.executable}: can't open file {where!r}: no such file", file=sys.stderr)
        return 2
    sys.argv[:] = [path, *args]
    sys.path[0] = os.path.dirname(where)
    try:
        runpy.run_path(where, run_name="__main__")
    except (SystemExit, KeyboardInterrupt) as err:
        err.with_traceback(_from_program(err.__traceback__, where))
        raise
    except BaseException as err:
        err.with_traceback(_from_program(err.__traceback__, where))
        sys.excepthook(type(err), err, err.__traceback__)
        return 1
    return 0


def _from_program(tb: types.TracebackType | None, path: str) -> types.TracebackType | None:
    """``tb`` from the program's first frame on (the runner's and runpy's cut)."""
    while tb is not None and tb.tb_frame.f_code.co_filename != path:
        tb = tb.tb_next
    return tb
