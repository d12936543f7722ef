"""griffe extensions for the API pages (mkdocs.yml loads them for mkdocstrings).

``ExampleSections``: a docstring's ``Example:`` section is read as Google style's
``Examples:``, so its ``>>>`` lines render as code (singular ``Example:`` would be an
admonition of plain text, where ``>>>`` reads as a quotation).

``ParameterEntries``: the parameters table has one row per argument, and takes each row's
type and default from the signature by the row's name. The docstrings describe related
arguments together (``act, gate_act, state_act: ...``, ``fwd_*: ...``); such an entry is
written out as one entry per argument it names, so that no row goes without its default
(or reads "required") and every argument of the signature has its row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import re
from collections.abc import Iterator
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.M)
_SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters|Other Parameters):[ \t]*$")
_ENTRY = re.compile(r"^(\s*)([\w*]+(?:, [\w*]+)*|[\w]*\*[\w*]*)((?: \([^)]*\))?: .*)$")


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` section headers to ``Examples:`` in every docstring."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _EXAMPLE.sub(r"\1Examples:", docstring.value)


def split_entries(text: str, parameters: list[str]) -> str:
    """``text`` with each grouped ``Args`` entry written out once per argument it names:
    ``a, b: desc`` as ``a: desc`` and ``b: desc``, ``fwd_*: desc`` as one entry per
    parameter matching ``fwd_*`` that has no entry of its own."""
    lines = text.split("\n")
    out: list[str] = []
    section_indent = entry_indent = None
    i = 0
    while i < len(lines):
        line = lines[i]
        header = _SECTION.match(line)
        if header:
            section_indent, entry_indent = len(header.group(1)), None
            out.append(line)
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        if section_indent is not None and line.strip() and indent <= section_indent:
            section_indent = None
        if section_indent is not None and line.strip() and entry_indent is None:
            entry_indent = indent
        entry = (
            _ENTRY.match(line) if section_indent is not None and indent == entry_indent else None
        )
        if not entry or ("," not in entry.group(2) and "*" not in entry.group(2).lstrip("*")):
            out.append(line)
            i += 1
            continue
        block = [line]
        i += 1
        while (
            i < len(lines) and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) > indent
        ):
            block.append(lines[i])
            i += 1
        for name in _names(entry.group(2), parameters, text):
            out.append(f"{entry.group(1)}{name}{entry.group(3)}")
            out.extend(block[1:])
    return "\n".join(out)


def _names(group: str, parameters: list[str], text: str) -> list[str]:
    names: list[str] = []
    for name in group.split(", "):
        if "*" in name.lstrip("*"):
            own = set(re.findall(r"^\s*(\w+)(?: \([^)]*\))?:", text, flags=re.M))
            names += [p for p in parameters if fnmatch.fnmatchcase(p, name) and p not in own]
        else:
            names.append(name)
    return names


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and everything defined in it (re-exports left out)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


class ParameterEntries(griffe.Extension):
    """Write grouped ``Args`` entries out one per argument (see ``split_entries``)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is None:
                continue
            # own members only: inherited ones are not resolved yet (and would be cached)
            func = obj.members.get("__init__") if obj.is_class else obj
            parameters = [p.name for p in func.parameters] if func and func.is_function else []
            obj.docstring.value = split_entries(obj.docstring.value, parameters)


class InternalNames(griffe.Extension):
    """Show the names of types the API does not export as plain text.

    An annotation or default that names an object of ``paddle_lite._src`` which no public
    module re-exports (``ParamSpec``, the ``Reader`` alias ...) would be rendered as a
    cross-reference titled with its implementation path; it is shown as its name alone.
    Names the API exports keep their links (to the page that documents them).
    """

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        public = set()
        for obj in _objects(pkg):
            if obj.is_module and not any(part.startswith("_") for part in obj.path.split(".")):
                for member in obj.members.values():
                    with contextlib.suppress(griffe.AliasResolutionError, griffe.CyclicAliasError):
                        target = member.final_target if member.is_alias else member
                        if target.docstring is not None:  # rendered, so linkable
                            public.add(target.path)
        for obj in _objects(pkg):
            for expr in _expressions(obj):
                _unlink_internal(expr, public)


def _expressions(obj: griffe.Object) -> Iterator[Any]:
    if obj.is_function:
        yield obj.returns
        for parameter in obj.parameters:
            yield parameter.annotation
            yield parameter.default
    elif obj.is_attribute:
        yield obj.annotation
        yield obj.value
    elif obj.is_class:
        yield from obj.bases


class ExprName(griffe.ExprName):
    """A name that still resolves (a base class stays a base) but links nowhere: the
    templates render an ``ExprName`` (so named) without a ``reference_path`` as text."""

    __slots__ = ()

    @property
    def reference_path(self) -> None:
        return None


def _unlink_internal(expr: Any, public: set[str]) -> None:
    if isinstance(expr, griffe.ExprName):
        path = expr.canonical_path
        if path.startswith("paddle_lite._src.") and path not in public:
            expr.__class__ = ExprName
    if isinstance(expr, griffe.Expr):
        for field in dataclasses.fields(expr):
            _unlink_internal(getattr(expr, field.name), public)
    elif isinstance(expr, (list, tuple)):
        for item in expr:
            _unlink_internal(item, public)
