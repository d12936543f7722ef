"""Image convolution: img_conv (and its transposed form).

Images travel flat, ``[batch, C*H*W]`` in NCHW order; the geometry helpers are in
``image.geometry``; pooling, maxout and pad are in ``pool``. Inside ``compile.forward``
a chain of convolutions and pools passes NHWC images instead (``channels_last``), so
``apply`` also takes a ``ChannelsLast`` image and then returns one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Relu, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, Kind, ParamAttrAt, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import input_image, int_at_least, output_image, pair
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.layers import Message, height_width, yx
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import InitSpec, Spec

CONV_TYPES = (None, "conv", "exconv", "cudnn_conv")
CONVT_TYPES = (None, "convt", "exconvt", "cudnn_convt")


# img_conv ----------------------------------------------------------------------------
def conv_output_size(n: int, k: int, s: int, p: int, d: int, trans: bool) -> int:
    """v2 caffe mode: ``1 + (n + 2p - d(k-1) - 1) // s``; transposed: its inverse."""
    if trans:
        return (n - 1) * s + d * (k - 1) + 1 - 2 * p
    return 1 + (n + 2 * p - d * (k - 1) - 1) // s


def convolve(x, w, attrs, layout: str = "NCHW"):
    """``x`` (NCHW, or NHWC) convolved by the OIHW filter ``w`` with ``attrs``' stride,
    padding, dilation and groups (caffe mode)."""
    if layout == "NHWC" and _as_patches(x, w, attrs):
        return _patches_conv(x, w, attrs["stride"], attrs["padding"], attrs["dilation"])
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=attrs["stride"],
        padding=[(p, p) for p in attrs["padding"]],
        rhs_dilation=attrs["dilation"],
        dimension_numbers=(layout, "OIHW", layout),
        feature_group_count=attrs["groups"],
    )


PATCH_CHANNELS = 3  # NHWC convolutions over at most this many channels: _patches_conv
PATCH_BYTES = 256 * 2**20  # and whose patches take at most this much memory


def _as_patches(x, w, attrs) -> bool:
    """Whether an NHWC convolution runs as ``_patches_conv``: on a CPU, over at most
    ``PATCH_CHANNELS`` input channels (a grey or RGB image's first layer), where
    XLA:CPU's own convolution, its filter gradient above all, ran 1.8-5.8 times slower
    (``python -m bench.conv_patches``; over more channels patches ranged from faster to
    4 times slower with no rule found that tells them apart), unless its patches would
    take more than ``PATCH_BYTES`` (a large image's first layer keeps XLA's)."""
    n, h, wd, c = x.shape
    if attrs["groups"] != 1 or c > PATCH_CHANNELS or jax.default_backend() != "cpu":
        return False
    _, _, ky, kx = w.shape
    out = [
        conv_output_size(size, k, s, p, d, False)
        for size, k, s, p, d in zip(
            (h, wd), (ky, kx), attrs["stride"], attrs["padding"], attrs["dilation"], strict=True
        )
    ]
    return n * out[0] * out[1] * ky * kx * c * x.dtype.itemsize <= PATCH_BYTES


@functools.partial(jax.checkpoint, static_argnums=(2, 3, 4))
def _patches_conv(x, w, stride, padding, dilation):
    """The NHWC convolution of ``x`` by the OIHW filter ``w`` as one matrix product:
    each output pixel's ``ky * kx * C`` input taps (strided slices of the zero-padded
    image) times the ``[ky * kx * C, F]`` filter matrix, as v2's CPU convolution
    computed it (im2col, then a GEMM). The taps are recomputed in the backward pass
    (``jax.checkpoint``) instead of being stored."""
    (sy, sx), (py, px), (dy, dx) = stride, padding, dilation
    f, c, ky, kx = w.shape
    n, h, wd, _ = x.shape
    oh, ow = conv_output_size(h, ky, sy, py, dy, False), conv_output_size(wd, kx, sx, px, dx, False)
    x = jnp.pad(x, ((0, 0), (py, py), (px, px), (0, 0)))
    taps = [
        lax.slice(
            x,
            (0, i * dy, j * dx, 0),
            (n, i * dy + (oh - 1) * sy + 1, j * dx + (ow - 1) * sx + 1, c),
            (1, sy, sx, 1),
        )
        for i in range(ky)
        for j in range(kx)
    ]
    patches = jnp.stack(taps, axis=3).reshape(n * oh * ow, ky * kx * c)
    y = patches @ w.transpose(2, 3, 1, 0).reshape(ky * kx * c, f)
    return y.reshape(n, oh, ow, f)


def convolve_transposed(x, w, attrs):
    """The transposed convolution of the NCHW ``x`` by ``w`` (``[C, F/groups, ky, kx]``):
    a forward convolution over the stride-dilated input with flipped filters."""
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


# v2's ModelConfig ----------------------------------------------------------------------
def _v2_type(n: Layer) -> str:
    return "exconvt" if n.attrs.get("trans") else "exconv"


def _v2_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    """``num_filters``, ``shared_biases``, the output's ``height`` and ``width``, and the
    input's ``conv_conf`` (of an image input only)."""
    if len(n.attrs.get("image") or ()) != 3:
        return {}
    inputs[0].conv_conf = _conv_conf(n)
    extra = {"num_filters": n.attrs["num_filters"], "shared_biases": n.attrs["shared_biases"]}
    return extra | height_width(n)


