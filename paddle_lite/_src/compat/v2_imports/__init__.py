"""Running paddle.v2 programs unchanged: ``import paddle.v2 as paddle`` gives paddle_lite.

``install`` (``paddle_lite.install_v2_imports``) puts the import finder of ``finder`` on
``sys.meta_path``; ``runner`` is ``python -m paddle_lite.v2 program.py``, which installs
it and runs the program; ``config_helpers`` and ``data_provider`` are the v1 modules v2
programs imported beside ``paddle.v2`` (``paddle.trainer_config_helpers``,
``paddle.trainer.PyDataProvider2``).
"""

from __future__ import annotations

import sys

from paddle_lite._src.compat.v2_imports.finder import V2Finder, installed_paddle
from paddle_lite._src.errors import InstalledPaddleError
from paddle_lite._src.tracebacks import PACKAGE_DIR, api_boundary


@api_boundary
def install(replace_installed_paddle: bool = False) -> None:
    """Make ``import paddle.v2 as paddle`` (and every ``paddle.v2.*`` module,
    ``paddle.trainer_config_helpers``, ``paddle.trainer.PyDataProvider2``) import
    paddle_lite, for the rest of this process, so a v2 program or notebook runs as it
    was written. Calling it again changes nothing.

    ``paddle.v2.layer is paddle_lite.layer``: the names are aliases of paddle_lite's
    modules. A real PaddlePaddle installed as ``paddle`` is refused with
    ``InstalledPaddleError`` naming both, unless ``replace_installed_paddle=True``
    (then this process imports paddle_lite under those names; PaddlePaddle is untouched
    on disk and other processes still import it). A ``paddle`` already imported in this
    process is always refused: restart and install first.

    Args:
        replace_installed_paddle: stand in for an installed PaddlePaddle all the same.

    Example:
        >>> import paddle_lite
        >>> paddle_lite.install_v2_imports()
        >>> import paddle.v2 as paddle
        >>> paddle is paddle_lite
        True
    """
    if any(isinstance(f, V2Finder) for f in sys.meta_path):
        return
    real = installed_paddle()
    if real is not None and ("paddle" in sys.modules or not replace_installed_paddle):
        raise InstalledPaddleError(_refusal(real))
    sys.meta_path.insert(0, V2Finder())


def _refusal(real: str) -> str:
    here = PACKAGE_DIR.rstrip("/\\")
    if "paddle" in sys.modules:
        return (
            f"a real PaddlePaddle is already imported in this process as 'paddle' ({real}); "
            f"paddle_lite ({here}) cannot stand in for it now. Restart the process (the "
            "notebook's kernel) and call paddle_lite.install_v2_imports() before anything "
            "imports paddle."
        )
    return (
        f"a real PaddlePaddle is installed as 'paddle' ({real}); paddle_lite's v2 imports "
        f"({here}) would hide it in this process. To run the program on paddle_lite anyway, "
        "pass replace_installed_paddle=True (python -m paddle_lite.v2 "
        "--replace-installed-paddle program.py); to run it on PaddlePaddle, run it with "
        "python; or use an environment without PaddlePaddle (python -m venv)."
    )


def uninstall() -> None:
    """Undo ``install``: remove the finder and forget the ``paddle`` modules it gave
    (paddle_lite's own modules stay imported)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, V2Finder)]
    for name in [n for n in sys.modules if n == "paddle" or n.startswith("paddle.")]:
        del sys.modules[name]
