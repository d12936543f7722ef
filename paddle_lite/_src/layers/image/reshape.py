"""Image resampling and re-arranging layers: bilinear_interp, rotate, block_expand.

Images travel flat in NCHW order (see ``image.geometry``). None of these layers has
parameters; the index arithmetic is fixed when the layer is built.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import (
    checked_image,
    input_image,
    int_at_least,
    plain_dense,
)
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq


# bilinear_interp ----------------------------------------------------------------------
def bilinear_axis(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, weight_of_second)`` source indices and weights along one axis.

    v2 aligns the corners: output ``i`` samples input position ``i * (n_in - 1) /
    (n_out - 1)`` (ratio 0 for a single output), computed in float32 as v2 does.
    """
    ratio = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0.0)
    pos = ratio * np.arange(n_out, dtype=np.float32)
    first = pos.astype(np.int64)
    second = np.where(first < n_in - 1, first + 1, first)
    return first, second, (pos - first).astype(np.float32)


class BilinearInterpKind(Kind):
    name = "bilinear_interp"

    def infer_spec(self, inputs, attrs):
        c, _, _ = checked_image(inputs[0], attrs["image"])
        oy, ox = attrs["out_size_y"], attrs["out_size_x"]
        return Spec(c * oy * ox, image=(c, oy, ox))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        x = inputs[0].reshape(-1, c, h, w)
        y0, y1, ly = bilinear_axis(h, attrs["out_size_y"])
        x0, x1, lx = bilinear_axis(w, attrs["out_size_x"])
        ly, lx = ly[:, None], lx[None, :]
        top = x[:, :, y0][..., x0] * (1 - lx) + x[:, :, y0][..., x1] * lx
        bottom = x[:, :, y1][..., x0] * (1 - lx) + x[:, :, y1][..., x1] * lx
        out = top * (1 - ly) + bottom * ly
        return out.reshape(out.shape[0], -1)


register_kind(BilinearInterpKind())


