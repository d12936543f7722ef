"""Max-pooling companions: roi_pool (Fast R-CNN) and upsample (max unpooling).

Images travel flat in NCHW order (see ``image.geometry``). ``roi_pool`` emits one row
per region of interest; ``upsample`` puts each value back where a max pooling found it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, get_kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import checked_image, input_image, int_at_least
from paddle_lite._src.layers.image.pool import ImgPoolKind
from paddle_lite._src.layers.image.volume import depth_of
from paddle_lite._src.specs import Spec


# roi_pool ----------------------------------------------------------------------------
def roi_bins(rois, scale: float, n: int, pooled: int, first: int):
    """``[R, pooled, n]`` masks of the pixels in each bin along one axis.

    As v2: the region ``[round(a*scale), round(b*scale)]`` (``a, b = rois[:, first],
    rois[:, first + 2]``, rounded half away from zero) of at least 1 pixel is cut into
    ``pooled`` bins ``[floor(i*bin), ceil((i+1)*bin))`` shifted to the region start and
    clipped to the image.
    """
    a = jnp.floor(rois[:, first] * np.float32(scale) + 0.5)
    b = jnp.floor(rois[:, first + 2] * np.float32(scale) + 0.5)
    bin_size = jnp.maximum(b - a + 1.0, 1.0) / np.float32(pooled)  # [R]
    i = np.arange(pooled, dtype=np.float32)
    start = jnp.minimum(jnp.floor(i * bin_size[:, None]) + a[:, None], n)  # [R, pooled]
    end = jnp.minimum(jnp.ceil((i + 1) * bin_size[:, None]) + a[:, None], n)
    pos = np.arange(n, dtype=np.float32)
    return (pos >= start[..., None]) & (pos < end[..., None])


def _roi_max(img, rows, cols):
    """``[C, PH, PW]`` maxima of ``img [C, H, W]`` over the bins; 0 for an empty bin."""
    along_w = jnp.where(cols[None, None], img[:, :, None, :], -jnp.inf).max(axis=-1)  # C,H,PW
    both = jnp.where(rows[None, :, :, None], along_w[:, None], -jnp.inf).max(axis=2)  # C,PH,PW
    return jnp.where(jnp.isfinite(both), both, 0.0)


class RoiPoolKind(Kind):
    name = "roi_pool"

    def infer_spec(self, inputs, attrs):
        c, _, _ = checked_image(inputs[0], attrs["image"])
        base.expect(inputs[1], "rois", "dense")
        if inputs[1].size < 5 or inputs[1].seq_level:
            raise LayerConfigError(
                "rois must be a non-sequence dense layer of size >= 5 ([batch_index, x1, y1, "
                f"x2, y2] per row); received size {inputs[1].size}, sequence level "
                f"{inputs[1].seq_level}."
            )
        ph, pw = attrs["pooled_height"], attrs["pooled_width"]
        return Spec(c * ph * pw, image=(c, ph, pw))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        x = inputs[0].reshape(-1, c, h, w)
        rois = lax.stop_gradient(inputs[1])
        scale = attrs["spatial_scale"]
        rows = roi_bins(rois, scale, h, attrs["pooled_height"], 2)  # y1 at 2, y2 at 4
        cols = roi_bins(rois, scale, w, attrs["pooled_width"], 1)  # x1 at 1, x2 at 3
        images = x[rois[:, 0].astype(jnp.int32)]
        out = jax.vmap(_roi_max)(images, rows, cols)
        return out.reshape(out.shape[0], -1)


register_kind(RoiPoolKind())


@base.layer_function
def roi_pool(
    input: Layer,
    rois: Layer,
    pooled_width: int,
    pooled_height: int,
    spatial_scale: float,
    num_channels: int | None = None,
    name: str | None = None,
) -> Layer:
    """Fast R-CNN region-of-interest max pooling: one output row per region.

    Row ``r`` of ``rois`` is ``[batch_index, x1, y1, x2, y2, ...]`` in image coordinates.
    The region ``x1*spatial_scale .. x2*spatial_scale`` (rounded, at least one pixel; the
    same for y) of image ``batch_index`` is cut into ``pooled_height x pooled_width`` bins
    (``[floor(i*bin), ceil((i+1)*bin))``, clipped to the feature map) and each channel's
    maximum over each bin is taken; an empty bin gives 0. The gradient goes to each
    bin's maximum; none goes to ``rois``.

    Args:
        input: the feature-map image layer.
        rois: a dense layer of size >= 5 holding one region per row.
        pooled_width, pooled_height: bins per region.
        spatial_scale: feature-map pixels per image pixel (e.g. ``1/16``).
        num_channels: the feature map's channels (default: the image's).
        name: the layer name (default ``__roi_pool_<n>__``).

    Returns:
        An image layer ``(C, pooled_height, pooled_width)`` with one row per region
        (auto name ``__roi_pool_<n>__``); no parameters.

    Example:
        >>> boxes = paddle.layer.data(name="boxes", type=paddle.data_type.dense_vector(5))
        >>> feats = paddle.layer.roi_pool(input=conv, rois=boxes, pooled_width=7,
        ...                               pooled_height=7, spatial_scale=1.0 / 16)
        >>> feats.size
        196
    """
    name = base.layer_name(name, "roi_pool")
    (inp,) = base.as_layers(input, layer=name)
    (box,) = base.as_layers(rois, layer=name, arg="rois")
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "pooled_width": base.positive_int(pooled_width, layer=name, arg="pooled_width"),
        "pooled_height": base.positive_int(pooled_height, layer=name, arg="pooled_height"),
        "spatial_scale": base.number(spatial_scale, layer=name, arg="spatial_scale"),
    }
    return base.build("roi_pool", name=name, inputs=[inp, box], attrs=attrs)


# upsample ----------------------------------------------------------------------------
def max_pool_mask(x, pool_attrs):
    """v2's max-pool-with-mask mask: per pooled value, the flat index ``y*W + x`` in its
    input plane of the window's first maximum (windows clipped to the image)."""
    _, h, w = pool_attrs["image"]
    (ky, kx), (sy, sx), (py, px) = (
        pool_attrs["pool_size"],
        pool_attrs["stride"],
        pool_attrs["padding"],
    )
    oh, ow = pool_attrs["out_hw"]
    ys = (np.arange(oh) * sy - py)[:, None] + np.arange(ky)[None, :]  # [OH, ky]
    xs = (np.arange(ow) * sx - px)[:, None] + np.arange(kx)[None, :]  # [OW, kx]
    valid = ((ys >= 0) & (ys < h))[:, None, :, None] & ((xs >= 0) & (xs < w))[None, :, None, :]
    flat = np.clip(ys, 0, h - 1)[:, None, :, None] * w + np.clip(xs, 0, w - 1)[None, :, None, :]
    flat = np.broadcast_to(flat, valid.shape).reshape(oh, ow, -1)  # [OH, OW, ky*kx]
    values = x[:, :, flat]  # x [B, C, H*W] -> [B, C, OH, OW, ky*kx]
    values = jnp.where(valid.reshape(oh, ow, -1), values, -jnp.inf)
    best = jnp.argmax(values, axis=-1)
    return jnp.asarray(flat)[np.arange(oh)[:, None], np.arange(ow)[None, :], best]


