"""Math layers: cos_sim, max_id, slope_intercept, scaling, interpolation, power,
trans, repeat. Arithmetic on layers and the unary ops are in ``arith``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.math.pairs import valid_rows
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


def device_only(layer_attr: Any, name: str) -> dict[str, Any]:
    """v2 math layers support no ExtraAttr field but ``device``."""
    return base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)


def single_input(kind: str, prefix: str, input: Any, name: Any, layer_attr: Any) -> Layer:
    """A layer of kind ``kind`` over one input, with no settings but ``device``."""
    name = base.layer_name(name, prefix)
    (inp,) = base.as_layers(input, layer=name)
    return base.build(kind, name=name, inputs=[inp], attrs=device_only(layer_attr, name))


def _scalar_weight(inputs) -> None:
    base.expect(inputs)
    if inputs[0].size != 1:
        raise LayerConfigError(f"weight must have size 1; received size {inputs[0].size}.")
    base.same_seq_level(inputs, "weight and input")


# cos_sim -------------------------------------------------------------------------
class CosSimKind(Kind):
    name = "cos"
    v2 = V2Layer(type=lambda n: "cos_vm" if n.attrs.get("size", 1) > 1 else "cos")
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        a, b = inputs
        if b.size != a.size * attrs["size"]:
            raise LayerConfigError(
                f"b must have size a.size * size = {a.size} * {attrs['size']} = "
                f"{a.size * attrs['size']}; received b.size {b.size}."
            )
        return Spec(attrs["size"], seq_level=base.same_seq_level(inputs, "cos_sim inputs"))

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = data_of(inputs[0]), data_of(inputs[1])
        b = b.reshape(*b.shape[:-1], attrs["size"], a.shape[-1])
        a = a[..., None, :]
        dot = jnp.sum(a * b, axis=-1)
        squares = jnp.sum(a * a, axis=-1), jnp.sum(b * b, axis=-1)
        valid = valid_rows(inputs[0])
        if valid is not None:  # padding steps: no 0/0, whose gradient is NaN
            squares = tuple(jnp.where(valid, sq, 1.0) for sq in squares)
        cos = attrs["scale"] * dot / (jnp.sqrt(squares[0]) * jnp.sqrt(squares[1]))
        return with_data(inputs[0], cos if valid is None else jnp.where(valid, cos, 0.0))


register_kind(CosSimKind())


@base.layer_function
def cos_sim(
    a: Layer,
    b: Layer,
    scale: float = 1,
    size: int = 1,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Scaled cosine similarity: ``scale * a·b / (|a| |b|)``.

    With ``size = N > 1``, ``b`` holds N vectors of ``a.size`` and the output is the N
    cosines of ``a`` with each of them. A zero vector has no cosine: v2 stopped
    (``CHECK`` in ``CosSimForward``), here the result is NaN. The padding steps of a
    sequence give 0 (and no gradient).

    Args:
        a, b: dense layers (or sequences of one level); ``b.size == a.size * size``.
        scale: factor on the cosine.
        size: number of cosines.
        name: the layer name (default ``__cos_sim_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``size``.

    Example:
        >>> sim = paddle.layer.cos_sim(a=x, b=y)
        >>> docs = paddle.layer.fc(input=y, size=3 * 8)
        >>> sims = paddle.layer.cos_sim(a=x, b=docs, size=3, scale=5)
        >>> sims.size
        3
    """
    name = base.layer_name(name, "cos_sim")
    inputs = [base.as_layer(a, layer=name, arg="a"), base.as_layer(b, layer=name, arg="b")]
    attrs = {
        "scale": base.number(scale, layer=name, arg="scale"),
        "size": base.positive_int(size, layer=name, arg="size"),
        **device_only(layer_attr, name),
    }
    return base.build("cos", name=name, inputs=inputs, attrs=attrs)


# max_id --------------------------------------------------------------------------
def _max_id_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    return max_id(input=ins[0], name=cfg["name"])


class MaxIdKind(Kind):
    name = "maxid"
    per_row = True
    reports_input_max = True
    v2 = V2Layer(rebuild=_max_id_from_v2)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        return Spec(inputs[0].size, dtype="int32", seq_level=inputs[0].seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        ids = jnp.argmax(data_of(inputs[0]), axis=-1).astype(jnp.int32)
        return with_data(inputs[0], ids)


register_kind(MaxIdKind())


@base.layer_function
def max_id(input: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None) -> Layer:
    """The index of the largest value of each row: ``argmax_j x_j`` (int32 ids).

    As in v2 the layer size is the input size: it is the range of the ids, so an
    ``embedding`` of the ids gets a ``[input.size, dim]`` table.

    Args:
        input: a dense layer (or sequence), e.g. a softmax output.
        name: the layer name (default ``__maxid_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An integer-id layer (one id per sample or step) of range ``input.size``.

    Example:
        >>> pred = paddle.layer.max_id(input=prob)
    """
    return single_input("maxid", "maxid_layer", input, name, layer_attr)


# elementwise: slope_intercept, scaling, interpolation, power --------------------
def _slope_intercept_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    return slope_intercept(
        input=ins[0], name=cfg["name"], slope=cfg.get("slope"), intercept=cfg.get("intercept")
    )


class SlopeInterceptKind(Kind):
    name = "slope_intercept"
    per_row = True
    v2 = V2Layer(rebuild=_slope_intercept_from_v2)
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        return Spec(inputs[0].size, seq_level=inputs[0].seq_level, image=inputs[0].image)

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0]
        return with_data(x, attrs["slope"] * data_of(x) + attrs["intercept"])


