"""Projections and operators: the inputs of a mixed layer.

A projection maps one input layer to the mixed layer's width (``x W``, a table row,
a copy, ``x * w`` ...); an operator combines several inputs without parameters.
Projections are not layers: they are small immutable ``Projection`` objects
that only feed ``mixed`` (and ``concat``); the functions here build them.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import Seq, Sparse, data_of


@dataclasses.dataclass(frozen=True, eq=False)
class Projection:
    """One input of a mixed layer: its ``type``, input layer(s) and settings.

    ``size`` 0 means "the mixed layer's size"; ``param_attr`` is ``None`` for the
    parameterless types (identity, operators). ``conv`` holds the geometry of the
    convolution types (``conv``, ``convt``, ``conv_operator``; see ``conv_mixed``),
    ``slices`` the ``(start, end)`` value ranges a ``slice`` projection keeps.
    """

    type: str
    inputs: tuple[Layer, ...]
    size: int = 0
    offset: int | None = None
    scale: float = 1.0
    param_attr: attrs_mod.ParamAttr | None = None
    context_start: int = 0
    context_len: int = 0
    conv: Any = None
    slices: tuple[tuple[int, int], ...] = ()

    @property
    def origin(self) -> Layer | list[Layer]:
        """v2's ``proj.origin``: the input layer (a list for operators)."""
        return list(self.inputs) if len(self.inputs) > 1 else self.inputs[0]

    def to_attr(self, first_input: int) -> dict[str, Any]:
        """The plain-data description stored in the mixed layer's attributes."""
        item: dict[str, Any] = {
            "type": self.type,
            "inputs": tuple(range(first_input, first_input + len(self.inputs))),
            "size": self.size,
        }
        if self.offset is not None:
            item["offset"] = self.offset
        if self.type == "dotmul_operator":
            item["scale"] = self.scale
        if self.type == "context":
            item["context_start"] = self.context_start
            item["context_len"] = self.context_len
            item["trainable"] = self.param_attr is not None
        if self.conv is not None:
            item["conv"] = dict(self.conv)
        if self.type == "slice":
            item["slices"] = self.slices
        return item