def _conv_conf(n: Layer) -> Message:
    channels, height, width = n.attrs["image"]
    _, out_h, out_w = n.spec.image
    fy, fx = yx(n.attrs["filter_size"])
    sy, sx = yx(n.attrs["stride"])
    py, px = yx(n.attrs["padding"])
    dy, dx = yx(n.attrs["dilation"])
    groups = int(n.attrs["groups"])
    trans = bool(n.attrs.get("trans"))
    # a transposed convolution's "image" is its output and its "output" its input
    img, out = ((out_w, out_h), (width, height)) if trans else ((width, height), (out_w, out_h))
    filter_channels = (n.attrs["num_filters"] if trans else channels) // groups
    return Message(
        filter_size=fx, channels=channels, stride=sx, padding=px, groups=groups,
        filter_channels=filter_channels, output_x=out[0], img_size=img[0], caffe_mode=True,
        filter_size_y=fy, padding_y=py, stride_y=sy, output_y=out[1], img_size_y=img[1],
        dilation=dx, dilation_y=dy,
    )  # fmt: skip


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    c = cfg["inputs"][0]["conv_conf"]
    return img_conv(
        input=ins[0],
        filter_size=c["filter_size"],
        filter_size_y=c.get("filter_size_y"),
        num_filters=cfg["num_filters"],
        name=cfg["name"],
        num_channels=c["channels"],
        act=rebuild.act(cfg),
        groups=c.get("groups"),
        stride=c.get("stride"),
        stride_y=c.get("stride_y"),
        padding=c.get("padding"),
        padding_y=c.get("padding_y"),
        dilation=c.get("dilation"),
        dilation_y=c.get("dilation_y", c.get("dilation")),
        bias_attr=rebuild.bias(cfg),
        param_attr=rebuild.param(cfg["inputs"][0]),
        shared_biases=cfg.get("shared_biases"),
    )


# the kind ------------------------------------------------------------------------------
class ImgConvKind(Kind):
    name = "img_conv"
    v2 = V2Layer(
        type=_v2_type,
        fields=_v2_fields,
        dimless=("w0",),  # v2 declares a filter by its size only
        rebuild=_from_v2,
        reads=("exconv", "cudnn_conv", "conv"),
    )

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
        decls = [ParamDecl("w0", shape, ParamAttrAt(0), InitSpec("gaussian", 0.0, std))]
        if attrs["bias"]:
            n = f if attrs["shared_biases"] else self.infer_spec(inputs, attrs).size
            decls.append(ParamDecl("wbias", (n, 1), BiasAttr(), attrs_mod.SMART))
        return decls

    def channels_last(self, attrs, input_is_channels_last):
        return not attrs["trans"]

    def apply(self, params, inputs, attrs, *, key, mode):
        if isinstance(inputs[0], ChannelsLast):
            return _conv_channels_last(params, inputs[0].data, attrs)
        x = inputs[0].reshape(-1, *attrs["image"])
        conv = convolve_transposed if attrs["trans"] else convolve
        y = conv(x, params["w0"], attrs)
        if attrs["bias"]:
            b = params["wbias"]
            y = y + (b.reshape(1, -1, 1, 1) if attrs["shared_biases"] else b.reshape(y.shape[1:]))
        return y.reshape(y.shape[0], -1)


def _conv_channels_last(params, x, attrs):
    """The forward convolution of an NHWC image; the parameters keep v2's layout."""
    y = convolve(x, params["w0"], attrs, "NHWC")
    if attrs["bias"]:
        b = params["wbias"]
        f, oh, ow = y.shape[3], y.shape[1], y.shape[2]
        y = y + (
            b.reshape(f) if attrs["shared_biases"] else b.reshape(f, oh, ow).transpose(1, 2, 0)
        )
    return ChannelsLast(y)


register_kind(ImgConvKind())


def _conv_groups(groups: Any, image, num_filters: int, *, layer: str) -> int:
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


@base.layer_function
def img_conv(
    input: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    name: str | None = None,
    num_channels: int | None = None,
    act: BaseActivation | None = None,
    groups: int = 1,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    shared_biases: bool = True,
    layer_attr: ExtraAttr | None = None,
    filter_size_y: int | None = None,
    stride_y: int | None = None,
    padding_y: int | None = None,
    dilation_y: int | None = None,
    trans: bool = False,
    layer_type: str | None = None,
    parameter_name: str | None = None,
) -> Layer:
    """2-D convolution (or, with ``trans=True``, transposed convolution) of an NCHW image.

    ``out[f, y, x] = act(b[f] + sum_{c, i, j} W[f, c, i, j] * in[c, y*s_y - p_y + i*d_y,
    x*s_x - p_x + j*d_x])`` with zero padding; with ``groups`` the channels split into
    groups convolved separately. Output size (v2 caffe mode, floor):
    ``out = 1 + (in + 2p - d*(k-1) - 1) // s``; transposed: ``out = (in-1)*s + d*(k-1) + 1 - 2p``.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        filter_size, stride, padding, dilation: an int or an ``(x, y)`` pair.
        filter_size_y, stride_y, padding_y, dilation_y: the height setting, when it
            differs from the width's.
        num_filters: output channels.
        name: the layer name (default ``__conv_<n>__``).
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

    Example:
        >>> img = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
        >>> conv = paddle.layer.img_conv(input=img, filter_size=5, num_filters=20,
        ...                              num_channels=1, act=paddle.activation.Relu())
        >>> # conv.size == 20 * 24 * 24
    """
    name = base.layer_name(name, "conv")
    (inp,) = base.as_layers(input, layer=name)
    image = input_image(inp.spec, num_channels, layer=name)
    trans = bool(trans)
    num_filters = base.positive_int(num_filters, layer=name, arg="num_filters")
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
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_ONLY),
    }
    return base.build(
        "img_conv",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
        parameter_name=parameter_name,
    )
