"""v2's public signatures read from its Python 2 source with ``ast`` (never imported).

:func:`v2_surface` maps each public v2 callable, under the dotted name paddle_lite exports it
as (``"layer.fc"``, ``"trainer.SGD.train"``), to a :class:`Sig`: its parameters in order, each
with its default as v2 sees it. A parameter one of v1's decorators (``wrap_name_default``,
``wrap_param_attr_default``, ``wrap_bias_attr_default``, ``wrap_act_default``,
``wrap_param_default``; default_decorators.py) fills when it is not passed or is ``None``
has the default :data:`FILLED`, whatever its literal default (``context_projection``'s
``padding_attr=False`` is filled when omitted): v2 accepts ``None`` there and fills it.
A default that is not a literal (``LinearActivation()``, ``AggregateLevel.TO_NO_SEQUENCE``)
is an :class:`Expr`.
:func:`differences` compares a :class:`Sig` with ``inspect.signature`` of paddle_lite's object.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import os
import re
import warnings
from pathlib import Path
from typing import Any

# v2's stored source tree (its README lists each file's commit); PADDLE_V2_SOURCE overrides.
V2 = Path(os.environ.get("PADDLE_V2_SOURCE", "/work/shared/reference/v2_source/python/paddle"))
TCH = "trainer_config_helpers"


class _Marker:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


REQUIRED = _Marker("<required>")
FILLED = _Marker("<None, filled by a v1 decorator>")


@dataclasses.dataclass(frozen=True)
class Expr:
    """A default that is an expression, kept as its source text."""

    source: str


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    default: Any = REQUIRED
    keyword_only: bool = False  # reached in v2 only through **kwargs


@dataclasses.dataclass(frozen=True)
class Sig:
    where: str
    params: tuple[Param, ...]
    varargs: str | None = None
    varkw: str | None = None

    def names(self) -> list[str]:
        return [p.name for p in self.params]


@functools.cache
def parse(relpath: str) -> ast.Module:
    """The module at ``relpath`` under v2's ``python/paddle`` (Python 2 ``print`` dropped;
    the warnings Python 3 gives on its invalid string escapes silenced). Read-only."""
    text = (V2 / relpath).read_text()
    text = re.sub(r"^(\s*)print (.*)$", r"\1pass", text, flags=re.M)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        return ast.parse(text)


def _const(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return Expr(ast.unparse(node))


def _call_args(call: ast.Call, names: tuple[str, ...]) -> dict[str, Any]:
    """The decorator call's arguments by name (positional ones named by ``names``)."""
    out = {n: _const(a) for n, a in zip(names, call.args, strict=False)}
    out.update({k.arg: _const(k.value) for k in call.keywords if k.arg})
    return out


def _fills(decorators: list[ast.expr]) -> set[str]:
    """Parameter names whose ``None`` v1's default decorators replace by a default."""
    filled: set[str] = set()
    for deco in decorators:
        if not isinstance(deco, ast.Call) or not isinstance(deco.func, ast.Name):
            continue
        kind = deco.func.id
        if kind == "wrap_name_default":
            filled.add(_call_args(deco, ("name_prefix", "name_param")).get("name_param", "name"))
        elif kind == "wrap_param_attr_default":
            filled.update(_call_args(deco, ("param_names",)).get("param_names") or ["param_attr"])
        elif kind == "wrap_bias_attr_default":
            args = _call_args(deco, ("param_names", "default_factory", "has_bias"))
            if args.get("has_bias", True):  # has_bias=False: None stays "no bias"
                filled.update(args.get("param_names") or ["bias_attr"])
        elif kind == "wrap_act_default":
            filled.update(_call_args(deco, ("param_names", "act")).get("param_names") or ["act"])
        elif kind == "wrap_param_default":
            filled.update(_call_args(deco, ("param_names",))["param_names"])
    return filled


def sig_of(fn: ast.FunctionDef, where: str, *, method: bool = False) -> Sig:
    args = fn.args
    positional = [a.arg for a in args.args]
    defaults = [REQUIRED] * (len(positional) - len(args.defaults))
    defaults += [_const(d) for d in args.defaults]
    filled = _fills(fn.decorator_list)
    params = [
        Param(n, FILLED if n in filled else d) for n, d in zip(positional, defaults, strict=True)
    ]
    is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if method and not is_static:
        params = params[1:]
    return Sig(
        where,
        tuple(params),
        args.vararg.arg if args.vararg else None,
        args.kwarg.arg if args.kwarg else None,
    )