@base.layer_function
def bilinear_interp(
    input: Layer,
    out_size_x: int | None = None,
    out_size_y: int | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Resize each channel of an image by bilinear interpolation (corners aligned).

    ``out[c, i, j]`` interpolates ``in[c]`` at ``(i * (H-1)/(outH-1), j * (W-1)/(outW-1))``
    between its four neighbours (v2's ``bilinear_interp``; the ratio is 0 for one output).

    Args:
        input: an image layer (v2 expects a conv output with a linear activation).
        out_size_x, out_size_y: the output width and height (both required, > 0).
        name: the layer name (default ``__bilinear_interp_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer ``(C, out_size_y, out_size_x)`` (auto name
        ``__bilinear_interp_layer_<n>__``); no parameters.

    Example:
        >>> up = paddle.layer.bilinear_interp(input=conv, out_size_x=64, out_size_y=64)
    """
    name = base.layer_name(name, "bilinear_interp_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, None, layer=name),
        "out_size_x": int_at_least(out_size_x, 1, layer=name, arg="out_size_x"),
        "out_size_y": int_at_least(out_size_y, 1, layer=name, arg="out_size_y"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("bilinear_interp", name=name, inputs=[inp], attrs=attrs)


# rotate ------------------------------------------------------------------------------
class RotateKind(Kind):
    name = "rotate"

    def infer_spec(self, inputs, attrs):
        (s,) = inputs
        h, w = attrs["height"], attrs["width"]
        if s.size % (h * w):
            base.cannot_run(
                f"input size {s.size} is not a whole number of height*width = {h}*{w} = "
                f"{h * w} maps: v2 built such a layer and stopped when it ran ('The input's "
                "depth should be an int'). Fix: pass the height and width of the input's "
                "feature maps."
            )
            return Spec(s.size)
        c = s.size // (h * w)
        return Spec(s.size, image=(c, w, h))

    def apply(self, params, inputs, attrs, *, key, mode):
        h, w = attrs["height"], attrs["width"]
        x = inputs[0].reshape(inputs[0].shape[0], -1, h, w)
        out = jnp.rot90(x, k=-1, axes=(2, 3))  # clockwise: out[c, j, h-1-i] = in[c, i, j]
        return out.reshape(out.shape[0], -1)


register_kind(RotateKind())


@base.layer_function
def rotate(
    input: Layer,
    height: int,
    width: int,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Rotate every ``height x width`` feature map 90° clockwise.

    ``out[c, j, height-1-i] = in[c, i, j]``; the input holds ``size / (height*width)``
    maps one after another.

    Args:
        input: a dense non-sequence layer whose size is a multiple of ``height*width``.
        height, width: the geometry of each input map.
        name: the layer name (default ``__rotate_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size, an image ``(C, width, height)``: the rotated maps
        are ``width`` high.

    Example:
        >>> maps = paddle.layer.fc(input=x, size=2 * 3 * 4)
        >>> rot = paddle.layer.rotate(input=maps, height=3, width=4)
        >>> rot.size
        24
    """
    name = base.layer_name(name, "rotate_layer")
    (inp,) = base.as_layers(input, layer=name)
    plain_dense(inp.spec, layer=name)
    attrs = {
        "height": int_at_least(height, 1, layer=name, arg="height"),
        "width": int_at_least(width, 1, layer=name, arg="width"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("rotate", name=name, inputs=[inp], attrs=attrs)


# block_expand ------------------------------------------------------------------------
def block_count(n: int, block: int, stride: int, padding: int) -> int:
    """Blocks along one axis: ``1 + ceil((n + 2p - block) / stride)`` (at least 1), as v2."""
    span = n + 2 * padding - block
    return 1 if span < 0 else 1 + -(-span // stride)


def _block_index(n: int, blocks: int, block: int, stride: int, padding: int) -> np.ndarray:
    """``[blocks, block]`` source positions (``-1`` for positions outside the image)."""
    pos = np.arange(blocks)[:, None] * stride - padding + np.arange(block)[None, :]
    return np.where((pos >= 0) & (pos < n), pos, -1)


class BlockExpandKind(Kind):
    name = "blockexpand"

    def infer_spec(self, inputs, attrs):
        c, _, _ = checked_image(inputs[0], attrs["image"])
        channels = attrs.get("channels", c)
        if channels != c:  # v2 sized the layer by num_channels and failed when it ran
            base.cannot_run(
                f"num_channels={channels} does not match the input image (C, H, W) = "
                f"{tuple(attrs['image'])}: v2 built such a layer (size block_x * block_y * "
                f"num_channels) and failed when it ran. Fix: pass num_channels={c} or None."
            )
        zeros = [
            arg for arg, v in zip(("block_y", "block_x"), attrs["block"], strict=True) if v == 0
        ]
        zeros += [
            a for a, v in zip(("stride_y", "stride_x"), attrs["stride"], strict=True) if v == 0
        ]
        if zeros:
            base.cannot_run(
                f"{', '.join(zeros)} = 0 (v2's default) leaves the block empty or the stride "
                "zero: v2 built such a layer and divided by zero when it ran. Fix: pass "
                "block_x, block_y, stride_x and stride_y >= 1."
            )
        by, bx = attrs["block"]
        return Spec(channels * by * bx, seq_level=1)

    def apply(self, params, inputs, attrs, *, key, mode):
        c, h, w = attrs["image"]
        (by, bx), (sy, sx), (py, px) = attrs["block"], attrs["stride"], attrs["padding"]
        oy, ox = block_count(h, by, sy, py), block_count(w, bx, sx, px)
        rows = _block_index(h, oy, by, sy, py)  # [oy, by]
        cols = _block_index(w, ox, bx, sx, px)  # [ox, bx]
        x = jnp.pad(inputs[0].reshape(-1, c, h, w), [(0, 0), (0, 0), (0, 1), (0, 1)])
        # index -1 reads the zero row/column appended above
        patches = x[:, :, rows[:, None, :, None], cols[None, :, None, :]]  # [B,C,oy,ox,by,bx]
        steps = patches.transpose(0, 2, 3, 1, 4, 5).reshape(x.shape[0], oy * ox, -1)
        return Seq(steps, jnp.full((x.shape[0],), oy * ox, jnp.int32))


register_kind(BlockExpandKind())


def _block_settings(block_x, block_y, stride_x, stride_y, padding_x, padding_y, name):
    """``(block, stride, padding)`` as ``(y, x)`` pairs; zero blocks and strides (v2's
    defaults) are built, and refused when the layer runs (see ``BlockExpandKind``)."""
    values = [
        int_at_least(v, 0, layer=name, arg=a)
        for v, a in (
            (block_y, "block_y"),
            (block_x, "block_x"),
            (stride_y, "stride_y"),
            (stride_x, "stride_x"),
            (padding_y, "padding_y"),
            (padding_x, "padding_x"),
        )
    ]
    return tuple(values[0:2]), tuple(values[2:4]), tuple(values[4:6])


def _block_image(spec, num_channels, name):
    """The input image and, when ``num_channels`` disagrees with it, the given channels."""
    if num_channels is None or spec.image is None:
        return {"image": input_image(spec, num_channels, layer=name)}
    channels = int_at_least(num_channels, 1, layer=name, arg="num_channels")
    if channels == spec.image[0]:
        return {"image": spec.image}
    return {"image": spec.image, "channels": channels}


@base.layer_function
def block_expand(
    input: Layer,
    block_x: int = 0,
    block_y: int = 0,
    stride_x: int = 0,
    stride_y: int = 0,
    padding_x: int = 0,
    padding_y: int = 0,
    num_channels: int | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Cut an image into blocks and emit them as a sequence (v2's ``im2col``).

    The zero-padded image is covered by ``outH x outW`` blocks of ``block_y x block_x``
    pixels, ``outH = 1 + ceil((H + 2*padding_y - block_y) / stride_y)`` (likewise W);
    blocks running past the padded image read zeros. Step ``t = by*outW + bx`` of the
    output holds block ``(by, bx)`` as ``[C, block_y, block_x]`` values.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        block_x, block_y, stride_x, stride_y: block size and stride (each >= 1; with
            v2's default 0 the layer is built and parsed, as in v2, with a
            ``LayerConfigWarning``, and running it raises ``LayerConfigError``).
        padding_x, padding_y: zero padding on each side.
        num_channels: input channels (default: the input image's channels).
        name: the layer name (default ``__block_expand_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A sequence layer of size ``C * block_y * block_x`` with ``outH * outW`` steps per
        sample (auto name ``__block_expand_layer_<n>__``); no parameters.

    Example:
        >>> steps = paddle.layer.block_expand(input=conv, block_x=1, block_y=3,
        ...                                   stride_x=1, stride_y=1)
    """
    name = base.layer_name(name, "block_expand_layer")
    (inp,) = base.as_layers(input, layer=name)
    block, stride, padding = _block_settings(
        block_x, block_y, stride_x, stride_y, padding_x, padding_y, name
    )
    attrs = {
        **_block_image(inp.spec, num_channels, name),
        "block": block,
        "stride": stride,
        "padding": padding,
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("blockexpand", name=name, inputs=[inp], attrs=attrs)