def size_arg(value: Any, where: str) -> int:
    """A size >= 0 (0: inferred); ``where`` names the function or layer."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise LayerTypeError(f"{where}: size must be an int; received {value!r}.")
    if value < 0:
        raise LayerConfigError(f"{where}: size must be >= 0 (0: inferred); received {value}.")
    return int(value)


def _projection(fn: str, kind: str, input: Any, size: int, param_attr: Any) -> Projection:
    layer = base.as_layer(input, layer=fn, arg="input")
    attr = attrs_mod.as_param_attr(param_attr, layer=fn, arg="param_attr")
    return Projection(kind, (layer,), size_arg(size, f"{fn}()"), param_attr=attr)


def project(x: Any, w: Any) -> Any:
    """``x @ w`` for dense, sequence or sparse ``x`` (sparse: gather + weighted sum).

    Sparse rows are ``[..., k]`` ids and values (one level of padding per sequence
    level); each row is multiplied on its own, as v2 multiplied its flat rows.
    """
    sparse = x.data if isinstance(x, Seq) else x
    if isinstance(sparse, Sparse):
        return jnp.einsum("...k,...kn->...n", sparse.values, w[sparse.ids])
    return data_of(x) @ w


# projections ----------------------------------------------------------------------
@base.layer_function
def full_matrix_projection(
    input: Layer,
    size: int = 0,
    param_attr: ParamAttr | None = None,
) -> Projection:
    """``out += x W`` with ``W`` of shape ``[input.size, size]`` (dense or sparse ``x``).

    Args:
        input: a layer.
        size: output width (0: the mixed layer's).
        param_attr: for ``W``.

    Returns:
        A projection of width ``size`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> m = paddle.layer.mixed(size=8, input=[paddle.layer.full_matrix_projection(input=x)])
    """
    return _projection("full_matrix_projection", "full_matrix", input, size, param_attr)


@base.layer_function
def trans_full_matrix_projection(
    input: Layer,
    size: int = 0,
    param_attr: ParamAttr | None = None,
) -> Projection:
    """``out += x Wᵀ`` with ``W`` of shape ``[size, input.size]`` (share it with a
    ``full_matrix_projection`` of the opposite direction through ``param_attr``).

    Args:
        input: a dense layer.
        size: output width (0: the mixed layer's).
        param_attr: for ``W``.

    Returns:
        A projection of width ``size`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.trans_full_matrix_projection(input=x, size=8)
    """
    return _projection("trans_full_matrix_projection", "trans_full_matrix", input, size, param_attr)


@base.layer_function
def table_projection(
    input: Layer,
    size: int = 0,
    param_attr: ParamAttr | None = None,
) -> Projection:
    """``out += W[id]``: the row of the ``[vocab, size]`` table for each integer id.

    ``vocab = input.size`` (the range of the ids); an id sequence picks a row per step.
    ``embedding`` is this projection alone in a layer.

    Args:
        input: an integer-id layer (``vocab = input.size``).
        size: row width (0: the mixed layer's).
        param_attr: for the table.

    Returns:
        A projection of width ``size`` for [`mixed`][paddle_lite.layer.mixed]; table ``[input.size,
        size]``.

    Example:
        >>> proj = paddle.layer.table_projection(input=word, size=32)
        >>> m = paddle.layer.mixed(input=proj)
        >>> m.size
        32
    """
    return _projection("table_projection", "table", input, size, param_attr)


@base.layer_function
def identity_projection(
    input: Layer,
    offset: int | None = None,
    size: int | None = None,
) -> Projection:
    """``out += x``, or with ``offset`` the slice ``out += x[offset : offset + size]``.

    Args:
        input: a dense layer.
        offset: None (default) for the whole input, else the first value taken (an
            int >= 0).
        size: the slice width; ignored without ``offset``, default ``input.size -
            offset``. As in v2 a mixed layer's own size (or the size another of its
            projections sets) takes precedence: the slice is then
            ``x[offset : offset + layer size]``.

    Returns:
        A parameterless projection of width ``input.size`` (or ``size``) for
        [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.identity_projection(input=x, offset=2, size=3)
        >>> paddle.layer.mixed(input=proj).size
        3
    """
    fn = "identity_projection"
    layer = base.as_layer(input, layer=fn, arg="input")
    if offset is None:
        return Projection("identity", (layer,))
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LayerTypeError(f"{fn}(): offset must be an int >= 0; received {offset!r}.")
    width = layer.size - offset if size is None else size_arg(size, f"{fn}()")
    if width <= 0 or offset + width > layer.size:
        raise LayerConfigError(
            f"{fn}(): the slice [{offset}, {offset + width}) does not fit the input "
            f"'{layer.name}' of size {layer.size}; expected 0 <= offset < offset + size <= "
            f"{layer.size}."
        )
    return Projection("identity_offset", (layer,), width, offset=offset)


@base.layer_function
def dotmul_projection(input: Layer, param_attr: ParamAttr | None = None) -> Projection:
    """``out += x ⊙ w``: an elementwise product with a learned ``w`` of shape
    ``[1, input.size]``.

    Args:
        input: a dense layer.
        param_attr: a ``Param`` for ``w``.

    Returns:
        A projection of width ``input.size`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.dotmul_projection(input=x)
        >>> paddle.layer.mixed(input=proj).size
        8
    """
    return _projection("dotmul_projection", "dotmul", input, 0, param_attr)


@base.layer_function
def scaling_projection(input: Layer, param_attr: ParamAttr | None = None) -> Projection:
    """``out += w x`` with one learned scalar ``w`` (shape ``[1, 1]``).

    Args:
        input: a dense layer.
        param_attr: a ``Param`` for ``w``.

    Returns:
        A projection of width ``input.size`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.scaling_projection(input=x)
        >>> paddle.layer.mixed(input=proj).size
        8
    """
    return _projection("scaling_projection", "scaling", input, 0, param_attr)


@base.layer_function
def context_projection(
    input: Layer,
    context_len: int,
    context_start: int | None = None,
    padding_attr: ParamAttr | None = None,
) -> Projection:
    """The window of ``context_len`` steps around each step, side by side:
    ``out_t = [x_{t+s}, x_{t+s+1}, ..., x_{t+s+context_len-1}]`` with ``s = context_start``.

    ``context_start`` defaults to ``-(context_len - 1) // 2`` (Python 2 floor: -1 for
    3 and 4, -2 for 5). Positions outside the sequence are zero with
    ``padding_attr=False``; otherwise (the default: v2's decorator turns an unset
    ``padding_attr`` into a zero-initialized one) they are trainable rows of a padding
    parameter ``[before + after, input.size]`` (``before = max(0, -s)`` rows for positions
    ``-before .. -1``, then ``after = max(0, s + context_len - 1)`` rows for positions
    ``len .. len + after - 1``): ``True``/``None`` start it at zero, a ``Param`` sets it.
    For ``[A B C D E F G]`` and ``context_len=3``: ``[0AB ABC BCD CDE DEF EFG FG0]``.

    Args:
        input: a dense sequence layer (a non-sequence counts as one-step sequences).
        context_len: the window length, a positive int.
        context_start: the window's first offset (an int; default above).
        padding_attr: ``False`` (zero padding), ``True``/``None`` (default: trainable,
            starting at zero) or a ``Param``.

    Returns:
        A projection of width ``input.size * context_len`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> m = paddle.layer.mixed(input=paddle.layer.context_projection(input=emb, context_len=3))
    """
    fn = "context_projection"
    layer = base.as_layer(input, layer=fn, arg="input")
    length = base.positive_int(context_len, layer=fn, arg="context_len")
    start = -(length - 1) // 2 if context_start is None else context_start
    if isinstance(start, bool) or not isinstance(start, int):
        raise LayerTypeError(f"{fn}(): context_start must be an int; received {start!r}.")
    padding_attr = attrs_mod.switch(padding_attr)  # v2 compared it with True: 0/1 work
    if padding_attr is False:
        attr = None
    elif padding_attr is None or padding_attr is True:
        attr = attrs_mod.ParamAttr(initial_mean=0.0, initial_std=0.0)
    else:
        attr = attrs_mod.as_param_attr(padding_attr, layer=fn, arg="padding_attr")
    return Projection(
        "context",
        (layer,),
        layer.size * length,
        param_attr=attr,
        context_start=start,
        context_len=length,
    )


def dotmul_operator(
    a: Layer | None = None, b: Layer | None = None, scale: float = 1, **kwargs: Any
) -> Projection:
    """``out += scale * (a ⊙ b)``: the elementwise product of two layers; no parameters.

    Args:
        a, b: dense layers of equal size.
        scale: a number multiplying the product (default 1).
        **kwargs: ``x=`` and ``y=``, the deprecated spellings of ``a`` and ``b`` (they
            warn).

    Returns:
        An operator of width ``a.size`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> op = paddle.layer.dotmul_operator(a=x, b=y, scale=0.5)
        >>> paddle.layer.mixed(input=op).size
        8
    """
    fn = "dotmul_operator"
    unknown = sorted(set(kwargs) - {"x", "y"})
    if unknown:
        raise LayerTypeError(
            f"{fn}() got an unexpected keyword argument '{unknown[0]}'. "
            "Valid arguments: a, b, scale."
        )
    if kwargs:
        warnings.warn(
            f"{fn}: x and y are deprecated; use a and b.",
            DeprecationWarning,
            stacklevel=user_stacklevel(),
        )
    a, b = kwargs.get("x", a), kwargs.get("y", b)
    la = base.as_layer(a, layer=fn, arg="a")
    lb = base.as_layer(b, layer=fn, arg="b")
    if la.size != lb.size:
        raise LayerConfigError(
            f"{fn}(): a and b must have the same size; received "
            f"{la.size} ('{la.name}') and {lb.size} ('{lb.name}')."
        )
    value = base.number(scale, layer=fn, arg="scale")
    return Projection("dotmul_operator", (la, lb), scale=value)
