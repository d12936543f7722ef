"""``spp``: spatial pyramid pooling, each level's pooled windows of a flat NCHW image
side by side."""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import (
    checked_image,
    input_image,
)
from paddle_lite._src.layers.image.pool import pool_image, pool_mode
from paddle_lite._src.poolings import BasePoolingType
from paddle_lite._src.specs import Spec


def spp_level(n: int, level: int) -> tuple[int, int, int]:
    """``(window, padding, outputs)`` along one axis of pyramid level ``level``.

    v2 covers ``n`` pixels with ``2**level`` bins of ``ceil(n / bins)`` pixels, padded
    by ``(window * bins - n + 1) // 2``, and counts the outputs in caffe mode.
    """
    bins = 2**level
    window = -(-n // bins)
    padding = (window * bins - n + 1) // 2
    return window, padding, 1 + (n + 2 * padding - window) // window


class SppKind(Kind):
    name = "spp"

    def infer_spec(self, inputs, attrs):
        c, h, w = checked_image(inputs[0], attrs["image"])
        for level in range(attrs["pyramid_height"]):
            outs = (spp_level(h, level)[2], spp_level(w, level)[2])
            if outs != (2**level, 2**level):
                raise LayerConfigError(
                    f"pyramid level {level} of a {h}x{w} image pools to {outs[0]}x{outs[1]} "
                    f"bins instead of {2**level}x{2**level} (v2 would fail when the layer is "
                    "created); use a larger image or a smaller pyramid_height."
                )
        width = (4 ** attrs["pyramid_height"] - 1) // 3
        return Spec(c * width, image=(c, 1, width))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        x = inputs[0].reshape(-1, c, h, w)
        parts = []
        for level in range(attrs["pyramid_height"]):
            (ky, py, oy), (kx, px, ox) = spp_level(h, level), spp_level(w, level)
            axes = [(h, oy, ky, ky, py), (w, ox, kx, kx, px)]
            parts.append(pool_image(x, attrs, axes).reshape(x.shape[0], -1))
        return jnp.concatenate(parts, axis=1)


register_kind(SppKind())


@base.layer_function
def spp(
    input: Layer,
    name: str | None = None,
    num_channels: int | None = None,
    pool_type: BasePoolingType | None = None,
    pyramid_height: int | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Spatial pyramid pooling: level ``l`` pools each channel into ``2**l x 2**l`` bins.

    Level ``l`` uses windows and strides of ``ceil(H / 2**l)`` (and likewise for W),
    padded by ``(window * 2**l - H + 1) // 2``. The output concatenates, level by level,
    each level's ``[C, 2**l, 2**l]`` bins (NCHW order within a level). A bin that covers
    only padding gives 0 (v2 gave -FLT_MAX for Max and divided by zero for Avg).

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        name: the layer name (default ``__spp_<n>__``).
        num_channels: input channels (default: the input image's channels).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()`` (padding excluded).
        pyramid_height: the number of levels (required).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer ``(C, 1, (4**pyramid_height - 1) / 3)`` (auto name
        ``__spp_<n>__``); no parameters.

    Example:
        >>> feats = paddle.layer.spp(input=conv, pyramid_height=2,
        ...                          pool_type=paddle.pooling.Max())
    """
    name = base.layer_name(name, "spp")
    (inp,) = base.as_layers(input, layer=name)
    if pyramid_height is None:
        raise LayerConfigError(f"layer '{name}': spp needs pyramid_height=, e.g. 2 or 3.")
    pool, exclude = pool_mode(pool_type, None, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "pool": pool,
        "exclude_mode": exclude,
        "pyramid_height": base.positive_int(pyramid_height, layer=name, arg="pyramid_height"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("spp", name=name, inputs=[inp], attrs=attrs)
