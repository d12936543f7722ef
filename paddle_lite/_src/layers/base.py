"""Shared machinery of the layer functions: argument checks, naming, building nodes."""

from __future__ import annotations

import copy
import functools
import inspect
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import kinds
from paddle_lite._src.activations import SequenceSoftmax
from paddle_lite._src.errors import (
    LayerConfigError,
    LayerConfigWarning,
    LayerTypeError,
    PaddleLiteError,
    did_you_mean,
)
from paddle_lite._src.graph import Layer, auto_name, qualified_name
from paddle_lite._src.kinds import BiasAttr, Fixed, ParamAttrAt, ParamDecl, get_kind
from paddle_lite._src.specs import ParamSpec, Spec
from paddle_lite._src.tracebacks import hide_library_frames, user_stacklevel

F = TypeVar("F", bound=Callable[..., Any])

# ExtraAttr fields each layer function accepts (v2: every other field is refused).
DROP_AND_CLIP = ("drop_rate", "error_clipping_threshold", "device")
DROP_ONLY = ("drop_rate", "device")
DEVICE_ONLY = ("device",)


# What each dtype of a spec holds, and the dtypes each input mode accepts.
DTYPE_WORDS = {
    "float32": "dense float values",
    "int32": "integer ids (paddle.data_type.integer_value)",
    "sparse_binary": "a sparse binary vector",
    "sparse_float": "a sparse float vector",
}
INPUT_MODES = {
    "dense": ("float32",),
    "values": ("float32", "sparse_binary", "sparse_float"),
    "ids": ("int32",),
    "dense_or_ids": ("float32", "int32"),
}


def expect(
    spec: Spec | Sequence[Spec],
    arg: str = "input",
    mode: str = "dense",
    *,
    size: int | None = None,
    why: str = "",
) -> None:
    """Refuse an input whose dtype the ``mode`` excludes, or whose size is not ``size``.

    Modes: ``"dense"`` float values only; ``"values"`` dense or sparse values (no ids);
    ``"ids"`` integer ids only; ``"dense_or_ids"`` either. Ids refused by a mode point
    at ``paddle.layer.embedding`` (unless the input is a label).

    Args:
        spec: the input's spec, or a list of them (then named ``"<arg> <i>"``).
        arg: how the message names the input (``"input"``, ``"label"`` ...).
        mode: one of ``INPUT_MODES``.
        size: the required size, if any; ``why`` explains it in the message.

    Raises:
        LayerConfigError: naming the input, what it holds and what was expected.

    Example:
        ```python
        expect(specs["label"], "label", "ids", size=n, why=" (= input.size)")
        ```
    """
    if not isinstance(spec, Spec):
        for i, each in enumerate(spec):
            expect(each, f"{arg} {i}", mode, size=size, why=why)
        return
    allowed = INPUT_MODES[mode]
    if spec.dtype not in allowed:
        wanted = " or ".join(DTYPE_WORDS[d] for d in allowed)
        feeds_ids = spec.dtype == "int32" and "label" not in arg
        hint = " Feed ids through paddle.layer.embedding first." if feeds_ids else ""
        raise LayerConfigError(
            f"{arg} holds {DTYPE_WORDS[spec.dtype]}; expected {wanted} (received an input of "
            f"size {spec.size}).{hint}"
        )
    if size is not None and spec.size != size:
        raise LayerConfigError(f"{arg} has size {spec.size}; expected {size}{why}.")


def same_seq_level(inputs: Sequence[Spec], what: str) -> int:
    """The one sequence level all ``inputs`` share; ``what`` names them in the error."""
    levels = {s.seq_level for s in inputs}
    if len(levels) > 1:
        raise LayerConfigError(
            f"all {what} must have the same sequence level; received {sorted(levels)}."
        )
    return levels.pop()


def rows_seq_level(inputs: Sequence[Spec], what: str) -> int:
    """The sequence level of a layer v2 computed row by row from all its inputs (fc,
    mixed): inputs of different levels have different row counts, which v2's config
    parser accepted and its layer refused when run. They build here too, refusing to run
    (``cannot_run``), with the first input's level (v2 took its sequence information)."""
    levels = [s.seq_level for s in inputs]
    if len(set(levels)) > 1:
        cannot_run(
            f"all {what} must have the same sequence level; received {sorted(set(levels))} "
            "(v2 adds their rows, and a sequence has one row per step)."
        )
    return levels[0]


def layer_function(func: F) -> F:
    """Check keyword arguments before calling ``func``; unknown ones list the valid ones.
    A paddle_lite error leaving it ends its traceback at the user's call
    (``tracebacks.api_boundary``)."""
    sig = inspect.signature(func)
    valid = list(sig.parameters)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _check_arguments(func.__name__, sig, valid, args, kwargs)
            return func(*args, **kwargs)
        except PaddleLiteError as err:
            hide_library_frames(err)
            raise

    return wrapper  # type: ignore[return-value]


