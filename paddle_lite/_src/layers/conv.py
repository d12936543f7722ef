"""Image layers: img_conv, img_pool, maxout, pad.

Images travel flat, ``[batch, C*H*W]`` in NCHW order; each kind reshapes to
``[batch, C, H, W]`` with the input geometry resolved when the layer is built
(``attrs["image"]``) and flattens its output back. Per-axis settings are stored
``(y, x)``, i.e. (height, width).
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import poolings
from paddle_lite._src.activations import Relu, as_activation
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import InitSpec, Spec
from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
from paddle_lite._src.layers import _base

CONV_TYPES = (None, "conv", "exconv", "cudnn_conv")
CONVT_TYPES = (None, "convt", "exconvt", "cudnn_convt")


# geometry helpers --------------------------------------------------------------------
def int_at_least(value: Any, minimum: int, *, layer: str, arg: str) -> int:
    """``value`` as an int ``>= minimum``; a typed error naming ``arg`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LayerTypeError(f"layer '{layer}': {arg} must be an int; received {value!r}.")
    if value < minimum:
        raise LayerConfigError(f"layer '{layer}': {arg} must be >= {minimum}; received {value}.")
    return int(value)


def pair(value: Any, value_y: Any, minimum: int, *, layer: str, arg: str) -> tuple[int, int]:
    """``(y, x)`` from v2's ``arg`` (an int or an ``(x, y)`` pair) and ``arg_y``."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2 or value_y is not None:
            raise LayerConfigError(
                f"layer '{layer}': {arg} must be an int or an (x, y) pair, and a pair excludes "
                f"{arg}_y; received {arg}={value!r}, {arg}_y={value_y!r}."
            )
        value, value_y = value
    x = int_at_least(value, minimum, layer=layer, arg=arg)
    y = x if value_y is None else int_at_least(value_y, minimum, layer=layer, arg=f"{arg}_y")
    return (y, x)


def plain_dense(spec: Spec, *, layer: str) -> None:
    """Refuse id, sparse and sequence inputs: the image layers take dense per-sample values."""
    if spec.dtype != "float32" or spec.seq_level != 0:
        raise LayerConfigError(
            f"layer '{layer}': input must be a dense non-sequence value; received dtype "
            f"{spec.dtype} with sequence level {spec.seq_level}."
        )


def input_image(spec: Spec, num_channels: Any, *, layer: str) -> tuple[int, int, int]:
    """``(C, H, W)`` of an input: its image spec, or a square image of ``num_channels``."""
    plain_dense(spec, layer=layer)
    if num_channels is None:
        if spec.image is None:
            raise LayerConfigError(
                f"layer '{layer}': the input (size {spec.size}) is not an image; pass "
                "num_channels=, or give the data layer height= and width=."
            )
        return spec.image
    channels = int_at_least(num_channels, 1, layer=layer, arg="num_channels")
    if spec.image is not None:
        if spec.image[0] != channels:
            raise LayerConfigError(
                f"layer '{layer}': num_channels={channels} does not match the input image "
                f"(C, H, W) = {spec.image}; expected num_channels={spec.image[0]} or None."
            )
        return spec.image
    pixels, rest = divmod(spec.size, channels)
    side = math.isqrt(pixels)
    if rest or side * side != pixels:
        raise LayerConfigError(
            f"layer '{layer}': input size {spec.size} / num_channels {channels} is not a "
            "square image (expected size == num_channels * side**2); give the data layer "
            "height= and width= for a non-square image."
        )
    return (channels, side, side)


def checked_image(spec: Spec, image: tuple[int, int, int]) -> tuple[int, int, int]:
    if math.prod(image) != spec.size:
        raise LayerConfigError(
            f"input size {spec.size} does not hold the image (C, H, W) = {tuple(image)}."
        )
    return tuple(image)  # type: ignore[return-value]


def output_image(spec: Spec, attrs, size_of) -> tuple[int, int, int]:  # noqa: ANN001
    """``(C, outH, outW)`` with ``size_of(in_size, axis)`` per axis (0 = y, 1 = x)."""
    c, h, w = checked_image(spec, attrs["image"])
    oh, ow = size_of(h, 0), size_of(w, 1)
    if min(oh, ow) < 1:
        keys = ("filter_size", "pool_size", "stride", "padding", "dilation")
        settings = ", ".join(f"{k}={attrs[k]}" for k in keys if k in attrs)
        raise LayerConfigError(
            f"the output image would be {oh}x{ow} (H x W) for an input of {h}x{w} with "
            f"{settings} (each (y, x)); expected at least 1x1."
        )
    return c, oh, ow


# img_conv ----------------------------------------------------------------------------
def conv_output_size(n: int, k: int, s: int, p: int, d: int, trans: bool) -> int:
    """v2 caffe mode: ``1 + (n + 2p - d(k-1) - 1) // s``; transposed: its inverse."""
    if trans:
        return (n - 1) * s + d * (k - 1) + 1 - 2 * p
    return 1 + (n + 2 * p - d * (k - 1) - 1) // s


def _conv(x, w, attrs):  # noqa: ANN001, ANN202
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=attrs["stride"],
        padding=[(p, p) for p in attrs["padding"]],
        rhs_dilation=attrs["dilation"],
        dimension_numbers=("NCHW", "OIHW", "NCHW"),
        feature_group_count=attrs["groups"],
    )


def _conv_transpose(x, w, attrs):  # noqa: ANN001, ANN202
    """Transposed conv as a forward conv over the stride-dilated input with flipped filters."""
    c, f, g = x.shape[1], attrs["num_filters"], attrs["groups"]
    ky, kx = w.shape[2:]
    oihw = w.reshape(g, c // g, f // g, ky, kx).transpose(0, 2, 1, 3, 4)
    oihw = oihw.reshape(f, c // g, ky, kx)[:, :, ::-1, ::-1]
    pads = [
        (d * (k - 1) - p, d * (k - 1) - p)
        for d, k, p in zip(attrs["dilation"], (ky, kx), attrs["padding"], strict=True)
    ]
    return lax.conv_general_dilated(
        x,
        oihw,
        window_strides=(1, 1),
        padding=pads,
        lhs_dilation=attrs["stride"],
        rhs_dilation=attrs["dilation"],
        dimension_numbers=("NCHW", "OIHW", "NCHW"),
        feature_group_count=g,
    )


class ImgConvKind(Kind):
    name = "img_conv"

    def infer_spec(self, inputs, attrs):
        _, oh, ow = output_image(
            inputs[0],
            attrs,
            lambda n, i: conv_output_size(
                n,
                attrs["filter_size"][i],
                attrs["stride"][i],
                attrs["padding"][i],
                attrs["dilation"][i],
                attrs["trans"],
            ),
        )
        f = attrs["num_filters"]
        return Spec(f * oh * ow, image=(f, oh, ow))

    def param_specs(self, inputs, attrs):
        c, f, g = attrs["image"][0], attrs["num_filters"], attrs["groups"]
        ky, kx = attrs["filter_size"]
        shape = (c, f // g, ky, kx) if attrs["trans"] else (f, c // g, ky, kx)
        std = math.sqrt(2.0 / (kx * kx * c))
        decls = [ParamDecl("w0", shape, ("param", 0), InitSpec("gaussian", 0.0, std))]
        if attrs["bias"]:
            n = f if attrs["shared_biases"] else self.infer_spec(inputs, attrs).size
            decls.append(ParamDecl("wbias", (n, 1), ("bias",), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["image"])
        conv = _conv_transpose if attrs["trans"] else _conv
        y = conv(x, params["w0"], attrs)
        if attrs["bias"]:
            b = params["wbias"]
            y = y + (b.reshape(1, -1, 1, 1) if attrs["shared_biases"] else b.reshape(y.shape[1:]))
        return y.reshape(y.shape[0], -1)


register_kind(ImgConvKind())


def _conv_groups(groups: Any, image, num_filters: int, *, layer: str) -> int:  # noqa: ANN001
    groups = int_at_least(groups, 1, layer=layer, arg="groups")
    if image[0] % groups or num_filters % groups:
        raise LayerConfigError(
            f"layer '{layer}': groups={groups} must divide both the input channels "
            f"({image[0]}) and num_filters ({num_filters})."
        )
    return groups


def _conv_layer_type(layer_type: Any, trans: bool, *, layer: str) -> Any:
    allowed = CONVT_TYPES if trans else CONV_TYPES
    if layer_type not in allowed:
        raise LayerConfigError(
            f"layer '{layer}': layer_type {layer_type!r} is not valid with trans={trans}; "
            f"expected one of {allowed}."
        )
    return layer_type


@_base.layer_function
def img_conv(
    input,
    filter_size,
    num_filters,
    name=None,
    num_channels=None,
    act=None,  # noqa: A002
    groups=1,
    stride=1,
    padding=0,
    dilation=1,
    bias_attr=None,
    param_attr=None,
    shared_biases=True,
    layer_attr=None,
    filter_size_y=None,
    stride_y=None,
    padding_y=None,
    dilation_y=None,
    trans=False,
    layer_type=None,
    parameter_name=None,
):
    """2-D convolution (or, with ``trans=True``, transposed convolution) of an NCHW image.

    ``out[f, y, x] = act(b[f] + sum_{c, i, j} W[f, c, i, j] * in[c, y*s_y - p_y + i*d_y,
    x*s_x - p_x + j*d_x])`` with zero padding; with ``groups`` the channels split into
    groups convolved separately. Output size (v2 caffe mode, floor):
    ``out = 1 + (in + 2p - d*(k-1) - 1) // s``; transposed: ``out = (in-1)*s + d*(k-1) + 1 - 2p``.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (then square).
        filter_size, stride, padding, dilation: an int or an ``(x, y)`` pair; the
            ``*_y`` arguments give the height setting separately.
        num_filters: output channels.
        num_channels: input channels (default: the input image's channels).
        act: activation (default ``Relu``).
        groups: channel groups; must divide the input channels and ``num_filters``.
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        param_attr: the filter's ``Param``; with no init set, Gaussian with std
            ``sqrt(2 / (filter_size**2 * C))`` (v2: ``filter_size`` is the x size).
        shared_biases: one bias per output channel (``[num_filters, 1]``); ``False``
            gives one per output value (``[num_filters*outH*outW, 1]``).
        layer_attr: ``Extra(drop_rate=...)``.
        trans: transposed convolution.
        layer_type: v2's implementation hint (``exconv``/``cudnn_conv``, ``exconvt`` ...);
            checked, same numerics.
        parameter_name: name the filter ``P`` and the bias ``P.wbias``.

    Returns:
        An image layer ``(num_filters, outH, outW)`` of size ``num_filters*outH*outW``.
        Filter ``w0``: ``[num_filters, C/groups, k_y, k_x]`` (OIHW); for ``trans=True``
        ``[C, num_filters/groups, k_y, k_x]`` (input channels first, as v2 stores it).

    Example::

        img = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
        conv = paddle.layer.img_conv(input=img, filter_size=5, num_filters=20,
                                     num_channels=1, act=paddle.activation.Relu())
        # conv.size == 20 * 24 * 24
    """
    name = _base.layer_name(name, "conv")
    (inp,) = _base.as_layers(input, layer=name)
    image = input_image(inp.spec, num_channels, layer=name)
    trans = bool(trans)
    num_filters = _base.positive_int(num_filters, layer=name, arg="num_filters")
    attrs = {
        "image": image,
        "num_filters": num_filters,
        "filter_size": pair(filter_size, filter_size_y, 1, layer=name, arg="filter_size"),
        "stride": pair(stride, stride_y, 1, layer=name, arg="stride"),
        "padding": pair(padding, padding_y, 0, layer=name, arg="padding"),
        "dilation": pair(dilation, dilation_y, 1, layer=name, arg="dilation"),
        "groups": _conv_groups(groups, image, num_filters, layer=name),
        "shared_biases": bool(shared_biases),
        "trans": trans,
        "layer_type": _conv_layer_type(layer_type, trans, layer=name),
        "act": as_activation(Relu() if act is None else act, layer=name),
        **_base.extra_fields(layer_attr, layer=name, supported=_base.DROP_ONLY),
    }
    return _base.build(
        "img_conv",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=_base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
        parameter_name=parameter_name,
    )


# img_pool ----------------------------------------------------------------------------
def pool_output_size(n: int, k: int, s: int, p: int, ceil_mode: bool) -> int:
    """``1 + ceil((n + 2p - k) / s)`` (``floor`` when not ``ceil_mode``)."""
    span = n + 2 * p - k
    return 1 + (-(-span // s) if ceil_mode else span // s)


class ImgPoolKind(Kind):
    name = "img_pool"

    def infer_spec(self, inputs, attrs):
        image = output_image(
            inputs[0],
            attrs,
            lambda n, i: pool_output_size(
                n,
                attrs["pool_size"][i],
                attrs["stride"][i],
                attrs["padding"][i],
                attrs["ceil_mode"],
            ),
        )
        return Spec(math.prod(image), image=image)

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        _, oh, ow = self.infer_spec([Spec(c * h * w)], attrs).image
        x = inputs[0].reshape(-1, c, h, w)
        axes = list(
            zip(
                (h, w), (oh, ow), attrs["pool_size"], attrs["stride"], attrs["padding"], strict=True
            )
        )
        return _pool(x, attrs, axes).reshape(x.shape[0], -1)


def _counts(n: int, o: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """Per output position, how many window elements lie in the input (or the padded input)."""
    start = np.arange(o) * s - p
    lo, hi = (-p, n + p) if include_pad else (0, n)
    return np.maximum(np.minimum(start + k, hi) - np.maximum(start, lo), 0)


def _pool(x, attrs, axes):  # noqa: ANN001, ANN202
    """Max or average over windows; ceil-mode windows past the padded input are clipped."""
    (_, oh, ky, sy, _), (_, ow, kx, sx, _) = axes
    pads = [(0, 0), (0, 0)] + [
        (p, p + max(0, (o - 1) * s + k - (n + 2 * p))) for n, o, k, s, p in axes
    ]
    window, strides = (1, 1, ky, kx), (1, 1, sy, sx)
    valid = np.outer(_counts(*axes[0], False), _counts(*axes[1], False))
    if attrs["pool"] == "max":
        y = lax.reduce_window(x, -jnp.inf, lax.max, window, strides, pads)[:, :, :oh, :ow]
        return jnp.where(valid > 0, y, 0.0)
    total = lax.reduce_window(x, 0.0, lax.add, window, strides, pads)[:, :, :oh, :ow]
    count = (
        valid
        if attrs["exclude_mode"]
        else np.outer(_counts(*axes[0], True), _counts(*axes[1], True))
    )
    return jnp.where(count > 0, total / np.maximum(count, 1).astype(np.float32), 0.0)


register_kind(ImgPoolKind())


def _pool_mode(pool_type: Any, exclude_mode: Any, *, layer: str) -> tuple[str, bool]:
    """``("max" | "avg", exclude_padding)`` for a v2 pooling type."""
    pool = poolings.as_pooling(poolings.Max() if pool_type is None else pool_type, layer=layer)
    if exclude_mode is not None and not isinstance(exclude_mode, bool):
        raise LayerTypeError(
            f"layer '{layer}': exclude_mode must be None or a bool; received {exclude_mode!r}."
        )
    if isinstance(pool, poolings.Max):
        return "max", True
    if isinstance(pool, poolings.CudnnAvgInclPad):
        return "avg", False
    return "avg", exclude_mode is not False


@_base.layer_function
def img_pool(
    input,
    pool_size,
    name=None,
    num_channels=None,
    pool_type=None,
    stride=1,  # noqa: A002
    padding=0,
    layer_attr=None,
    pool_size_y=None,
    stride_y=None,
    padding_y=None,
    ceil_mode=True,
    exclude_mode=None,
):
    """Spatial max or average pooling of an NCHW image, per channel.

    ``out[c, y, x] = max`` (or mean) of ``in[c, y*s_y - p_y + i, x*s_x - p_x + j]`` over the
    window ``0 <= i < k_y, 0 <= j < k_x``. Output size ``1 + ceil((in + 2p - k) / s)``
    (``floor`` when ``ceil_mode=False``); windows running past the padded input are
    clipped. Max ignores padding. Average divides by the number of input (non-padding)
    elements in the window; ``exclude_mode=False`` (or ``CudnnAvgInclPad``) counts the
    padding too. Every ``Avg`` strategy averages here, as in v2. A window with no input
    element gives 0.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (then square).
        pool_size, stride, padding: an int or an ``(x, y)`` pair; ``*_y`` give the height
            setting separately.
        num_channels: input channels (default: the input image's channels).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        ceil_mode: round the output size up (v2 default) or down.
        exclude_mode: ``None``/``True`` exclude padding from the average, ``False`` count it.

    Returns:
        An image layer ``(C, outH, outW)`` of size ``C*outH*outW``; no parameters.

    Example::

        pool = paddle.layer.img_pool(input=conv, pool_size=2, stride=2,
                                     pool_type=paddle.pooling.Max())
    """
    name = _base.layer_name(name, "pool")
    (inp,) = _base.as_layers(input, layer=name)
    pool, exclude = _pool_mode(pool_type, exclude_mode, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "pool": pool,
        "exclude_mode": exclude,
        "pool_size": pair(pool_size, pool_size_y, 1, layer=name, arg="pool_size"),
        "stride": pair(stride, stride_y, 1, layer=name, arg="stride"),
        "padding": pair(padding, padding_y, 0, layer=name, arg="padding"),
        "ceil_mode": bool(ceil_mode),
        **_base.extra_fields(layer_attr, layer=name, supported=_base.DEVICE_ONLY),
    }
    return _base.build("img_pool", name=name, inputs=[inp], attrs=attrs)


# maxout ------------------------------------------------------------------------------
class MaxoutKind(Kind):
    name = "maxout"

    def infer_spec(self, inputs, attrs):
        c, h, w = checked_image(inputs[0], attrs["image"])
        if c % attrs["groups"]:
            raise LayerConfigError(
                f"groups={attrs['groups']} must divide the input channels ({c})."
            )
        out_c = c // attrs["groups"]
        return Spec(out_c * h * w, image=(out_c, h, w))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        g = attrs["groups"]
        x = inputs[0].reshape(-1, c // g, g, h, w)
        return x.max(axis=2).reshape(x.shape[0], -1)


register_kind(MaxoutKind())


@_base.layer_function
def maxout(input, groups, num_channels=None, name=None, layer_attr=None):  # noqa: A002
    """Maxout over groups of consecutive channels.

    ``out[j, y, x] = max_{g < groups} in[j*groups + g, y, x]`` (v2's grouping: output
    channel ``j`` takes input channels ``j*groups ... (j+1)*groups - 1``).

    Args:
        input: an image layer (use a linear activation on it, as v2 asks).
        groups: channels per group; must divide the input channels.
        num_channels: input channels (default: the input image's channels).

    Returns:
        An image layer ``(C/groups, H, W)`` of size ``C*H*W/groups``.

    Example::

        out = paddle.layer.maxout(input=conv, groups=4)
    """
    name = _base.layer_name(name, "maxout_layer")
    (inp,) = _base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "groups": _base.positive_int(groups, layer=name, arg="groups"),
        **_base.extra_fields(layer_attr, layer=name, supported=_base.DEVICE_ONLY),
    }
    return _base.build("maxout", name=name, inputs=[inp], attrs=attrs)


# pad ---------------------------------------------------------------------------------
class PadKind(Kind):
    name = "pad"

    def infer_spec(self, inputs, attrs):
        dims = checked_image(inputs[0], attrs["image"])
        out = tuple(n + a + b for n, (a, b) in zip(dims, attrs["pads"], strict=True))
        return Spec(out[0] * out[1] * out[2], image=out)

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["image"])
        y = jnp.pad(x, [(0, 0), *attrs["pads"]])
        return y.reshape(y.shape[0], -1)


register_kind(PadKind())


def _pad_pair(value: Any, *, layer: str, arg: str) -> tuple[int, int]:
    if value is None:
        return (0, 0)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise LayerConfigError(
            f"layer '{layer}': {arg} must be a [before, after] pair; received {value!r}."
        )
    return tuple(int_at_least(v, 0, layer=layer, arg=arg) for v in value)  # type: ignore[return-value]


@_base.layer_function
def pad(input, pad_c=None, pad_h=None, pad_w=None, name=None, layer_attr=None):  # noqa: A002
    """Zero-pad an NCHW image along channels, height and width.

    ``out[c + pc0, y + ph0, x + pw0] = in[c, y, x]``; every other value is 0.

    Args:
        input: an image layer.
        pad_c, pad_h, pad_w: ``[before, after]`` zero counts (``None``: no padding).

    Returns:
        An image layer ``(C + pc0 + pc1, H + ph0 + ph1, W + pw0 + pw1)``.

    Example::

        out = paddle.layer.pad(input=conv, pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1])
    """
    name = _base.layer_name(name, "pad")
    (inp,) = _base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, None, layer=name),
        "pads": tuple(
            _pad_pair(v, layer=name, arg=a)
            for v, a in ((pad_c, "pad_c"), (pad_h, "pad_h"), (pad_w, "pad_w"))
        ),
        **_base.extra_fields(layer_attr, layer=name, supported=_base.DEVICE_ONLY),
    }
    return _base.build("pad", name=name, inputs=[inp], attrs=attrs)