class UpsampleKind(Kind):
    name = "upsample"

    def infer_spec(self, inputs, attrs):
        c, _, _ = checked_image(inputs[0], attrs["image"])
        oy, ox = attrs["out_hw"]
        return Spec(c * oy * ox, image=(c, oy, ox))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        x = inputs[0].reshape(-1, c, h * w)
        source = lax.stop_gradient(inputs[2]).reshape(x.shape[0], attrs["pool"]["image"][0], -1)
        mask = max_pool_mask(source, attrs["pool"])
        oy, ox = attrs["out_hw"]
        out = jnp.zeros((x.shape[0], c, oy * ox), x.dtype)
        b = np.arange(x.shape[0])[:, None, None]
        ch = np.arange(c)[None, :, None]
        out = out.at[b, ch, mask.reshape(x.shape[0], c, -1)].set(x, mode="drop")
        return out.reshape(out.shape[0], -1)


register_kind(UpsampleKind())


def _pool_of(layer, *, name: str) -> dict[str, Any]:
    """The settings of the max pooling whose mask ``upsample`` follows."""
    if not isinstance(get_kind(layer.kind), ImgPoolKind) or layer.attrs["pool"] != "max":
        raise LayerConfigError(
            f"layer '{name}': the second input must be a max img_pool (v2: "
            "pool_type=paddle.pooling.MaxWithMask()); received "
            f"'{layer.name}' of type {layer.kind}."
        )
    keys = ("image", "pool_size", "stride", "padding")
    return {**{k: layer.attrs[k] for k in keys}, "out_hw": layer.spec.image[1:]}