def _check_arguments(
    name: str, sig: inspect.Signature, valid: list[str], args: tuple, kwargs: dict
) -> None:
    for key in kwargs:
        if key not in sig.parameters:
            raise LayerTypeError(
                f"{name}() got an unexpected keyword argument '{key}'. "
                f"Valid arguments: {', '.join(valid)}." + did_you_mean(key, valid)
            )
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise LayerTypeError(f"{name}(): {exc}. Valid arguments: {', '.join(valid)}.") from None


def layer_name(name: Any, prefix: str) -> str:
    """``name`` when given (a non-empty str), else the next auto name for ``prefix``."""
    if name is None:
        return auto_name(prefix)
    if not isinstance(name, str) or not name:
        raise LayerTypeError(f"layer name must be a non-empty str; received {name!r}.")
    return name


def as_layer(value: Any, *, layer: str, arg: str) -> Layer:
    if isinstance(value, Layer):
        if value.attrs.get("open", False):  # only a mixed layer is built open (``mixed``)
            raise LayerConfigError(
                f"layer '{layer}': {arg} is the mixed layer '{value.name}' whose `with` block "
                "is still open; use it after the block ends."
            )
        return value
    raise LayerTypeError(
        f"layer '{layer}': {arg} must be a layer (the output of a paddle.layer function); "
        f"received {value!r} of type {type(value).__name__}."
    )


def as_layers(value: Any, *, layer: str, arg: str = "input") -> list[Layer]:
    """A layer or a non-empty list/tuple of layers, checked."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise LayerConfigError(f"layer '{layer}': {arg} is an empty list; expected layers.")
        return [as_layer(v, layer=layer, arg=f"{arg}[{i}]") for i, v in enumerate(value)]
    return [as_layer(value, layer=layer, arg=arg)]


def positive_int(value: Any, *, layer: str, arg: str) -> int:
    """A positive int; numpy integers pass too (v2's proto int fields took them), and whole
    floats (``attrs.whole``: a Python 2 division run by Python 3)."""
    number = attrs_mod.whole(value)
    if number is None:
        raise LayerTypeError(f"layer '{layer}': {arg} must be an int; received {value!r}.")
    if number <= 0:
        raise LayerConfigError(f"layer '{layer}': {arg} must be positive; received {value}.")
    return number


flag = attrs_mod.flag  # a bool argument: bool, numpy bool or 0/1, as v2's proto fields took


def number(value: Any, *, layer: str, arg: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LayerTypeError(f"layer '{layer}': {arg} must be a number; received {value!r}.")
    return float(value)


def extra_fields(layer_attr: Any, *, layer: str, supported: Sequence[str]) -> dict[str, Any]:
    """The set fields of an ``ExtraAttr``, refusing those this layer does not support."""
    if layer_attr is None:
        return {}
    if not isinstance(layer_attr, attrs_mod.ExtraAttr):
        raise LayerTypeError(
            f"layer '{layer}': layer_attr must be a paddle.attr.Extra; received {layer_attr!r}."
        )
    fields = layer_attr.set_fields()
    for field in fields:
        if field not in supported:
            raise LayerConfigError(
                f"Layer {layer} does not support {field}; it supports {', '.join(supported)}."
            )
    fields.pop("device", None)
    return fields


def param_attr_list(param_attr: Any, n: int, *, layer: str) -> list[attrs_mod.ParamAttr]:
    """One ``ParamAttr`` per input; a single named attr over several inputs is refused (v2)."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise LayerConfigError(
                f"layer '{layer}': param_attr has {len(param_attr)} entries; expected one per "
                f"input ({n})."
            )
        return [
            attrs_mod.as_param_attr(a, layer=layer, arg=f"param_attr[{i}]")
            for i, a in enumerate(param_attr)
        ]
    attrs = [attrs_mod.as_param_attr(param_attr, layer=layer, arg="param_attr") for _ in range(n)]
    if n > 1 and attrs[0].name is not None:
        raise LayerConfigError(
            f"layer '{layer}': one named param_attr ({attrs[0].name!r}) cannot serve {n} inputs; "
            "pass a list of paddle.attr.Param, one per input."
        )
    return attrs


def _default_param_name(
    name: str, decl: ParamDecl, parameter_name: str | None, n_weights: int
) -> str:
    if parameter_name is None:
        return f"_{name}.{decl.role}"
    if isinstance(decl.attr, ParamAttrAt) and n_weights == 1:
        return parameter_name
    return f"{parameter_name}.{decl.role}"


