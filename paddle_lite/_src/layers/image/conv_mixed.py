"""Convolutions inside a mixed layer: ``conv_projection`` and ``conv_operator``.

``conv_projection`` convolves its input with a learned filter (the mixed layer's
``w<i>``, laid out as ``img_conv``'s: ``[F, C/groups, ky, kx]``, or ``[C, F/groups,
ky, kx]`` transposed); ``conv_operator`` convolves each sample's image with that
sample's own filter, read from a second layer of size ``F*C*ky*kx`` (no parameter).
Both use ``img_conv``'s geometry (caffe mode, ``trans`` for the transposed form) and
produce ``F x outH x outW`` values, so a mixed layer of them has that size. A mixed
layer whose first input is a ``conv_projection`` has v2's shared bias: one value per
output channel, ``[1, F]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.conv import conv_output_size, convolve, convolve_transposed
from paddle_lite._src.layers.image.geometry import input_image, int_at_least, pair
from paddle_lite._src.layers.projections import Projection
from paddle_lite._src.specs import InitSpec, Spec

CONV_TYPES = ("conv", "convt", "conv_operator")


def _geometry(
    layer,
    fn,
    filter_size,
    num_filters,
    num_channels,
    stride,
    padding,
    filter_size_y,
    stride_y,
    padding_y,
    groups,
    trans,
):
    """The conv settings of a projection or operator, checked; ``size`` is its output."""
    image = input_image(layer.spec, num_channels, layer=fn)
    conv = {
        "image": image,
        "num_filters": base.positive_int(num_filters, layer=fn, arg="num_filters"),
        "filter_size": pair(filter_size, filter_size_y, 1, layer=fn, arg="filter_size"),
        "stride": pair(stride, stride_y, 1, layer=fn, arg="stride"),
        "padding": pair(padding, padding_y, 0, layer=fn, arg="padding"),
        "dilation": (1, 1),
        "groups": int_at_least(groups, 1, layer=fn, arg="groups"),
        "trans": bool(trans),
    }
    if image[0] % conv["groups"] or conv["num_filters"] % conv["groups"]:
        raise LayerConfigError(
            f"{fn}(): groups={conv['groups']} must divide both the input channels "
            f"({image[0]}) and num_filters ({conv['num_filters']})."
        )
    out = [
        conv_output_size(n, k, s, p, 1, conv["trans"])
        for n, k, s, p in zip(
            image[1:], conv["filter_size"], conv["stride"], conv["padding"], strict=True
        )
    ]
    if min(out) < 1:
        raise LayerConfigError(
            f"{fn}(): the output image would be {out[0]}x{out[1]} for an input of "
            f"{image[1]}x{image[2]}; expected at least 1x1."
        )
    conv["out"] = tuple(out)
    return conv, conv["num_filters"] * out[0] * out[1]


@base.layer_function
def conv_projection(
    input: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    num_channels: int | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    filter_size_y: int | None = None,
    stride_y: int | None = None,
    padding_y: int | None = None,
    groups: int = 1,
    param_attr: ParamAttr | None = None,
    trans: bool = False,
) -> Projection:
    """A convolution with a learned filter, as an input of ``mixed`` (or ``concat``).

    ``out[f] = sum_c W[f, c] * in[c]`` (2-D cross-correlation, caffe-mode output size
    ``1 + (in + 2p - k) // s``; ``trans=True`` gives the transposed convolution).

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        filter_size, stride, padding: an int or an ``(x, y)`` pair.
        filter_size_y, stride_y, padding_y: the height setting, when it differs.
        num_filters: output channels ``F``.
        num_channels: input channels ``C`` (default: the input image's channels).
        groups: channel groups.
        param_attr: the filter's ``Param``; with no init set, N(0, sqrt(2 / (k_x**2 *
            C))) as v2 (``k_x`` the x filter size).
        trans: transposed convolution.

    Returns:
        A projection of width ``F * outH * outW`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> proj = paddle.layer.conv_projection(input=img, filter_size=3, num_filters=8,
        ...                                     num_channels=1, padding=1)
        >>> m = paddle.layer.mixed(input=proj, bias_attr=True)
    """
    fn = "conv_projection"
    layer = base.as_layer(input, layer=fn, arg="input")
    conv, size = _geometry(
        layer,
        fn,
        filter_size,
        num_filters,
        num_channels,
        stride,
        padding,
        filter_size_y,
        stride_y,
        padding_y,
        groups,
        trans,
    )
    attr = attrs_mod.as_param_attr(param_attr, layer=fn, arg="param_attr")
    kind = "convt" if conv["trans"] else "conv"
    return Projection(kind, (layer,), size, param_attr=attr, conv=conv)


@base.layer_function
def conv_operator(
    img: Layer,
    filter: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    num_channels: int | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    filter_size_y: int | None = None,
    stride_y: int | None = None,
    padding_y: int | None = None,
    trans: bool = False,
) -> Projection:
    """Convolve each sample's image with that sample's own filter (no parameter).

    ``out_b[f] = sum_c K_b[f, c] * img_b[c]`` (2-D cross-correlation, caffe-mode output
    size ``1 + (in + 2p - k) // s``), where the kernels ``K_b`` are sample ``b``'s
    values of ``filter``: ``F * C * ky * kx`` of them, laid out ``[F, C, ky, kx]``
    (``[C, F, ky, kx]`` with ``trans=True``, the transposed convolution).

    Args:
        img: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        filter: a dense layer of size ``num_filters * C * ky * kx``.
        filter_size, stride, padding: an int or an ``(x, y)`` pair.
        filter_size_y, stride_y, padding_y: the height setting, when it differs.
        num_filters: output channels ``F``.
        num_channels: input channels ``C`` (default: the image's channels).
        trans: transposed convolution.

    Returns:
        An operator of width ``F * outH * outW`` for [`mixed`][paddle_lite.layer.mixed].

    Example:
        >>> kernels = paddle.layer.fc(input=x, size=4 * 1 * 3 * 3,
        ...                           act=paddle.activation.Linear())
        >>> op = paddle.layer.conv_operator(img=img, filter=kernels, filter_size=3,
        ...                                 num_filters=4, num_channels=1, padding=1)
        >>> paddle.layer.mixed(input=op).size
        256
    """
    fn = "conv_operator"
    image = base.as_layer(img, layer=fn, arg="img")
    kernels = base.as_layer(filter, layer=fn, arg="filter")
    conv, size = _geometry(
        image,
        fn,
        filter_size,
        num_filters,
        num_channels,
        stride,
        padding,
        filter_size_y,
        stride_y,
        padding_y,
        1,
        trans,
    )
    want = conv["num_filters"] * conv["image"][0] * math.prod(conv["filter_size"])
    if kernels.size != want:
        raise LayerConfigError(
            f"{fn}(): filter '{kernels.name}' has size {kernels.size}; expected num_filters * "
            f"channels * filter_size_y * filter_size = {want}."
        )
    return Projection("conv_operator", (image, kernels), size, conv=conv)


# the mixed layer's side ---------------------------------------------------------------
def check_conv_input(i: int, item: dict[str, Any], specs: list[Spec]) -> None:
    """Dense, non-sequence inputs whose sizes still match the settings."""
    conv = item["conv"]
    for spec in specs:
        if spec.dtype != "float32" or spec.seq_level:
            raise LayerConfigError(
                f"projection {i} ({item['type']}) needs dense non-sequence values; received "
                f"{spec.dtype} with sequence level {spec.seq_level}."
            )
    if specs[0].size != math.prod(conv["image"]):
        raise LayerConfigError(
            f"projection {i} ({item['type']}): input size {specs[0].size} does not hold the "
            f"image (C, H, W) = {conv['image']}."
        )


def weight_decl(item: dict[str, Any]) -> tuple[tuple[int, ...], InitSpec] | None:
    """The filter's shape and default init, or None for the operator."""
    if item["type"] == "conv_operator":
        return None
    conv = item["conv"]
    c, f, g = conv["image"][0], conv["num_filters"], conv["groups"]
    ky, kx = conv["filter_size"]
    shape = (c, f // g, ky, kx) if item["type"] == "convt" else (f, c // g, ky, kx)
    return shape, InitSpec("gaussian", 0.0, math.sqrt(2.0 / (kx * kx * c)))


def conv_term(item: dict[str, Any], w: Any, xs: list[Any]) -> Any:
    """The ``[B, F*outH*outW]`` output of a conv projection or operator."""
    conv = item["conv"]
    x = xs[0].reshape(-1, *conv["image"])
    fn = convolve_transposed if conv["trans"] else convolve
    if item["type"] != "conv_operator":
        y = fn(x, w, conv)
    else:
        c, f = conv["image"][0], conv["num_filters"]
        shape = (c, f) if conv["trans"] else (f, c)
        kernels = xs[1].reshape(-1, *shape, *conv["filter_size"])
        y = jax.vmap(lambda xi, wi: fn(xi[None], wi, conv)[0])(x, kernels)
    return y.reshape(y.shape[0], -1)


def channel_bias(out: Any, bias: Any, items: list[dict[str, Any]]) -> Any:
    """Add v2's shared conv bias: one value per output channel of each conv block."""
    blocks, start = [], 0
    for item in items:
        f, (oy, ox) = item["conv"]["num_filters"], item["conv"]["out"]
        blocks.append(jnp.repeat(bias[start : start + f], oy * ox))
        start += f
    if len(blocks) == 1 or out.shape[-1] == sum(b.shape[0] for b in blocks):
        return out + jnp.concatenate(blocks)
    raise LayerConfigError("a shared conv bias needs one conv projection per output block.")