class ScalingKind(Kind):
    name = "scaling"
    per_row = True
    host = HostChecks(aligns_rows=True, lengths_of=1)  # the scaled input's (weight first)

    def infer_spec(self, inputs, attrs):
        _scalar_weight(inputs)
        return Spec(inputs[1].size, seq_level=inputs[1].seq_level, image=inputs[1].image)

    def apply(self, params, inputs, attrs, *, key, mode):
        w, x = inputs
        return with_data(x, data_of(w) * data_of(x))


class PowerKind(ScalingKind):
    name = "power"
    per_row = False  # stays in a recurrent group's loop (``recurrent.tail``)

    def apply(self, params, inputs, attrs, *, key, mode):
        w, x = inputs
        radix, exponent = data_of(x), data_of(w)
        valid = valid_rows(x)
        if valid is None:
            return jnp.power(radix, exponent)
        # padding steps: 1 ** 1, not 0 ** 0, whose gradients (0 * inf, log 0) are NaN
        powered = jnp.power(jnp.where(valid, radix, 1.0), jnp.where(valid, exponent, 1.0))
        return with_data(x, jnp.where(valid, powered, 0.0))


class InterpolationKind(Kind):
    name = "interpolation"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        _scalar_weight(inputs)
        if inputs[1].size != inputs[2].size:
            raise LayerConfigError(
                f"input[0] and input[1] must have the same size; received "
                f"{inputs[1].size} and {inputs[2].size}."
            )
        return Spec(inputs[1].size, seq_level=inputs[1].seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        w, x1, x2 = (data_of(v) for v in inputs)
        return with_data(inputs[1], w * x1 + (1.0 - w) * x2)


register_kind(SlopeInterceptKind())
register_kind(ScalingKind())
register_kind(PowerKind())
register_kind(InterpolationKind())


@base.layer_function
def slope_intercept(
    input: Layer,
    name: str | None = None,
    slope: float = 1.0,
    intercept: float = 0.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """``y = slope * x + intercept``, elementwise.

    Args:
        input: a dense layer (or sequence).
        name: the layer name (default ``__slope_intercept_layer_<n>__``).
        slope: the factor.
        intercept: the offset.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size.

    Example:
        >>> y = paddle.layer.slope_intercept(input=x, slope=2.0, intercept=1.0)
    """
    name = base.layer_name(name, "slope_intercept_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "slope": base.number(slope, layer=name, arg="slope"),
        "intercept": base.number(intercept, layer=name, arg="intercept"),
        **device_only(layer_attr, name),
    }
    return base.build("slope_intercept", name=name, inputs=[inp], attrs=attrs)


def _weighted(
    kind: str,
    prefix: str,
    input: Any,
    weight: Any,
    name: Any,
    layer_attr: Any,
) -> Layer:
    name = base.layer_name(name, prefix)
    (inp,) = base.as_layers(input, layer=name)
    w = base.as_layer(weight, layer=name, arg="weight")
    return base.build(kind, name=name, inputs=[w, inp], attrs=device_only(layer_attr, name))


@base.layer_function
def scaling(
    input: Layer,
    weight: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """``y = w * x``: each row of ``input`` times the size-1 ``weight`` of that row.

    Args:
        input: a dense layer.
        weight: a dense layer of size 1 (of the input's sequence level).
        name: the layer name (default ``__scaling_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size.

    Example:
        >>> scaled = paddle.layer.scaling(input=x, weight=w)
    """
    return _weighted("scaling", "scaling_layer", input, weight, name, layer_attr)


@base.layer_function
def power(
    input: Layer,
    weight: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """``y = x ** w`` elementwise, with the size-1 ``weight`` of each row as exponent.

    Args:
        input: a dense layer.
        weight: a dense layer of size 1 (of the input's sequence level).
        name: the layer name (default ``__power_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size.

    Example:
        >>> powered = paddle.layer.power(input=x, weight=w)
    """
    return _weighted("power", "power_layer", input, weight, name, layer_attr)


@base.layer_function
def interpolation(
    input: Sequence[Layer],
    weight: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """``y = w * x1 + (1 - w) * x2`` for ``input = [x1, x2]`` and a size-1 ``weight``.

    Args:
        input: ``[x1, x2]``, dense layers of equal size.
        weight: a layer of size 1 (e.g. a Sigmoid output), of the inputs' sequence
            level.
        name: the layer name (default ``__interpolation_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the size of ``x1`` (== size of ``x2``).

    Example:
        >>> mix = paddle.layer.interpolation(input=[x, y], weight=w)
        >>> mix.size
        8
    """
    name = base.layer_name(name, "interpolation_layer")
    pair = base.as_layers(input, layer=name)
    if len(pair) != 2:
        raise LayerConfigError(
            f"layer '{name}': input must be a list of 2 layers [x1, x2]; received {len(pair)}."
        )
    w = base.as_layer(weight, layer=name, arg="weight")
    return base.build(
        "interpolation", name=name, inputs=[w, *pair], attrs=device_only(layer_attr, name)
    )
