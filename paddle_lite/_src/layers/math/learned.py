"""Layers with learned weights built on one input: factorization_machine (second-order
feature interactions), row_conv (lookahead convolution over a sequence's next steps),
gated_unit (v2's fc * sigmoid-fc composite) and slice_projection (a mixed-layer input
keeping ranges of an image's channels)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Linear, Sigmoid, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import Projection, dotmul_operator, project
from paddle_lite._src.layers.sequence.reshape import from_outer_steps, outer_steps
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, Sparse, step_mask, with_data


# factorization_machine ---------------------------------------------------------------
def _squared(x: Any) -> Any:
    """``x ⊙ x`` of a dense, sparse or sequence value, in the same representation."""
    if isinstance(x, Sparse):
        return x._replace(values=x.values * x.values)
    if isinstance(x, Seq):
        return x._replace(data=_squared(x.data))
    return x * x


class FactorizationMachineKind(Kind):
    name = "factorization_machine"

    def infer_spec(self, inputs, attrs):
        base.expect(inputs, "input", "values")
        return Spec(1, seq_level=inputs[0].seq_level)

    def param_specs(self, inputs, attrs):
        shape = (inputs[0].size, attrs["factor_size"])
        return [ParamDecl("w0", shape, ParamAttrAt(0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        (x,) = inputs
        v = params["w0"]
        pairs = jnp.square(project(x, v)) - project(_squared(x), v * v)
        return with_data(x, 0.5 * jnp.sum(pairs, axis=-1, keepdims=True))


register_kind(FactorizationMachineKind())


@base.layer_function
def factorization_machine(
    input: Layer,
    factor_size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """The second-order term of a factorization machine:
    ``y = sum_{i<j} <v_i, v_j> x_i x_j``, computed as
    ``0.5 * sum_f ((x V)_f^2 - (x^2 V^2)_f)``.

    Row ``v_i`` of the factor matrix ``V`` (``[input.size, factor_size]``) is the latent
    vector of feature ``i``. Add a first-order ``fc(size=1)`` to get the full model.

    Args:
        input: a dense or sparse layer of size n.
        factor_size: the latent vector size k, a positive int.
        act: activation (default ``Linear``).
        name: the layer name (default ``__factorization_machine_<n>__``).
        param_attr: a ``Param`` for ``V`` (default v2's smart N(0, 1/sqrt(n))).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size 1; ``V`` ``[n, k]``.

    Example:
        >>> fm = paddle.layer.factorization_machine(input=x, factor_size=4)
        >>> fm.size, fm.params[0].shape
        (1, (8, 4))
    """
    name = base.layer_name(name, "factorization_machine")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "factor_size": base.positive_int(factor_size, layer=name, arg="factor_size"),
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build(
        "factorization_machine",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
    )


# row_conv ----------------------------------------------------------------------------
def _lookahead(x: Any, w: Any) -> Any:
    """``y_t = sum_k w_k ⊙ x_{t+k}`` over ``[B, T, D]`` whose padding steps are zero."""
    steps = x.shape[1]
    padded = jnp.pad(x, ((0, 0), (0, w.shape[0] - 1), (0, 0)))
    return sum(w[k] * padded[:, k : k + steps] for k in range(w.shape[0]))


def _nested_lookahead(seq: Seq, w: Any) -> Any:
    """v2 convolves a nested sequence over its outer sequence: the sub-sequences of a
    sample, one after the other."""
    plain, slots = outer_steps(seq)
    return from_outer_steps(_lookahead(plain.data, w), slots, seq)


class RowConvKind(Kind):
    name = "row_conv"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        (s,) = inputs
        if not s.seq_level:
            raise LayerConfigError(
                f"input must be a sequence (the lookahead runs over its steps); received a "
                f"non-sequence of size {s.size}."
            )
        return Spec(s.size, seq_level=s.seq_level)

    def param_specs(self, inputs, attrs):
        shape = (attrs["context_len"], inputs[0].size)
        return [ParamDecl("w0", shape, ParamAttrAt(0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        (seq,) = inputs
        mask = step_mask(seq)[..., None]
        seq = seq._replace(data=jnp.where(mask, seq.data, 0.0))
        if seq.sub_lengths is not None:
            out = _nested_lookahead(seq, params["w0"])
        else:
            out = _lookahead(seq.data, params["w0"])
        return seq._replace(data=jnp.where(mask, out, 0.0))


register_kind(RowConvKind())


@base.layer_function
def row_conv(
    input: Layer,
    context_len: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Lookahead (row) convolution over a sequence (Deep Speech 2):
    ``y_t = act(sum_{k=0}^{K-1} w_k ⊙ x_{t+k})``, ``K = context_len``.

    Each step sees itself and the next ``K - 1`` steps of its own sequence; steps past
    the sequence's end count as zero. Each feature has its own weights: ``W`` is
    ``[K, input.size]``.

    Args:
        input: a dense sequence layer.
        context_len: K, the lookahead steps plus one (a positive int).
        act: activation (default ``Linear``).
        name: the layer name (default ``__row_conv_layer_<n>__``).
        param_attr: a ``Param`` for ``W`` (default v2's smart N(0, 1/sqrt(K))).
        layer_attr: ``Extra(drop_rate=...)``.

    Returns:
        A sequence of the input's size; ``W`` ``[context_len, input.size]``.

    Example:
        >>> ahead = paddle.layer.row_conv(input=emb, context_len=3)
        >>> ahead.size, ahead.params[0].shape
        (16, (3, 16))
    """
    name = base.layer_name(name, "row_conv_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "context_len": base.positive_int(context_len, layer=name, arg="context_len"),
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_ONLY),
    }
    return base.build(
        "row_conv",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
    )