def _upsample_hw(image, scale, upsample_size, upsample_size_y, pad_out, name):
    """``(outH, outW)``: ``upsample_size`` when given, else ``in * scale - pad_out``."""
    if upsample_size is not None:
        x = int_at_least(upsample_size, 1, layer=name, arg="upsample_size")
        y = x if upsample_size_y is None else upsample_size_y
        return int_at_least(y, 1, layer=name, arg="upsample_size_y"), x
    if scale is None:
        raise LayerConfigError(f"layer '{name}': give scale= or upsample_size= (v2 requires one).")
    s = int_at_least(scale, 1, layer=name, arg="scale")
    for flag, axis in zip(pad_out, ("y", "x"), strict=True):
        if flag and s != 2:
            raise LayerConfigError(
                f"layer '{name}': pad_out_{axis} needs scale == 2 (v2); received scale={s}."
            )
    return image[1] * s - int(bool(pad_out[0])), image[2] * s - int(bool(pad_out[1]))


@base.layer_function
def upsample(
    input: Sequence[Layer],
    name: str | None = None,
    scale: float | None = None,
    scale_y: float | None = None,
    upsample_size: int | None = None,
    upsample_size_y: int | None = None,
    pad_out_x: bool = False,
    pad_out_y: bool = False,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Max unpooling: put each value back where a max pooling found its maximum.

    ``input = [values, pool]``: ``pool`` is a max ``img_pool`` (v2:
    ``pool_type=MaxWithMask()``) and ``values`` has its output shape. Each value
    ``values[c, i]`` goes to the flat position ``mask[c, i]`` (``y*W + x`` of the window's
    first maximum in the pooling's input plane) of a zero output plane; the gradient
    flows back the same way. The output is ``upsample_size x upsample_size_y`` when
    given, else ``H*scale - pad_out_y`` by ``W*scale - pad_out_x`` (``pad_out`` needs
    ``scale == 2``). As in v2, ``scale_y`` is replaced by ``scale`` whenever ``scale``
    is given. The layer reads the pooling's input to find the maxima, so it is listed as
    a third input.

    Args:
        input: ``[values, pool]``.
        name: the layer name (default ``__upsample_<n>__``).
        scale, scale_y: the size factor (an int).
        upsample_size, upsample_size_y: the output width and height.
        pad_out_x, pad_out_y: one pixel less in x / y.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer ``(C, outH, outW)`` (auto name ``__upsample_<n>__``).

    Example:
        >>> pool = paddle.layer.img_pool(input=conv, pool_size=2, stride=2,
        ...                              pool_type=paddle.pooling.MaxWithMask())
        >>> up = paddle.layer.upsample(input=[pool, pool], scale=2)
        >>> up.size == conv.size
        True
    """
    name = base.layer_name(name, "upsample")
    layers = base.as_layers(input, layer=name)
    if len(layers) != 2:
        raise LayerConfigError(
            f"layer '{name}': input must be [values, pool]; received {len(layers)} layers."
        )
    values, pool = layers
    pool_attrs = _pool_of(pool, name=name)
    image = input_image(values.spec, None, layer=name)
    if values.spec.size != pool.spec.size:
        raise LayerConfigError(
            f"layer '{name}': the values (size {values.spec.size}) must have the pooling "
            f"'{pool.name}' output's size {pool.spec.size} (v2 checks it when the layer runs)."
        )
    del scale_y  # v2 replaces it by scale, and uses scale alone
    attrs = {
        "image": image,
        "pool": pool_attrs,
        "out_hw": _upsample_hw(
            image, scale, upsample_size, upsample_size_y, (pad_out_y, pad_out_x), name
        ),
        "out_depth": depth_of(values),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("upsample", name=name, inputs=[values, pool, pool.inputs[0]], attrs=attrs)
