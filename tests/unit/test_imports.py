"""The one-way import layout: no import cycles inside paddle_lite, and ``graph`` imports
nothing above it, only ``errors`` and ``specs`` (the layer package installs the operators
on layers)."""

import ast
import pathlib

import paddle_lite

ROOT = pathlib.Path(paddle_lite.__file__).parent


def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_graph():
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    edges = {m: set() for m in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paddle_lite"):
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    edges[name].add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                edges[name].update(a.name for a in node.names if a.name in modules)
    return edges


def _cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert _cycles(_import_graph()) == []


def test_graph_imports_no_layer_module():
    edges = _import_graph()
    assert edges["paddle_lite._src.graph"] == {"paddle_lite._src.errors", "paddle_lite._src.specs"}
    assert edges["paddle_lite._src.specs"] == {"paddle_lite._src.errors"}


def test_operators_work_once_the_layer_package_is_imported():
    x = paddle_lite.layer.data(name="x", type=paddle_lite.data_type.dense_vector(3))
    assert (x + x).kind == "mixed" and (2.0 * x).kind == "slope_intercept"
    assert (-x).attrs["slope"] == -1.0