def definitions(relpath: str) -> dict[str, ast.AST]:
    """Top-level functions, classes and plain ``alias = name`` assignments of a module."""
    out: dict[str, ast.AST] = {}
    for node in parse(relpath).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Name)
            and node.value.id in out
        ):
            out[node.targets[0].id] = out[node.value.id]
    return out


def module_all(relpath: str) -> list[str]:
    for node in parse(relpath).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return list(ast.literal_eval(node.value))
    raise LookupError(f"{relpath} has no literal __all__")


def methods(cls: ast.ClassDef, where: str) -> dict[str, Sig]:
    return {
        f.name: sig_of(f, f"{where}.{f.name}", method=True)
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
    }


def init_of(defs: dict[str, ast.AST], cls_name: str, where: str) -> Sig:
    """``__init__`` of a class, looked up through its (same-module) bases."""
    cls = defs[cls_name]
    assert isinstance(cls, ast.ClassDef)
    found = methods(cls, where)
    if "__init__" in found:
        return _class_constants(cls, dataclasses.replace(found["__init__"], where=where))
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in defs:
            return init_of(defs, base.id, where)
    return Sig(where, ())


def _class_constants(cls: ast.ClassDef, sig: Sig) -> Sig:
    """``sig`` with defaults that name a literal class attribute (``STRATEGY_AVG``) resolved."""
    consts = {
        t.id: ast.literal_eval(node.value)
        for node in cls.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    params = tuple(
        dataclasses.replace(p, default=consts[p.default.source])
        if isinstance(p.default, Expr) and p.default.source in consts
        else p
        for p in sig.params
    )
    return dataclasses.replace(sig, params=params)


def self_attributes(cls: ast.ClassDef) -> set[str]:
    """Names a class sets on ``self`` in its methods, plus its properties."""
    names = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
        if isinstance(node, ast.FunctionDef) and any(
            getattr(d, "id", "") == "property" for d in node.decorator_list
        ):
            names.add(node.name)
    return {n for n in names if not n.startswith("_")}


def with_keywords(sig: Sig, extra: Sig, *, drop: tuple[str, ...] = ()) -> Sig:
    """``sig`` whose ``**kwargs`` are passed on to ``extra``: its parameters become keywords."""
    known = set(sig.names()) | set(drop)
    more = tuple(
        dataclasses.replace(p, keyword_only=True) for p in extra.params if p.name not in known
    )
    return dataclasses.replace(sig, params=sig.params + more, varkw=extra.varkw)


def resolve(dotted: str) -> tuple[Any, Any, str]:
    """(object, owner, module) for ``"layer.fc"``, ``"trainer.SGD.train"``, ``"infer"``."""
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts) - 1, -1, -1):
        module_name = ".".join(["paddle_lite", *parts[:i]])
        try:
            owner = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        obj = owner
        for name in parts[i:]:
            owner, obj = obj, getattr(obj, name)
        return obj, owner, module_name
    raise LookupError(dotted)


def resolve_exported(dotted: str) -> tuple[Any, Any, str]:
    """:func:`resolve`, with ``None`` for a name paddle_lite does not export at all."""
    try:
        return resolve(dotted)
    except AttributeError:
        return None, None, ""


def lite_signature(obj: Any, owner: Any) -> inspect.Signature:
    sig = inspect.signature(obj)
    if inspect.isclass(owner) and inspect.isfunction(obj):
        static = isinstance(inspect.getattr_static(owner, obj.__name__, None), staticmethod)
        if not static:
            sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    return sig


def same_value(v2: Any, lite: Any) -> bool:
    if isinstance(v2, (list, tuple)) and isinstance(lite, (list, tuple)):
        return len(v2) == len(lite) and all(map(same_value, v2, lite))
    if type(v2) is type(lite) and hasattr(v2, "__dict__") and not inspect.isroutine(v2):
        return vars(v2) == vars(lite)
    try:
        return bool(v2 == lite) and isinstance(v2, bool) == isinstance(lite, bool)
    except Exception:
        return False


