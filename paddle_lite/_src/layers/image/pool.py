"""Image pooling and reshaping layers: img_pool, maxout, pad (spp is in ``image.spp``).

Like ``img_conv`` they take flat NCHW images (geometry from ``image.geometry``) and
flatten their output back; none has parameters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import poolings
from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import (
    checked_image,
    input_image,
    int_at_least,
    output_image,
    pair,
)
from paddle_lite._src.layers.image.windows import pool_windows
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.poolings import BasePoolingType
from paddle_lite._src.proto.layers import Message, height_width, yx
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec


# img_pool ----------------------------------------------------------------------------
def pool_output_size(n: int, k: int, s: int, p: int, ceil_mode: bool) -> int:
    """``1 + ceil((n + 2p - k) / s)`` (``floor`` when not ``ceil_mode``)."""
    span = n + 2 * p - k
    return 1 + (-(-span // s) if ceil_mode else span // s)


def _v2_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    """The output's ``height`` and ``width`` and the input's ``pool_conf`` (of an image
    input only)."""
    if len(n.attrs.get("image") or ()) != 3:
        return {}
    channels, height, width = n.attrs["image"]
    _, out_h, out_w = n.spec.image
    kind = n.attrs["pool"]
    sy, sx = yx(n.attrs["pool_size"])
    ty, tx = yx(n.attrs["stride"])
    py, px = yx(n.attrs["padding"])
    inputs[0].pool_conf = Message(
        pool_type=f"{kind}-projection" if kind in ("max", "avg") else kind,
        channels=channels, size_x=sx, stride=tx, output_x=out_w, img_size=width, padding=px,
        size_y=sy, stride_y=ty, output_y=out_h, img_size_y=height, padding_y=py,
    )  # fmt: skip
    return height_width(n)


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    p = cfg["inputs"][0]["pool_conf"]
    return img_pool(
        input=ins[0],
        pool_size=p["size_x"],
        pool_size_y=p.get("size_y"),
        name=cfg["name"],
        num_channels=p["channels"],
        pool_type=poolings.Max() if p["pool_type"].startswith("max") else poolings.Avg(),
        stride=p.get("stride"),
        stride_y=p.get("stride_y"),
        padding=p.get("padding"),
        padding_y=p.get("padding_y"),
    )


class ImgPoolKind(Kind):
    name = "img_pool"
    v2 = V2Layer(type="pool", fields=_v2_fields, rebuild=_from_v2)

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

    def channels_last(self, attrs, input_is_channels_last):
        return input_is_channels_last  # a chain continues through a pool, never starts

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        _, oh, ow = self.infer_spec([Spec(c * h * w)], attrs).image
        axes = list(
            zip(
                (h, w), (oh, ow), attrs["pool_size"], attrs["stride"], attrs["padding"], strict=True
            )
        )
        if isinstance(inputs[0], ChannelsLast):
            return ChannelsLast(pool_image(inputs[0].data, attrs, axes, nhwc=True))
        x = inputs[0].reshape(-1, c, h, w)
        return pool_image(x, attrs, axes).reshape(x.shape[0], -1)


def pool_image(x, attrs, axes, nhwc=False):
    """``x`` (NCHW, or NHWC) pooled with ``attrs``' pooling over ``axes``: one
    ``(size, out, window, stride, padding)`` per spatial axis."""
    return pool_windows(x, attrs["pool"], attrs["exclude_mode"], axes, nhwc)


register_kind(ImgPoolKind())


def pool_mode(pool_type: Any, exclude_mode: Any, *, layer: str) -> tuple[str, bool]:
    """``("max" | "avg", exclude_padding)`` for a v2 pooling type."""
    pool = poolings.as_pooling(poolings.Max() if pool_type is None else pool_type, layer=layer)
    exclude_mode = base.flag(exclude_mode, layer=layer, arg="exclude_mode", allow_none=True)
    if isinstance(pool, poolings.Max):
        return "max", True
    if isinstance(pool, poolings.CudnnAvgInclPad):
        return "avg", False
    return "avg", exclude_mode is not False


def _img_pool_type(pool_type: Any, *, layer: str) -> Any:
    """v2's img_pool_layer asserted the exact pooling classes: ``Sum()`` and
    ``SquareRootN()`` (not ``Avg(strategy=...)``, which averages) were refused."""
    cls = pool_type if isinstance(pool_type, type) else type(pool_type)
    if cls in (poolings.Sum, poolings.SquareRootN):
        raise LayerConfigError(
            f"layer '{layer}': img_pool takes Max, Avg, MaxWithMask, CudnnMax, CudnnAvg or "
            f"CudnnAvgInclPad pooling, as v2 did; received {pool_type!r}. An image pool "
            "averages: use paddle.pooling.Avg()."
        )
    return pool_type


@base.layer_function
def img_pool(
    input: Layer,
    pool_size: int | Sequence[int],
    name: str | None = None,
    num_channels: int | None = None,
    pool_type: BasePoolingType | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    layer_attr: ExtraAttr | None = None,
    pool_size_y: int | None = None,
    stride_y: int | None = None,
    padding_y: int | None = None,
    ceil_mode: bool = True,
    exclude_mode: bool | None = None,
) -> Layer:
    """Spatial max or average pooling of an NCHW image, per channel.

    ``out[c, y, x] = max`` (or mean) of ``in[c, y*s_y - p_y + i, x*s_x - p_x + j]`` over the
    window ``0 <= i < k_y, 0 <= j < k_x``. Output size ``1 + ceil((in + 2p - k) / s)``
    (``floor`` when ``ceil_mode=False``); windows running past the padded input are
    clipped. Max ignores padding. Average divides by the number of input (non-padding)
    elements in the window; ``exclude_mode=False`` (or ``CudnnAvgInclPad``) counts the
    padding too. ``Avg(strategy=...)`` averages whatever its strategy, as in v2 (which
    refused ``Sum()`` and ``SquareRootN()`` here, as this does). A window with no input
    element gives 0.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        pool_size, stride, padding: an int or an ``(x, y)`` pair.
        pool_size_y, stride_y, padding_y: the height setting, when it differs.
        name: the layer name (default ``__pool_<n>__``).
        num_channels: input channels (default: the input image's channels).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        layer_attr: ``Extra(device=...)`` only.
        ceil_mode: round the output size up (v2 default) or down.
        exclude_mode: ``None``/``True`` exclude padding from the average, ``False`` count it.

    Returns:
        An image layer ``(C, outH, outW)`` of size ``C*outH*outW``; no parameters.

    Example:
        >>> pool = paddle.layer.img_pool(input=conv, pool_size=2, stride=2,
        ...                              pool_type=paddle.pooling.Max())
    """
    name = base.layer_name(name, "pool")
    (inp,) = base.as_layers(input, layer=name)
    pool_type = _img_pool_type(pool_type, layer=name)
    pool, exclude = pool_mode(pool_type, exclude_mode, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "pool": pool,
        "exclude_mode": exclude,
        "pool_size": pair(pool_size, pool_size_y, 1, layer=name, arg="pool_size"),
        "stride": pair(stride, stride_y, 1, layer=name, arg="stride"),
        "padding": pair(padding, padding_y, 0, layer=name, arg="padding"),
        "ceil_mode": bool(ceil_mode),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("img_pool", name=name, inputs=[inp], attrs=attrs)


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
        # v2 (CpuMatrix::maxoutForward) keeps the first maximum of a group and sends the
        # whole gradient to it; max's own gradient would share it between ties
        first = jnp.argmax(x, axis=2, keepdims=True)
        return jnp.take_along_axis(x, first, axis=2).reshape(x.shape[0], -1)


register_kind(MaxoutKind())


@base.layer_function
def maxout(
    input: Layer,
    groups: int,
    num_channels: int | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Maxout over groups of consecutive channels.

    ``out[j, y, x] = max_{g < groups} in[j*groups + g, y, x]`` (v2's grouping: output
    channel ``j`` takes input channels ``j*groups ... (j+1)*groups - 1``). Where several
    channels of a group tie for the maximum, the gradient goes whole to the first, as in v2.

    Args:
        input: an image layer (use a linear activation on it, as v2 asks).
        groups: channels per group; must divide the input channels.
        num_channels: input channels (default: the input image's channels).
        name: the layer name (default ``__maxout_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer ``(C/groups, H, W)`` of size ``C*H*W/groups``.

    Example:
        >>> out = paddle.layer.maxout(input=conv, groups=4)
    """
    name = base.layer_name(name, "maxout_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "groups": base.positive_int(groups, layer=name, arg="groups"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("maxout", name=name, inputs=[inp], attrs=attrs)


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


@base.layer_function
def pad(
    input: Layer,
    pad_c: Sequence[int] | None = None,
    pad_h: Sequence[int] | None = None,
    pad_w: Sequence[int] | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Zero-pad an NCHW image along channels, height and width.

    ``out[c + pc0, y + ph0, x + pw0] = in[c, y, x]``; every other value is 0.

    Args:
        input: an image layer.
        pad_c, pad_h, pad_w: ``[before, after]`` zero counts (``None``: no padding).
        name: the layer name (default ``__pad_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer ``(C + pc0 + pc1, H + ph0 + ph1, W + pw0 + pw1)``.

    Example:
        >>> out = paddle.layer.pad(input=conv, pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1])
    """
    name = base.layer_name(name, "pad")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, None, layer=name),
        "pads": tuple(
            _pad_pair(v, layer=name, arg=a)
            for v, a in ((pad_c, "pad_c"), (pad_h, "pad_h"), (pad_w, "pad_w"))
        ),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("pad", name=name, inputs=[inp], attrs=attrs)
