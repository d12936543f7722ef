"""Documentation: every public symbol has a docstring, the site's pages exist, the API
reference covers every public module, and every nav page exists."""

import importlib
import inspect
import os
import pathlib
import pkgutil
import re
import subprocess
import sys
import types

import pytest

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
    """A page renders the module (``::: paddle_lite.reader``) or each of its members
    (``::: paddle_lite.layer.fc`` ...)."""
    pages = (ROOT / "docs" / "api").glob("*.md")
    text = "\n".join(p.read_text() for p in pages)
    documented = set(re.findall(r"^::: (paddle_lite[\w.]*)", text, flags=re.M))
    documented |= {name.rpartition(".")[0] for name in documented}
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


# The built site ---------------------------------------------------------------------
# The API pages are rendered by mkdocstrings from the docstrings (Google style, Markdown);
# reST written there would reach the reader as literal text.

# in a source ``:class:`Layer``; rendered, ``:class:<code>Layer</code>``
SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|obj|exc|ref|math):(?:`|<code)")


LITERAL_BLOCK = re.compile(r"[^:\s]::[ \t]*$", flags=re.M)  # reST's "text::" + indented block


def test_no_sphinx_markup_in_the_sources():
    """Cross-references are ``[`name`][paddle_lite.module.name]``, formulas ``$$ ... $$``,
    and a code block follows ``text:`` (indented, or fenced)."""
    found = {
        str(p.relative_to(ROOT)): (
            len(SPHINX_ROLE.findall(text)),
            text.count(".. math::"),
            len(LITERAL_BLOCK.findall(text)),
        )
        for p in sorted((ROOT / "paddle_lite").rglob("*.py"))
        if SPHINX_ROLE.search(text := p.read_text())
        or ".. math::" in text
        or LITERAL_BLOCK.search(text)
    }
    assert found == {}, f"files with Sphinx roles / .. math:: / text:: (counts): {found}"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The documentation built as ``mkdocs build --strict`` builds it (a few seconds)."""
    pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra (mkdocstrings) is not installed")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", "mkdocs.yml", "-d", out],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def _api_pages(site):
    return {str(p.relative_to(site)): p.read_text() for p in sorted((site / "api").rglob("*.html"))}


def _empty_type_cells(html):
    """The names of the rows of a Parameters/Returns/... table whose Type cell is empty."""
    empty = []
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        head = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th>(.*?)</th>", table)]
        if "Type" not in head:
            continue
        for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, flags=re.S):
            cells = [
                re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td.*?</td>", row, re.S)
            ]
            if not cells[head.index("Type")]:
                empty.append(cells[0] if head[0] == "Name" else cells[-1][:40])
    return empty


def test_api_pages_show_no_markup_no_implementation_paths_and_every_type(site):
    pages = _api_pages(site)
    assert len(pages) >= 25
    problems = {}
    for name, html in pages.items():
        found = {
            "sphinx roles": len(SPHINX_ROLE.findall(html)),
            ".. math::": html.count(".. math::"),
            "_src": html.count("_src"),
            "empty Type cells": _empty_type_cells(html),
        }
        if any(found.values()):
            problems[name] = {k: v for k, v in found.items() if v}
    assert problems == {}, problems
    assert _empty_type_cells(
        '<table><th>Name</th><th>Type</th><tr class="doc-section-item"><td>x</td><td> </td>'
        "</tr></table>"
    ) == ["x"]


def test_formulas_are_typeset(site):
    """``$$ ... $$`` in a docstring becomes an arithmatex block, typeset by KaTeX."""
    layer = (site / "api" / "layer" / "index.html").read_text()
    lstm = layer[layer.index('id="paddle_lite.layer.lstmemory"') :]
    lstm = lstm[: lstm.index('id="paddle_lite.layer.grumemory"')]
    assert '<div class="arithmatex">\\[' in lstm and "\\begin{aligned}" in lstm
    assert "katex.min.js" in layer and "js/katex.js" in layer
    formulas = sum(html.count('class="arithmatex"') for html in _api_pages(site).values())
    assert formulas >= 30


def test_every_public_object_has_its_entry(site):
    """Each public name (other spellings of one object aside) has its heading on an
    API page, under the public path."""
    anchors = set()
    for html in _api_pages(site).values():
        anchors |= set(re.findall(r'<h\d id="(paddle_lite[\w.]*)"', html))
    missing = []
    for modname in public_modules():
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or getattr(obj, "__name__", name) != name:
                continue
            if not isinstance(obj, (type, types.FunctionType)):
                continue  # constants (DATA_HOME ...) are documented in their module's text
            if f"{modname}.{name}" not in anchors:
                missing.append(f"{modname}.{name}")
    assert missing == []


def test_layer_page_starts_with_what_users_call(site):
    html = (site / "api" / "layer" / "index.html").read_text()
    functions = re.findall(r'<h3 id="paddle_lite\.layer\.(\w+)"', html)
    assert functions[:3] == ["data", "fc", "embedding"]
    assert "Layer" in functions and 'id="paddle_lite.layer.Layer.size"' not in html


def test_only_pages_and_their_assets_are_published(site):
    published = {p.suffix for p in site.rglob("*") if p.is_file()}
    assert ".py" not in published and ".pyc" not in published, published


def _griffe_package():
    griffe = pytest.importorskip("griffe", reason="the docs extra (griffe) is not installed")
    sys.path.insert(0, str(ROOT))
    try:
        from docs_ext import docstrings
    finally:
        sys.path.remove(str(ROOT))
    extensions = griffe.load_extensions(
        docstrings.ExampleSections, docstrings.ParameterEntries, docstrings.InternalNames
    )
    return griffe.load("paddle_lite", extensions=extensions, search_paths=[str(ROOT)],
                       docstring_parser="google")  # fmt: skip


def test_parameter_tables_list_each_argument_once(recwarn):
    """A parameters table has one row per argument of the signature: a row the signature
    lacks reads "required" and has no type, and an argument without a row goes unexplained."""
    pkg = _griffe_package()
    wrong = {}
    for modname in public_modules():
        module = pkg[modname.removeprefix("paddle_lite.")] if modname != "paddle_lite" else pkg
        for name in getattr(importlib.import_module(modname), "__all__", []):
            obj = module[name]
            obj = obj.final_target if obj.is_alias else obj
            if not (obj.is_function or obj.is_class) or obj.docstring is None:
                continue
            signature = [p.name for p in obj.parameters if p.name not in ("self", "cls")]
            rows = [
                p.name.lstrip("*")
                for section in obj.docstring.parse("google", warnings=False)
                if section.kind.value == "parameters"
                for p in section.value
            ]
            if rows and rows != signature and sorted(rows) != sorted(signature):
                wrong[f"{modname}.{name}"] = (rows, signature)
    assert wrong == {}, wrong


def test_home_page_shows_install_and_the_readme_program():
    """The home page shows the install command and the README's first program, as is."""
    home = (ROOT / "docs" / "index.md").read_text()
    readme = (ROOT / "README.md").read_text()
    first = re.compile(r"```python\n(.*?)```", flags=re.S)
    assert first.search(home).group(1) == first.search(readme).group(1)
    assert "pip install -e ." in home and "![" in home