def _default_difference(p: Param, q: inspect.Parameter, namespace: dict) -> str | None:
    if p.default is REQUIRED:
        return None
    if q.default is inspect.Parameter.empty:
        return f"{p.name}: v2 default {p.default!r}, paddle_lite requires it"
    if p.default is FILLED:
        if q.default is None:
            return None
        return f"{p.name}: v2 accepts None (a decorator fills it); paddle_lite: {q.default!r}"
    want = p.default
    if isinstance(want, Expr):
        try:
            want = eval(want.source, dict(namespace))
        except Exception as exc:
            return f"{p.name}: v2 default {p.default.source} cannot be evaluated here ({exc})"
    if same_value(want, q.default):
        return None
    return f"{p.name}: v2 default {want!r}, paddle_lite default {q.default!r}"


def differences(
    v2: Sig, lite: inspect.Signature, namespace: dict, keywords: dict | None = None
) -> list[str]:
    """How calling paddle_lite with v2's arguments (by keyword or by position) differs.

    ``keywords`` maps the names paddle_lite takes through its ``**kwargs`` to their defaults
    (an optimizer's global settings), for v2 parameters that are keywords there too.
    """
    kind = inspect.Parameter
    params = lite.parameters
    has = {q.kind for q in params.values()}
    out = []
    for p in v2.params:
        q = params.get(p.name)
        if q is None and p.keyword_only and keywords and p.name in keywords:
            q = inspect.Parameter(p.name, kind.KEYWORD_ONLY, default=keywords[p.name])
        elif q is None and p.keyword_only and not keywords and kind.VAR_KEYWORD in has:
            continue  # passed on through **kwargs in both, as v2 does
        if q is None or q.kind in (kind.POSITIONAL_ONLY, kind.VAR_POSITIONAL, kind.VAR_KEYWORD):
            out.append(f"{p.name}: v2 parameter missing")
            continue
        out.append(_default_difference(p, q, namespace))
    v2_pos = [p.name for p in v2.params if not p.keyword_only]
    lite_pos = [
        q.name
        for q in params.values()
        if q.kind in (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD)
    ]
    if lite_pos[: len(v2_pos)] != v2_pos or (v2.varargs and lite_pos != v2_pos):
        out.append(f"positional order: v2 {v2_pos}, paddle_lite {lite_pos}")
    if v2.varargs and kind.VAR_POSITIONAL not in has:
        out.append(f"v2 takes *{v2.varargs}, paddle_lite does not")
    if v2.varkw and kind.VAR_KEYWORD not in has:
        out.append(f"v2 takes **{v2.varkw}, paddle_lite does not")
    names = set(v2.names())
    for q in params.values():
        if q.name not in names and q.default is kind.empty:
            if q.kind in (kind.POSITIONAL_OR_KEYWORD, kind.KEYWORD_ONLY, kind.POSITIONAL_ONLY):
                out.append(f"{q.name}: required in paddle_lite, absent from v2")
    return [d for d in out if d]


def class_constants(relpath: str, cls_name: str) -> dict[str, Any]:
    """The literal class attributes of a v2 class (``AggregateLevel.TO_SEQUENCE = "seq"``),
    aliases (``EACH_SEQUENCE = TO_SEQUENCE``, ``AggregateLevel.TO_SEQUENCE``) resolved."""
    defs = definitions(relpath)
    out: dict[str, Any] = {}
    cls = defs[cls_name]
    assert isinstance(cls, ast.ClassDef)
    for node in cls.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Name):
            out[node.targets[0].id] = out[value.id]
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            out[node.targets[0].id] = class_constants(relpath, value.value.id)[value.attr]
        else:
            out[node.targets[0].id] = ast.literal_eval(value)
    return out


def act_defaults(relpath: str) -> dict[str, dict[str, str]]:
    """``{function: {parameter: activation class}}`` that ``wrap_act_default`` fills
    (``"TanhActivation"`` when the decorator names none)."""
    out: dict[str, dict[str, str]] = {}
    for name, node in definitions(relpath).items():
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "wrap_act_default":
                args = _call_args(deco, ("param_names", "act"))
                act = args.get("act")
                cls = act.source.removesuffix("()") if isinstance(act, Expr) else "TanhActivation"
                for param in args.get("param_names") or ["act"]:
                    out.setdefault(name, {})[param] = cls
    return out
