"""A layer kind is one declaration: no module but the one declaring a kind names it.

Everything the library knows about a kind (shape rule, parameters, host checks, v2's
ModelConfig fields, per-row facts, flags) is on its ``Kind`` (``kinds``); code elsewhere
asks the kind (``get_kind(node.kind).host.needs_a_step``), never tests its name. This
test reads the library's source and fails on a kind's name, outside the module that
declares the kind, where a layer's kind is compared with it (``node.kind == "maxid"``,
``node.kind in ("max", "crf")``), in a table looked up by a layer's kind
(``node.kind in PER_ROW``, ``V2_TYPES.get(n.kind)``) or in ``get_kind("<name>")``.
"""

from __future__ import annotations

import ast
import pathlib

import paddle_lite
from paddle_lite._src.kinds import all_kinds

ROOT = pathlib.Path(paddle_lite.__file__).parent

# The data layer is the graph's input, not a computation: the feeder, the topology's
# feeding order and the compiled forward read data layers by their kind.
GRAPH_INPUT = "data"
# Modules changed elsewhere at the same time; each reads a kind's name still.


def _owners() -> dict[str, str]:
    """Kind name -> the module declaring it."""
    return {kind.name: type(kind).__module__ for kind in all_kinds()}


def _module(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _strings(node: ast.AST | None) -> list[ast.Constant]:
    """The string constants of a literal, a collection of literals or a set union."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    if isinstance(node, ast.Dict):
        return [s for k in node.keys for s in _strings(k)]
    if isinstance(node, ast.BinOp):
        return _strings(node.left) + _strings(node.right)
    if isinstance(node, ast.Call) and node.args:  # frozenset({...}), set([...])
        return _strings(node.args[0])
    return []


def _reads_kind(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "kind"


def _tables(tree: ast.Module) -> dict[str, ast.AST]:
    """The module-level assignments: name -> value."""
    found: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            found.update((t.id, stmt.value) for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            found[stmt.target.id] = stmt.value
    return found


def _table_read_by_kind(node: ast.AST) -> str | None:
    """``NAME`` in ``x.kind in NAME``, ``NAME[x.kind]`` or ``NAME.get(x.kind)``."""
    if isinstance(node, ast.Compare) and _reads_kind(node.left):
        last = node.comparators[-1]
        return last.id if isinstance(last, ast.Name) else None
    if isinstance(node, ast.Subscript) and _reads_kind(node.slice):
        return node.value.id if isinstance(node.value, ast.Name) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and _reads_kind(node.args[0])
    ):
        return node.func.value.id if isinstance(node.func.value, ast.Name) else None
    return None


def _named_kinds(tree: ast.Module) -> list[ast.Constant]:
    """The string constants this module compares a layer's kind with."""
    tables = _tables(tree)
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            _reads_kind(x) for x in (node.left, *node.comparators)
        ):
            found += [s for x in (node.left, *node.comparators) for s in _strings(x)]
        table = _table_read_by_kind(node)
        if table in tables:
            found += _strings(tables[table])
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "get_kind":
            found += _strings(node.args[0]) if node.args else []
    return found


def kind_names_outside_their_declaration(root: pathlib.Path = ROOT) -> list[str]:
    """``path:line: 'name'`` for each kind name read outside its declaring module."""
    owners = _owners()
    found = []
    for path in sorted(root.rglob("*.py")):
        module, rel = _module(path, root), path.relative_to(root.parent).as_posix()
        for const in _named_kinds(ast.parse(path.read_text(), str(path))):
            name = const.value
            if name not in owners or owners[name] == module or name == GRAPH_INPUT:
                continue
            found.append(f"{rel}:{const.lineno}: {name!r} (declared in {owners[name]})")
    return found


def test_no_kind_name_is_read_outside_its_declaration():
    assert kind_names_outside_their_declaration() == []


def test_the_scan_finds_a_kind_table_and_a_kind_test(tmp_path):
    pkg = tmp_path / "paddle_lite" / "_src"
    pkg.mkdir(parents=True)
    (pkg / "tail.py").write_text(
        'PER_ROW = frozenset({"fc", "mixed"} | {"addto"})\n'
        "def movable(node):\n    return node.kind in PER_ROW\n"
        'def prob(layer):\n    return layer.kind == "maxid" or V2.get(layer.kind)\n'
        'V2 = {"img_pool": "pool"}\n'
        'def data(node):\n    return node.kind == "data"\n'
    )
    found = kind_names_outside_their_declaration(tmp_path / "paddle_lite")
    names = sorted(line.split(": ")[1].split(" ")[0] for line in found)
    assert names == ["'addto'", "'fc'", "'img_pool'", "'maxid'", "'mixed'"]


def test_a_kind_name_in_its_own_module_or_another_table_is_fine(tmp_path):
    pkg = tmp_path / "paddle_lite" / "_src" / "layers"
    pkg.mkdir(parents=True)
    (pkg / "fc.py").write_text('def own(node):\n    return node.kind == "fc"\n')
    (pkg / "other.py").write_text(
        '__all__ = ["fc", "mixed"]\nPOOL = ("max", "avg")\n'
        'def pool(attrs):\n    return attrs["pool"] == "max"\n'
    )
    assert kind_names_outside_their_declaration(tmp_path / "paddle_lite") == []


def test_a_v2_inference_file_rebuilds_the_types_its_kinds_declare():
    from paddle_lite._src.proto.inference_file import rebuilders

    assert sorted(rebuilders()) == sorted(
        "fc mixed exconv cudnn_conv conv pool batch_norm cudnn_batch_norm norm max average "
        "seqlastins lstmemory gated_recurrent recurrent addto concat maxid slope_intercept".split()
    )