# gated_unit --------------------------------------------------------------------------
@base.layer_function
def gated_unit(
    input: Layer,
    size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    gate_attr: ExtraAttr | None = None,
    gate_param_attr: ParamAttr | None = None,
    gate_bias_attr: ParamAttr | bool | None = True,
    inproj_attr: ExtraAttr | None = None,
    inproj_param_attr: ParamAttr | None = None,
    inproj_bias_attr: ParamAttr | bool | None = True,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A gated linear unit: ``y = act(x W + b) ⊙ sigmoid(x V + c)``.

    Built as v2 builds it, from three layers: ``<name>_input_proj`` (an fc of ``act``),
    ``<name>_gate`` (an fc of ``Sigmoid``) and ``<name>_gated_act`` (a mixed layer
    with their ``dotmul_operator``), which is returned. Their parameters are
    ``_<name>_input_proj.w0`` / ``.wbias`` and ``_<name>_gate.w0`` / ``.wbias``.

    Args:
        input: a dense layer (one input).
        size: the output width.
        act: activation of the projection (default ``Linear``).
        name: the base name (default ``__gated_unit_layer_<n>__``).
        gate_attr, inproj_attr: ``Extra`` of the gate and the projection fc.
        gate_param_attr, inproj_param_attr: ``Param`` of their weights.
        gate_bias_attr, inproj_bias_attr: their biases (default ``True``: zero bias).
        layer_attr: ``Extra`` of the product layer.

    Returns:
        The product layer, of size ``size``.

    Example:
        >>> glu = paddle.layer.gated_unit(input=x, size=6)
        >>> glu.name, glu.size
        ('__gated_unit_layer_0___gated_act', 6)
    """
    name = base.layer_name(name, "gated_unit_layer")
    if isinstance(input, (list, tuple)):
        raise LayerTypeError(f"layer '{name}': the gated unit takes one input; received a list.")
    proj = fc(
        input=input,
        name=f"{name}_input_proj",
        size=size,
        act=Linear() if act is None else act,
        layer_attr=inproj_attr,
        param_attr=inproj_param_attr,
        bias_attr=inproj_bias_attr,
    )
    gate = fc(
        input=input,
        name=f"{name}_gate",
        size=size,
        act=Sigmoid(),
        layer_attr=gate_attr,
        param_attr=gate_param_attr,
        bias_attr=gate_bias_attr,
    )
    return mixed(
        name=f"{name}_gated_act", input=dotmul_operator(a=proj, b=gate), layer_attr=layer_attr
    )


# slice_projection --------------------------------------------------------------------
def _slices(slices: Any, fn: str) -> tuple[tuple[int, int], ...]:
    """v2's checks: at least one ``(start, end)``, ordered, not overlapping."""
    if not isinstance(slices, (list, tuple)) or not slices:
        raise LayerConfigError(f"{fn}(): slices must be a non-empty list of (start, end).")
    out, start = [], 0
    for i, pair in enumerate(slices):
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2
        if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
            raise LayerTypeError(f"{fn}(): slices[{i}] must be (start, end) ints; got {pair!r}.")
        if pair[0] < start or pair[1] < pair[0]:
            raise LayerConfigError(
                f"{fn}(): slices[{i}] = {tuple(pair)} must start at or after the previous "
                f"slice's end ({start}) and end at or after its start."
            )
        out.append((pair[0], pair[1]))
        start = pair[1]
    return tuple(out)


def slice_projection(input: Layer, slices: Sequence[tuple[int, int]]) -> Projection:
    """Keep ranges of an image's channels, side by side:
    ``out = [x[s_0:e_0], x[s_1:e_1], ...]`` (a projection for ``mixed``).

    As in v2, ``slices`` are channel ranges of an image input (a conv output): slice
    ``(s, e)`` keeps channels ``s .. e-1``, i.e. values ``s*H*W .. e*H*W - 1``. For an
    input that is not an image the ranges are value offsets. No parameters.

    Args:
        input: a dense layer, normally an image (``img_conv`` output).
        slices: ``[(start, end), ...]``, ordered and not overlapping.

    Returns:
        A projection of width ``sum (e - s) * H * W`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.slice_projection(input=conv, slices=[(0, 1), (2, 4)])
        >>> paddle.layer.mixed(input=proj).size
        192
    """
    fn = "slice_projection"
    layer = base.as_layer(input, layer=fn, arg="input")
    ranges = _slices(slices, fn)
    channels = layer.num_filters or layer.size
    unit = layer.size // channels
    if ranges[-1][1] > channels:
        what = "channels" if layer.num_filters else "values"
        raise LayerConfigError(
            f"{fn}(): the last slice ends at {ranges[-1][1]}, past the input's {channels} "
            f"{what} ('{layer.name}')."
        )
    values = tuple((s * unit, e * unit) for s, e in ranges)
    width = sum(e - s for s, e in values)
    return Projection("slice", (layer,), width, slices=values)
