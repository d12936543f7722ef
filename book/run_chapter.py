"""Run a chapter's program as its notebook runs, with settings of one's own, and keep its state.

Each chapter's ``train.py`` (and chapter 1's ``infer.py``) is a notebook in jupytext's
percent format: a first cell of settings tagged ``parameters``, then cells whose
variables stay for inspection. ``run_chapter`` runs every cell in order, as "Run all"
does, with ``settings`` replacing the values the parameters cell gives (as papermill
injects them), and returns the variables the cells left. Layers are named from
``__fc_layer_0__`` on, as in a new kernel; the command-line cell of the script
(``if __name__ == "__main__"``) does not run. Tests and benchmarks run the book
this way; it reads and runs the file as it is, so tracebacks point at its lines.

Example:
    ```python
    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("run_chapter", "book/run_chapter.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    state = run.run_chapter("01.fit_a_line", num_passes=2, save_dir="/tmp/fit_a_line")
    state["history"].cost, state["result"].cost
    ```
"""

from __future__ import annotations

import ast
import pathlib
import sys
import types
from typing import Any

import paddle_lite

BOOK = pathlib.Path(__file__).resolve().parent
PARAMETERS = '# %% tags=["parameters"]'


def run_chapter(chapter: str, script: str = "train.py", **settings: Any) -> dict[str, Any]:
    """Run ``book/<chapter>/<script>`` cell by cell with ``settings``; return its variables.

    Args:
        chapter: the chapter's folder, e.g. ``"01.fit_a_line"``.
        script: the program in it (``"train.py"``, or ``"infer.py"`` for chapter 1).
        **settings: values for names the parameters cell sets (others are an error).

    Returns:
        The program's global variables after its last cell.

    Raises:
        TypeError: a setting the parameters cell does not have.
    """
    path = BOOK / chapter / script
    source = path.read_text()
    paddle_lite.layer.reset_names()  # layers named from 0, as in a new kernel or process
    head, tail = _split_after_parameters(source, path)
    state: dict[str, Any] = {"__name__": "__book__", "__file__": str(path)}
    exec(compile(head, str(path), "exec"), state)
    unknown = sorted(set(settings) - set(state))
    if unknown:
        known = sorted(k for k in state if not k.startswith("__"))
        raise TypeError(f"{path} has no setting {unknown}; its settings are {known}.")
    state.update(settings)
    padded = "\n" * head.count("\n") + tail  # so that tracebacks show the file's lines
    exec(compile(padded, str(path), "exec"), state)
    return state


def definitions(chapter: str, script: str = "train.py") -> types.SimpleNamespace:
    """The definitions of ``book/<chapter>/<script>``, nothing run: its imports, functions
    and the values assigned without a call or an index (``embsize = 32``,
    ``NETWORKS = {...}``).

    Benchmarks build the book's networks from them (``definitions("02.recognize_digits")
    .NETWORKS["lenet"](images)``) without training, reading data or saving.

    Args:
        chapter: the chapter's folder, e.g. ``"02.recognize_digits"``.
        script: the program in it.

    Returns:
        A namespace of the definitions.
    """
    path = BOOK / chapter / script
    tree = ast.parse(path.read_text(), str(path))
    kept = [node for node in tree.body if _is_definition(node)]
    state: dict[str, Any] = {"__name__": "__book__", "__file__": str(path)}
    sys.path.insert(0, str(path.parent))  # a chapter imports its sibling files (vgg.py)
    try:
        exec(compile(ast.Module(kept, type_ignores=[]), str(path), "exec"), state)
    finally:
        sys.path.remove(str(path.parent))
    return types.SimpleNamespace(**{k: v for k, v in state.items() if not k.startswith("__")})


def _is_definition(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return not any(isinstance(n, (ast.Call, ast.Subscript)) for n in ast.walk(node.value))
    return False


def _split_after_parameters(source: str, path: pathlib.Path) -> tuple[str, str]:
    """The source up to the end of the parameters cell, and the rest."""
    start = source.find(PARAMETERS)
    if start < 0:
        raise ValueError(f"{path} has no cell tagged parameters ({PARAMETERS}).")
    end = source.find("\n# %%", start + len(PARAMETERS))
    end = len(source) if end < 0 else end + 1
    return source[:end], source[end:]
