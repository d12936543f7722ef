"""Hygiene the library holds itself to: no module over 400 lines, and nothing private
reached across modules.

A private name (one leading underscore) belongs to the module, or the class, that defines
it. Inside ``paddle_lite`` no module imports another's private name
(``from paddle_lite... import _x``) or reads or writes a private attribute of an object it
does not own (``module._x``, ``other_object._x``, ``getattr(obj, "_x")``). Allowed: the
object's own ``self`` / ``cls`` / ``super()``; another instance inside the class that
defines the attribute (``other._values`` in a ``Parameters`` method); the namedtuple API
(``_replace``, ``_fields``, ``_asdict``, ``_make``, ``_field_defaults``); dunder and
``_sunder_`` protocol names (``_repr_mimebundle_``); and anything reached from a module
outside ``paddle_lite`` (``sys._getframe``, numpy's pickle constructors).
"""

from __future__ import annotations

import ast
import pathlib

import paddle_lite
import paddle_lite.errors

ROOT = pathlib.Path(paddle_lite.__file__).parent
MAX_LINES = 400
NAMEDTUPLE_API = frozenset({"_replace", "_fields", "_asdict", "_make", "_field_defaults"})
OWN_OBJECTS = frozenset({"self", "cls"})
ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def _library_files() -> list[pathlib.Path]:
    return sorted(ROOT.rglob("*.py"))


def _shown(path: pathlib.Path) -> str:
    return path.relative_to(ROOT.parent).as_posix()


def _is_private(name: str) -> bool:
    """One leading underscore (or a mangled ``__x``); not a dunder or ``_sunder_`` name."""
    return name.startswith("_") and not name.endswith("_")


def _outside_modules(tree: ast.Module) -> set[str]:
    """The names a file binds to modules (and their members) from outside paddle_lite."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "paddle_lite":
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] != "paddle_lite":
                names.update(alias.asname or alias.name for alias in node.names)
    return names


def _class_own_names(cls: ast.ClassDef) -> set[str]:
    """The private names a class defines: in its body, and assigned on ``self``/``cls``."""
    own = set()
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            own.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in OWN_OBJECTS
        ):
            own.add(node.attr)
    return {name for name in own if _is_private(name)}


def _root(node: ast.expr) -> ast.expr:
    """The start of an attribute chain: ``a`` of ``a.b.c``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _is_own_object(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in OWN_OBJECTS
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


class _PrivateReaches(ast.NodeVisitor):
    """Collects ``(line, what)`` for each private name reached across its owner."""

    def __init__(self, outside: set[str]) -> None:
        self.outside = outside
        self.class_names: list[set[str]] = [set()]
        self.found: list[tuple[int, str]] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.class_names.append(self.class_names[-1] | _class_own_names(node))
        self.generic_visit(node)
        self.class_names.pop()

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or (node.module or "").split(".")[0] == "paddle_lite":
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if _is_private(alias.name):
                    self.found.append((node.lineno, f"from {module} import {alias.name}"))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._reaches(node.value, node.attr):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func, args = node.func, node.args
        if (
            isinstance(func, ast.Name)
            and func.id in ATTRIBUTE_BUILTINS
            and len(args) >= 2
            and isinstance(args[1], ast.Constant)
            and isinstance(args[1].value, str)
            and self._reaches(args[0], args[1].value)
        ):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)

    def _reaches(self, owner: ast.expr, name: str) -> bool:
        if not _is_private(name) or name in NAMEDTUPLE_API or _is_own_object(owner):
            return False
        if name in self.class_names[-1]:  # another instance, inside the defining class
            return False
        root = _root(owner)
        return not (isinstance(root, ast.Name) and root.id in self.outside)


def private_reaches(source: str) -> list[tuple[int, str]]:
    """Each private name ``source`` imports from, or reads on, what it does not own."""
    tree = ast.parse(source)
    visitor = _PrivateReaches(_outside_modules(tree))
    visitor.visit(tree)
    return sorted(visitor.found)


def test_no_library_file_is_over_400_lines():
    long = {}
    for path in _library_files():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            long[_shown(path)] = lines
    assert not long, (
        f"library files over {MAX_LINES} lines (split each into one concept per file): "
        + ", ".join(f"{path} ({n})" for path, n in sorted(long.items()))
    )


def test_no_private_name_is_reached_across_modules():
    found = [
        f"{_shown(path)}:{line}: {what}"
        for path in _library_files()
        for line, what in private_reaches(path.read_text(encoding="utf-8"))
    ]
    assert not found, "private names reached from outside their owner:\n" + "\n".join(found)


def test_the_private_check_tells_each_form_apart():
    """What the check flags and what it allows, one line each."""
    source = """
import sys
import numpy as np
from numpy.core import multiarray
from paddle_lite._src import image
from paddle_lite._src.files.params import _write_output, write_output
from . import _sibling


class Owner:
    _shared = 1

    def __init__(self):
        self._values = {}

    def merge(self, other):
        other._values.update(self._values)       # the defining class: allowed
        return self._shared, super()._hidden, Other._private


def outside(owner, row):
    image._pillow()
    owner._display_handle = 1
    getattr(owner, "_display_handle", None)
    hasattr(owner, "__len__")
    owner.__dict__, owner._repr_mimebundle_(), row._replace(a=1), row._fields
    sys._getframe(1), np.random._bit_generator, multiarray._reconstruct
"""
    assert private_reaches(source) == [
        (6, "from paddle_lite._src.files.params import _write_output"),
        (7, "from . import _sibling"),
        (18, "Other._private"),
        (22, "image._pillow"),
        (23, "owner._display_handle"),
        (24, "getattr(owner, '_display_handle', None)"),
    ]


def test_tests_import_errors_from_the_public_module():
    """A test catches what a user catches: ``paddle_lite.errors``, not the module under
    ``_src`` that defines the class."""
    public = set(paddle_lite.errors.__all__)
    tests = pathlib.Path(__file__).resolve().parents[1]
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "paddle_lite._src"
            ):
                names = sorted(a.name for a in node.names if a.name in public)
                if names:
                    where = path.relative_to(tests.parent).as_posix()
                    found.append(f"{where}:{node.lineno}: {', '.join(names)} from {node.module}")
    assert not found, "import these from paddle_lite.errors:\n" + "\n".join(found)
