"""Image re-layout layers: switch_order, crop, resize, scale_sub_region.

Images travel flat in NCHW order (see ``image.geometry``). ``switch_order`` and
``resize`` may change the number of rows, as in v2: ``switch_order`` with
``reshape_axis > 1`` emits one row per pixel, ``resize`` re-cuts the whole batch
matrix into rows of ``size`` values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from paddle_lite._src.activations import BaseActivation, Linear, as_activation
from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import checked_image, input_image, int_at_least
from paddle_lite._src.specs import Spec


# switch_order ------------------------------------------------------------------------
class SwitchOrderKind(Kind):
    name = "switch_order"

    def infer_spec(self, inputs, attrs):
        c, h, w = checked_image(inputs[0], attrs["image"])
        return Spec(math.prod((h, w, c)[attrs["reshape_axis"] - 1 :]))

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["image"]).transpose(0, 2, 3, 1)  # NHWC
        return x.reshape(-1, math.prod(x.shape[attrs["reshape_axis"] :]))


register_kind(SwitchOrderKind())


@base.layer_function
def switch_order(
    input: Layer,
    name: str | None = None,
    reshape_axis: int | None = None,
    act: BaseActivation | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Switch an image from NCHW to NHWC order, then cut it into rows at ``reshape_axis``.

    ``out[n, y, x, c] = in[n, c, y, x]``; the NHWC dims ``[N, H, W, C]`` before
    ``reshape_axis`` become rows and the rest columns (v2's ``height`` axes
    ``0 .. reshape_axis-1`` and ``width`` axes ``reshape_axis .. 3``): ``reshape_axis=1``
    keeps one row per sample of ``H*W*C`` values, ``3`` gives ``N*H*W`` rows of ``C``
    values. As in v2 the activation is not applied; a 3-D input is switched as an image
    whose channels hold the depth (v2's runtime does the same).

    Args:
        input: an image layer.
        name: the layer name (default ``__switch_order_<n>__``).
        reshape_axis: 1, 2 or 3 (required).
        act: kept for v2's signature; not applied (default ``Linear``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``prod([H, W, C][reshape_axis-1:])`` (auto name
        ``__switch_order_<n>__``) whose rows are ``N * prod([H, W, C][:reshape_axis-1])``.

    Example:
        >>> nhwc = paddle.layer.switch_order(input=conv, reshape_axis=3)
    """
    name = base.layer_name(name, "switch_order")
    (inp,) = base.as_layers(input, layer=name)
    if isinstance(reshape_axis, bool) or reshape_axis not in (1, 2, 3):
        raise LayerConfigError(
            f"layer '{name}': reshape_axis must be 1, 2 or 3 (the first NHWC axis of a row); "
            f"received {reshape_axis!r}."
        )
    attrs = {
        "image": input_image(inp.spec, None, layer=name),
        "reshape_axis": reshape_axis,
        "activation": as_activation(Linear() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("switch_order", name=name, inputs=[inp], attrs=attrs)


# crop --------------------------------------------------------------------------------
class CropKind(Kind):
    name = "crop"

    def infer_spec(self, inputs, attrs):
        checked_image(inputs[0], attrs["image"])
        c, h, w = attrs["out_image"]
        return Spec(c * h * w, image=(c, h, w))

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["image"])
        (c0, h0, w0), (c, h, w) = attrs["corner"], attrs["out_image"]
        y = x[:, c0 : c0 + c, h0 : h0 + h, w0 : w0 + w]
        return y.reshape(y.shape[0], -1)


register_kind(CropKind())


def _crop_corner(offset: Any, axis: int, *, layer: str) -> tuple[int, int, int, int]:
    """v2's crop corner over ``[N, C, H, W]``: ``offset[i - axis]`` for ``i >= axis``
    (one offset serves every cropped axis)."""
    if isinstance(offset, int) and not isinstance(offset, bool):
        offset = [offset]
    if not isinstance(offset, (list, tuple)) or not offset:
        raise LayerTypeError(
            f"layer '{layer}': offset must be an int or a non-empty list of ints; "
            f"received {offset!r}."
        )
    offsets = [int_at_least(o, 0, layer=layer, arg="offset") for o in offset]
    if len(offsets) > 1 and len(offsets) < 4 - axis:
        raise LayerConfigError(
            f"layer '{layer}': offset {offsets} gives too few entries for the "
            f"{4 - axis} axes cropped from axis {axis}; give one offset or {4 - axis}."
        )
    corner = [0, 0, 0, 0]
    for i in range(axis, 4):
        corner[i] = offsets[i - axis] if len(offsets) > 1 else offsets[0]
    if corner[0]:
        raise LayerConfigError(
            f"layer '{layer}': the batch axis cannot be cropped (offset {corner[0]})."
        )
    return tuple(corner)  # type: ignore[return-value]


def _crop_target(image, axis: int, shape: Any, reference: Any, *, layer: str):
    """The cropped ``(C, H, W)``: the reference's H and W (channels stay the input's,
    as v2's runtime takes them), or ``shape`` ``[N, C, H, W]``; axes before ``axis`` keep
    the input's size."""
    if reference is not None:
        ref = input_image(reference.spec, None, layer=layer)
        target = (image[0], ref[1], ref[2])
    else:
        if not isinstance(shape, (list, tuple)) or len(shape) != 4:
            raise LayerConfigError(
                f"layer '{layer}': crop needs a reference input or shape=[N, C, H, W] (4 "
                f"ints); received shape={shape!r}."
            )
        target = tuple(int_at_least(s, 1, layer=layer, arg="shape") for s in shape[1:])
    return tuple(
        t if i + 1 >= axis else n for i, (n, t) in enumerate(zip(image, target, strict=True))
    )


@base.layer_function
def crop(
    input: Layer | Sequence[Layer],
    offset: int | Sequence[int],
    axis: int = 2,
    shape: Sequence[int] | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Crop an NCHW image at ``offset`` to a reference image's size or to ``shape``.

    ``out[c, y, x] = in[c + oc, y + oh, x + ow]``. Axes ``axis .. 3`` of ``[N, C, H, W]``
    are cropped: their corner is ``offset[i - axis]`` (one offset serves them all) and
    their size comes from the reference input (its height and width; the channels stay
    the input's, as in v2's runtime) or from ``shape``; earlier axes are kept whole.

    Args:
        input: an image layer, or ``[image, reference]``.
        offset: the crop corner, one int or one per cropped axis.
        axis: the first cropped axis, 1 (channels), 2 (height, default) or 3 (width).
        shape: ``[N, C, H, W]`` target when there is no reference.
        name: the layer name (default ``__crop_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer of the cropped ``(C, H, W)`` (auto name ``__crop_layer_<n>__``).

    Example:
        >>> small = paddle.layer.crop(input=conv, offset=[1, 1], axis=2, shape=[1, 4, 6, 6])
        >>> small.size
        144
    """
    name = base.layer_name(name, "crop_layer")
    inputs = base.as_layers(input, layer=name)
    if len(inputs) > 2:
        raise LayerConfigError(f"layer '{name}': crop takes 1 or 2 inputs; received {len(inputs)}.")
    axis = int_at_least(axis, 0, layer=name, arg="axis")
    if axis > 3:
        raise LayerConfigError(f"layer '{name}': axis must be 0 .. 3 (NCHW); received {axis}.")
    image = input_image(inputs[0].spec, None, layer=name)
    corner = _crop_corner(offset, axis, layer=name)[1:]
    out = _crop_target(image, axis, shape, inputs[1] if len(inputs) == 2 else None, layer=name)
    for n, o, k, what in zip(image, corner, out, "CHW", strict=True):
        if o + k > n:
            raise LayerConfigError(
                f"layer '{name}': cropping {k} {what} from offset {o} runs past the input's "
                f"{n} (input (C, H, W) = {image}, crop {out} at {corner})."
            )
    attrs = {
        "image": image,
        "corner": corner,
        "out_image": out,
        "axis": axis,
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("crop", name=name, inputs=inputs, attrs=attrs)


# resize ------------------------------------------------------------------------------
class ResizeKind(Kind):
    name = "resize"

    def infer_spec(self, inputs, attrs):
        base.expect(inputs[0], mode="dense")
        if inputs[0].seq_level:
            raise LayerConfigError(
                "resize takes a non-sequence input (v2 drops sequence information); "
                f"received sequence level {inputs[0].seq_level}."
            )
        return Spec(attrs["size"])

    def apply(self, params, inputs, attrs, *, key, mode):
        x, size = inputs[0], attrs["size"]
        if x.size % size:
            raise LayerConfigError(
                f"resize: the batch holds {x.shape[0]} x {x.shape[1]} = {x.size} values, not a "
                f"multiple of size {size} (v2 checks (height * width) % size == 0)."
            )
        return x.reshape(-1, size)


register_kind(ResizeKind())


@base.layer_function
def resize(input: Layer, size: int, name: str | None = None) -> Layer:
    """Re-cut the batch matrix ``[N, D]`` into rows of ``size`` values: ``[N*D/size, size]``.

    The values keep their row-major order; ``N*D`` must be a multiple of ``size`` when
    the layer runs (v2 checks it then too).

    Args:
        input: a dense non-sequence layer.
        size: the output row width.
        name: the layer name (default ``__resize_<n>__``).

    Returns:
        A layer of size ``size`` with ``N*D/size`` rows (auto name ``__resize_<n>__``).

    Example:
        >>> halves = paddle.layer.resize(input=x, size=4)
        >>> halves.size
        4
    """
    name = base.layer_name(name, "resize")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {"size": base.positive_int(size, layer=name, arg="size")}
    return base.build("resize", name=name, inputs=[inp], attrs=attrs)


# scale_sub_region --------------------------------------------------------------------
class ScaleSubRegionKind(Kind):
    name = "scale_sub_region"

    def infer_spec(self, inputs, attrs):
        c, h, w = checked_image(inputs[0], attrs["image"])
        why = " ([C_start, C_end, H_start, H_end, W_start, W_end] per sample)"
        base.expect(inputs[1], "indices", "dense", size=6, why=why)
        if inputs[1].seq_level:
            raise LayerConfigError("indices must not be a sequence.")
        return Spec(c * h * w, image=(c, h, w))

    def apply(self, params, inputs, attrs, *, key, mode):
        x, idx = inputs[0].reshape(-1, *attrs["image"]), inputs[1]
        inside = None
        for axis, n in enumerate(attrs["image"]):
            pos = np.arange(n, dtype=np.float32)
            start = jnp.trunc(idx[:, 2 * axis] - 1.0)[:, None]  # v2: int(start - 1)
            end = idx[:, 2 * axis + 1][:, None]
            ok = (pos >= start) & (pos < end)  # [N, n]
            shape = [-1, 1, 1, 1]
            shape[axis + 1] = n
            ok = ok.reshape(shape)
            inside = ok if inside is None else inside & ok
        y = jnp.where(inside, x * attrs["value"], x)
        return y.reshape(y.shape[0], -1)


register_kind(ScaleSubRegionKind())


@base.layer_function
def scale_sub_region(input: Layer, indices: Layer, value: float, name: str | None = None) -> Layer:
    """Multiply a box of each image by ``value``; the box comes per sample from ``indices``.

    Row ``n`` of ``indices`` is ``[C_start, C_end, H_start, H_end, W_start, W_end]``,
    1-based and inclusive: ``out[n, c, y, x] = value * in[n, c, y, x]`` inside the box,
    ``in[n, c, y, x]`` elsewhere. The gradient is scaled the same way.

    Args:
        input: an image layer.
        indices: a dense layer of size 6.
        value: the factor (a number).
        name: the layer name (default ``__scale_sub_region_<n>__``).

    Returns:
        An image layer of the input's shape (auto name ``__scale_sub_region_<n>__``).

    Example:
        >>> box = paddle.layer.data(name="box", type=paddle.data_type.dense_vector(6))
        >>> dim = paddle.layer.scale_sub_region(input=conv, indices=box, value=0.5)
    """
    name = base.layer_name(name, "scale_sub_region")
    (inp,) = base.as_layers(input, layer=name)
    (idx,) = base.as_layers(indices, layer=name, arg="indices")
    attrs = {
        "image": input_image(inp.spec, None, layer=name),
        "value": base.number(value, layer=name, arg="value"),
    }
    return base.build("scale_sub_region", name=name, inputs=[inp, idx], attrs=attrs)
