"""Elementwise and per-row layers of one input: row_l2_norm, clip, scale_shift (a
learned ``w x + b``) and prelu (a relu with learned negative slopes)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.math.pairs import valid_rows
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


def _same_spec(inputs) -> Spec:
    base.expect(inputs)
    (s,) = inputs
    return Spec(s.size, seq_level=s.seq_level, image=s.image)


# row_l2_norm -------------------------------------------------------------------------
class RowL2NormKind(Kind):
    name = "row_l2_norm"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        return _same_spec(inputs)

    def apply(self, params, inputs, attrs, *, key, mode):
        x = data_of(inputs[0])
        squared = jnp.sum(x * x, axis=-1, keepdims=True)
        valid = valid_rows(inputs[0])
        if valid is not None:  # padding steps: no 0/0
            squared = jnp.where(valid, squared, 1.0)
        return with_data(inputs[0], x / jnp.sqrt(squared))


register_kind(RowL2NormKind())


@base.layer_function
def row_l2_norm(
    input: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Divide each row by its L2 norm: ``y_j = x_j / sqrt(sum_k x_k^2)``.

    As in v2 a zero row has no norm (the result is NaN).

    Args:
        input: a dense layer (or sequence: each step is a row).
        name: the layer name (default ``__row_l2_norm_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size; no parameters.

    Example:
        >>> unit = paddle.layer.row_l2_norm(input=x)
        >>> unit.size
        8
    """
    name = base.layer_name(name, "row_l2_norm_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    return base.build("row_l2_norm", name=name, inputs=[inp], attrs=attrs)


# clip --------------------------------------------------------------------------------
class ClipKind(Kind):
    name = "clip"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        if not attrs["min"] < attrs["max"]:
            raise LayerConfigError(
                f"min must be less than max; received min {attrs['min']:g}, max {attrs['max']:g}."
            )
        return _same_spec(inputs)

    def apply(self, params, inputs, attrs, *, key, mode):
        x = data_of(inputs[0])
        low, high = attrs["min"], attrs["max"]
        inside = (x >= low) & (x <= high)  # v2's gradient: 1 inside [min, max], bounds too
        clipped = jnp.clip(jax.lax.stop_gradient(x), low, high)
        return with_data(inputs[0], jnp.where(inside, x, clipped))


register_kind(ClipKind())


@base.layer_function
def clip(input: Layer, min: float, max: float, name: str | None = None) -> Layer:
    """Clip every value into ``[min, max]``: ``y = min(max(x, min), max)``.

    The gradient passes where ``min <= x <= max`` and is 0 elsewhere (v2's).

    Args:
        input: a dense layer.
        min, max: the bounds, numbers with ``min < max``.
        name: the layer name (default ``__clip_<n>__``).

    Returns:
        A layer of the input's size; no parameters.

    Example:
        >>> c = paddle.layer.clip(input=x, min=-1.0, max=1.0)
        >>> c.size
        8
    """
    name = base.layer_name(name, "clip")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "min": base.number(min, layer=name, arg="min"),
        "max": base.number(max, layer=name, arg="max"),
    }
    return base.build("clip", name=name, inputs=[inp], attrs=attrs)


