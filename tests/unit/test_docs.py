"""Documentation: every public symbol has a docstring, the site's pages exist, the API
reference covers every public module, and every nav page exists."""

import importlib
import inspect
import pathlib
import pkgutil
import re
import types

import paddle_lite

ROOT = pathlib.Path(__file__).resolve().parents[2]
# the JSON codec protocol (``to_json`` / ``from_json`` of specs, types, activations and
# topologies) is described once, with the format, in ``Topology.serialize``
PROTOCOL = {"to_json", "from_json"}


def public_modules():
    names = ["paddle_lite"]
    for info in pkgutil.walk_packages(paddle_lite.__path__, "paddle_lite."):
        if "._" not in info.name:
            names.append(info.name)
    return names


def _own_doc(obj):
    if isinstance(obj, type):
        return obj.__dict__.get("__doc__")
    return inspect.getdoc(obj)


def _members(cls):
    for name, value in vars(cls).items():
        if name.startswith("_") or name in PROTOCOL:
            continue
        if isinstance(value, property):
            yield name, value.fget
        elif isinstance(value, (staticmethod, classmethod)):
            yield name, value.__func__
        elif inspect.isfunction(value):
            yield name, getattr(cls, name)


def public_symbols():
    """(qualified name, object, documented?) for every public symbol and public method."""
    out = []
    for modname in public_modules():
        module = importlib.import_module(modname)
        out.append((modname, module, bool((module.__doc__ or "").strip())))
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            out.append((f"{modname}.{name}", obj, bool((_own_doc(obj) or "").strip())))
            if isinstance(obj, type) and obj.__module__.startswith("paddle_lite"):
                for member, fn in _members(obj):
                    doc = inspect.getdoc(getattr(obj, member)) if member else None
                    doc = doc or inspect.getdoc(fn)
                    out.append((f"{modname}.{name}.{member}", fn, bool((doc or "").strip())))
    return out


def test_every_public_symbol_has_a_docstring():
    symbols = public_symbols()
    assert len(symbols) > 500  # modules, their __all__ and the public methods
    missing = sorted(name for name, _, documented in symbols if not documented)
    assert missing == [], f"public symbols without a docstring: {missing}"


def test_every_public_module_has_an_api_page():
    pages = (ROOT / "docs" / "api").glob("*.md")
    text = "\n".join(p.read_text() for p in pages)
    documented = set(re.findall(r"^::: (paddle_lite[\w.]*)", text, flags=re.M))
    assert set(public_modules()) <= documented, set(public_modules()) - documented


def test_every_page_in_nav_exists_except_the_two_merged_later():
    yaml = (ROOT / "mkdocs.yml").read_text()
    pages = re.findall(r"^\s*- (?:[^:\n]+: )?([\w./-]+\.md)$", yaml, flags=re.M)
    assert "getting-started.md" in pages and "api/layer.md" in pages
    missing = [p for p in pages if not (ROOT / "docs" / p).exists()]
    assert set(missing) <= {"benchmarks.md", "reliability.md"}, missing


LITERAL_EXAMPLE = re.compile(r"^\s*Examples?::\s*$", flags=re.M)


def _docstrings():
    """(qualified name, docstring) of every public module, symbol and method."""
    for name, obj, _ in public_symbols():
        doc = obj.__doc__ if not isinstance(obj, type) else _own_doc(obj)
        if isinstance(doc, str):
            yield name, doc


def test_no_literal_example_blocks_in_docstrings():
    """``Example::`` is reST; under Google-style docstrings mkdocstrings shows it as text.
    Write ``Example:`` followed by ``>>>`` lines or a fenced code block."""
    found = sorted({name for name, doc in _docstrings() if LITERAL_EXAMPLE.search(doc)})
    sources = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "paddle_lite").rglob("*.py")
        if LITERAL_EXAMPLE.search(p.read_text())
    )
    assert found == [] and sources == [], (found, sources)


def _empty_table_headers(text):
    """Line numbers of table header rows whose cells are all empty (``| | |``)."""
    lines = text.splitlines()
    bad = []
    for i, line in enumerate(lines[:-1]):
        separator = re.fullmatch(r"\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?\s*)?", lines[i + 1])
        cells = line.strip().strip("|").split("|")
        if separator and line.strip().startswith("|") and not any(c.strip() for c in cells):
            bad.append(i + 1)
    return bad


def test_no_empty_table_headers_in_docs():
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    bad = {str(p.relative_to(ROOT)): _empty_table_headers(p.read_text()) for p in pages}
    bad = {page: lines for page, lines in bad.items() if lines}
    assert bad == {}, f"tables with an empty header row (page: lines): {bad}"
    assert _empty_table_headers("| | |\n| --- | --- |\n| a | b |") == [1]
    assert _empty_table_headers("| a | b |\n| --- | ---: |\n| c | d |") == []


def test_readme_first_example_runs_and_writes_nothing(tmp_path, monkeypatch):
    """The README's first example runs right after ``pip install -e .`` (two passes here)
    and leaves the working directory empty."""
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, flags=re.S).group(1)
    assert "num_passes=30" in code and "paddle.event.progress()" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace("num_passes=30", "num_passes=2"), "README.md", "exec"), {})
    assert list(tmp_path.iterdir()) == []