def _user_attr(
    decl: ParamDecl,
    param_attrs: Sequence[attrs_mod.ParamAttr],
    bias: attrs_mod.ParamAttr | None,
) -> attrs_mod.ParamAttr:
    """The user's attribute that configures ``decl`` (``decl.attr`` says which)."""
    match decl.attr:
        case ParamAttrAt(index=index):
            return param_attrs[index]
        case BiasAttr():
            return bias if bias is not None else attrs_mod.ParamAttr()
        case Fixed():
            return attrs_mod.ParamAttr(is_static=decl.static)


def resolve_params(
    name: str,
    decls: Sequence[ParamDecl],
    param_attrs: Sequence[attrs_mod.ParamAttr],
    bias: attrs_mod.ParamAttr | None,
    parameter_name: str | None,
) -> tuple[ParamSpec, ...]:
    """Turn a kind's declarations and the user's attributes into named ``ParamSpec``s."""
    n_weights = sum(1 for d in decls if isinstance(d.attr, ParamAttrAt))
    specs = []
    for decl in decls:
        attr = _user_attr(decl, param_attrs, bias)
        if decl.static and not attr.is_static:  # the kind forces it; the user's init stays
            attr = copy.copy(attr)
            attr.is_static = True
        default = _default_param_name(name, decl, parameter_name, n_weights)
        specs.append(attr.to_spec(default, decl.shape, decl.default, name, decl.role))
    return tuple(specs)


# Configurations v2 built but could not run, noted while a node is being built --------
UNRUNNABLE = kinds.UNRUNNABLE
cannot_run = kinds.cannot_run  # a configuration v2 built but could not run
suspicious = kinds.suspicious  # one v2 built and ran, very likely a mistake


def report_notes(name: str, kind_name: str, attrs: dict, notes: list[tuple[str, bool]]) -> None:
    """Warn of the notes taken while layer ``name`` was built; a configuration that cannot
    run is kept in ``attrs["unrunnable"]``, so that running the layer raises."""
    blocking = [m for m in (attrs.get(UNRUNNABLE), *(m for m, ok in notes if not ok)) if m]
    if blocking:
        attrs[UNRUNNABLE] = " ".join(dict.fromkeys(blocking))
        text = f"{attrs[UNRUNNABLE]} The layer is built and parsed, as v2 did, but "
        notes = [(text + "compiling or running it raises LayerConfigError.", True)] + [
            n for n in notes if n[1]
        ]
    for message, _ in notes:
        warnings.warn(
            f"layer '{name}' ({kind_name}): {message}",
            LayerConfigWarning,
            stacklevel=user_stacklevel(),
        )


def _check_sequence_softmax(spec: Spec, act: Any) -> None:
    """v2's sequence_softmax runs over the steps of a sequence of width-1 steps: its
    forward returned an error for a wider layer, and had no steps to run over (no
    sequence start positions) for a plain one."""
    if not isinstance(act, SequenceSoftmax):
        return
    if not spec.seq_level:
        kinds.cannot_run(
            "SequenceSoftmax needs a sequence (it normalizes over the steps); the layer is "
            "not one. Use Softmax over the values of each sample."
        )
    elif spec.size != 1:
        kinds.cannot_run(
            f"SequenceSoftmax needs a layer of size 1 (one value per step, v2: 'Input width "
            f"for each timestep of sequence softmax should be 1'); received size {spec.size}."
        )


def build(
    kind_name: str,
    *,
    name: str,
    inputs: Sequence[Layer],
    attrs: Mapping[str, Any],
    param_attrs: Sequence[attrs_mod.ParamAttr] = (),
    bias: attrs_mod.ParamAttr | None = None,
    parameter_name: str | None = None,
) -> Layer:
    """Create the node: infer its spec and resolve its parameters, naming the layer on error.

    Inside a recurrent group's step the name becomes v2's full name ``<name>@<group>``,
    and so do the default parameter names (``_<name>@<group>.w0``).
    """
    name = qualified_name(name)
    if parameter_name is not None and (not isinstance(parameter_name, str) or not parameter_name):
        raise LayerTypeError(
            f"layer '{name}': parameter_name must be a non-empty str; received {parameter_name!r}."
        )
    kind = get_kind(kind_name)
    specs = [i.spec for i in inputs]
    full_attrs = dict(attrs, bias=bias is not None)
    try:
        with kinds.noting() as notes:
            spec = kind.infer_spec(specs, full_attrs)
            _check_sequence_softmax(spec, full_attrs.get("act"))
            decls = kind.param_specs(specs, full_attrs)
    except LayerConfigError as exc:
        raise type(exc)(f"layer '{name}' ({kind_name}): {exc}") from None
    report_notes(name, kind_name, full_attrs, notes)
    params = resolve_params(name, decls, param_attrs, bias, parameter_name)
    return Layer(name, kind_name, tuple(inputs), full_attrs, spec, params)
