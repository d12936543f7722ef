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