# scale_shift -------------------------------------------------------------------------
class ScaleShiftKind(Kind):
    name = "scale_shift"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        return _same_spec(inputs)

    def param_specs(self, inputs, attrs):
        decls = [ParamDecl("w0", (1, 1), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, 1), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        out = params["w0"][0, 0] * data_of(inputs[0])
        if attrs["bias"]:
            out = out + params["wbias"][0, 0]
        return with_data(inputs[0], out)


register_kind(ScaleShiftKind())


@base.layer_function
def scale_shift(
    input: Layer,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
) -> Layer:
    """``y = w x + b`` elementwise, with one learned scalar ``w`` and one learned ``b``.

    Like ``slope_intercept``, but ``w`` and ``b`` are trained.

    Args:
        input: a dense layer.
        name: the layer name (default ``__scale_shift_<n>__``).
        param_attr: a ``Param`` for ``w`` (``[1, 1]``, v2's smart init N(0, 1)).
        bias_attr: ``None``/``True`` a zero ``b`` (``[1, 1]``), ``False`` none, or a ``Param``.

    Returns:
        A layer of the input's size.

    Example:
        >>> s = paddle.layer.scale_shift(input=x, bias_attr=False)
        >>> [p.shape for p in s.params]
        [(1, 1)]
    """
    name = base.layer_name(name, "scale_shift")
    (inp,) = base.as_layers(input, layer=name)
    return base.build(
        "scale_shift",
        name=name,
        inputs=[inp],
        attrs={},
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


# prelu -------------------------------------------------------------------------------
class PreluKind(Kind):
    name = "prelu"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        spec = _same_spec(inputs)
        if spec.size % attrs["partial_sum"]:
            raise LayerConfigError(
                f"partial_sum {attrs['partial_sum']} must divide the input size {spec.size}."
            )
        return spec

    def param_specs(self, inputs, attrs):
        slopes = inputs[0].size // attrs["partial_sum"]
        # the function passes v2's default (all 0.25); a Param without init is smart
        return [ParamDecl("w0", (1, slopes), ParamAttrAt(0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        x = data_of(inputs[0])
        slopes = jnp.repeat(params["w0"][0], attrs["partial_sum"])
        return with_data(inputs[0], jnp.where(x > 0, x, x * slopes))


register_kind(PreluKind())


def _partial_sum(inp, partial_sum, channel_shared, num_channels, name: str) -> int:
    """v2's rule: ``channel_shared`` (when given) overrides ``partial_sum``."""
    if channel_shared is None:
        return base.positive_int(partial_sum, layer=name, arg="partial_sum")
    channel_shared = base.flag(channel_shared, layer=name, arg="channel_shared")
    if not inp.height or not inp.width:
        raise LayerConfigError(
            f"layer '{name}': channel_shared needs an image input (height and width set); "
            f"'{inp.name}' has none."
        )
    pixels = inp.height * inp.width
    return pixels * num_channels if channel_shared else pixels


@base.layer_function
def prelu(
    input: Layer,
    name: str | None = None,
    partial_sum: int = 1,
    channel_shared: bool | None = None,
    num_channels: int | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Parametric relu: ``y_i = x_i`` if ``x_i > 0``, else ``a_{i // partial_sum} x_i``.

    Each group of ``partial_sum`` consecutive values shares one learned slope ``a``:
    ``partial_sum=1`` one slope per value; the pixels of a channel (``H*W``) one per
    channel; the layer size one for all. ``channel_shared`` (when not None) sets it
    from the image: ``True`` gives ``H*W*num_channels``, ``False`` gives ``H*W``.

    Args:
        input: a dense layer; an image when ``channel_shared`` is given.
        name: the layer name (default ``__prelu_layer_<n>__``).
        partial_sum: values per slope; it must divide the input size.
        channel_shared: None, or a bool as above.
        num_channels: the input's channels (default: the input image's, as v2 needs).
        param_attr: a ``Param`` for the slopes (default: all 0.25, v2's).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size (and image); slopes ``[1, size / partial_sum]``.

    Example:
        >>> act = paddle.layer.prelu(input=conv, channel_shared=False)
        >>> act.params[0].shape
        (1, 4)
    """
    name = base.layer_name(name, "prelu_layer")
    (inp,) = base.as_layers(input, layer=name)
    if num_channels is None:
        if inp.num_filters is None:
            raise LayerConfigError(
                f"layer '{name}': the input's channels cannot be detected ('{inp.name}' is not "
                "an image); pass num_channels=."
            )
        num_channels = inp.num_filters
    num_channels = base.positive_int(num_channels, layer=name, arg="num_channels")
    attrs = {
        "partial_sum": _partial_sum(inp, partial_sum, channel_shared, num_channels, name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    if param_attr is None:
        param_attr = attrs_mod.ParamAttr(initial_mean=0.25, initial_std=0.0)
    return base.build(
        "prelu",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
    )
