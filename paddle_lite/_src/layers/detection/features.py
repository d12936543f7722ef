"""The SSD feature layers: ``priorbox`` (the default boxes of a feature map) and
``cross_channel_norm`` (L2 normalisation across channels with a learned scale), as v2's
``PriorBoxLayer`` and ``CrossChannelNormLayer`` compute them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec


# priorbox ---------------------------------------------------------------------------
def _numbers(value: Any, *, layer: str, arg: str, cast: type) -> tuple[Any, ...]:
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, float, np.number)):
            raise LayerTypeError(
                f"layer '{layer}': {arg} must be a list of numbers; received {value!r}."
            )
        out.append(cast(item))
    return tuple(out)


def _ratios(aspect_ratio: tuple[float, ...]) -> list[np.float32]:
    """v2's aspect ratios: 1, then each given ratio other than 1 followed by its flip."""
    ratios = [np.float32(1.0)]
    for ratio in aspect_ratio:
        if abs(ratio - 1.0) >= 1e-6:
            ratios += [np.float32(ratio), np.float32(1.0 / np.float32(ratio))]
    return ratios


def _pixel_priors(attrs: Any) -> list[tuple[float, float]]:
    """``(width, height)`` of the priors at one pixel, in v2's order: per min size, its
    square, then (with max sizes) a square of side ``sqrt(min * max)``, then a
    ``min * sqrt(r)`` by ``min / sqrt(r)`` box per aspect ratio ``r`` other than 1."""
    boxes: list[tuple[float, float]] = []
    maxes = attrs["max_size"]
    for s, min_size in enumerate(np.float32(m) for m in attrs["min_size"]):
        boxes.append((min_size, min_size))
        if maxes:
            side = np.float32(np.sqrt(min_size * np.float32(maxes[s])))
            boxes.append((side, side))
        for ratio in _ratios(attrs["aspect_ratio"])[1:]:
            root = np.sqrt(ratio, dtype=np.float32)
            boxes.append((np.float32(min_size * root), np.float32(min_size / root)))
    return boxes


def prior_rows(attrs: Any) -> np.ndarray:
    """The priorbox value of one image, ``[H * W * priors * 8]`` float32 (v2's loops)."""
    layer_h, layer_w = attrs["layer_hw"]
    image_h, image_w = attrs["image_hw"]
    step_w = np.float32(image_w) / np.float32(layer_w)
    step_h = np.float32(image_h) / np.float32(layer_h)
    boxes = np.asarray(_pixel_priors(attrs), np.float64)
    cx = np.float32((np.arange(layer_w) + 0.5) * step_w).astype(np.float64)
    cy = np.float32((np.arange(layer_h) + 0.5) * step_h).astype(np.float64)
    cx, cy = np.meshgrid(cx, cy)  # [H, W]
    cx, cy = cx[..., None], cy[..., None]
    bw, bh = boxes[:, 0], boxes[:, 1]
    coords = np.stack(
        [
            (cx - bw / 2.0) / image_w,
            (cy - bh / 2.0) / image_h,
            (cx + bw / 2.0) / image_w,
            (cy + bh / 2.0) / image_h,
        ],
        axis=-1,
    ).astype(np.float32)
    coords = np.clip(coords, 0.0, 1.0)
    var = np.broadcast_to(np.asarray(attrs["variance"], np.float32), coords.shape)
    return np.concatenate([coords, var], axis=-1).reshape(-1)


class PriorBoxKind(Kind):
    name = "priorbox"

    def infer_spec(self, inputs, attrs):
        layer_h, layer_w = attrs["layer_hw"]
        return Spec(layer_h * layer_w * len(_pixel_priors(attrs)) * 8)

    def apply(self, params, inputs, attrs, *, key, mode):
        rows = jnp.asarray(prior_rows(attrs))
        return jnp.broadcast_to(rows, (inputs[0].shape[0], rows.shape[0]))


register_kind(PriorBoxKind())


def _image_hw(layer, *, name: str, arg: str) -> tuple[int, int]:
    if layer.spec.image is None:
        raise LayerConfigError(
            f"layer '{name}': {arg} '{layer.name}' (size {layer.spec.size}) is not an image; "
            "expected an image layer (a convolution output, or a data layer with height= and "
            "width=)."
        )
    return layer.spec.image[1], layer.spec.image[2]


@base.layer_function
def priorbox(
    input: Layer,
    image: Layer,
    aspect_ratio: Sequence[float],
    variance: Sequence[float],
    min_size: Sequence[int],
    max_size: Sequence[int] = [],
    name: str | None = None,
) -> Layer:
    """The SSD prior (default) boxes of a feature map, with their variances (v2 ``priorbox``).

    At each pixel ``(h, w)`` of ``input`` (``H x W``), centred at
    ``((w + 0.5) * imgW / W, (h + 0.5) * imgH / H)`` in the image's pixels, the priors
    are, for each ``m = min_size[s]``: an ``m`` square; if ``max_size`` is given, a
    square of side ``sqrt(m * max_size[s])``; and for each ratio ``r`` of
    ``aspect_ratio`` other than 1, then its flip ``1/r``, a box ``m * sqrt(r)`` wide and
    ``m / sqrt(r)`` high. Coordinates are divided by the image size and clipped to
    ``[0, 1]``. The values do not depend on the data, only on the two shapes.

    Args:
        input: the feature map (an image layer, e.g. a convolution).
        image: the network's input image (an image layer: data with height= and width=).
        aspect_ratio: the aspect ratios (list), each also used flipped.
        variance: the four variances stored with every prior.
        min_size: the minimum box sides in pixels (a list of ints).
        max_size: the maximum box sides (a list of ints, empty or one per min size).
        name: the layer name (default ``__priorbox_<n>__``).

    Returns:
        A layer of ``priors = len(min_size) * (1 + 2 * ratios) + len(max_size)`` priors per
        pixel (``ratios``: the aspect ratios other than 1) and size ``H * W * priors * 8``:
        per prior ``[xmin, ymin, xmax, ymax, var0, var1, var2, var3]``, the same for every
        image of a batch. (v2's config declared ``(2 * len(aspect_ratio) + 1 +
        len(max_size))`` priors, which is the same for one min size and no ratio 1.)

    Example:
        >>> prior = paddle.layer.priorbox(input=conv, image=img, aspect_ratio=[2.0],
        ...     variance=[0.1, 0.1, 0.2, 0.2], min_size=[3], max_size=[6])
        >>> prior.size  # 8 x 8 pixels, 4 priors each, 8 numbers per prior
        2048
    """
    name = base.layer_name(name, "priorbox")
    inp = base.as_layer(input, layer=name, arg="input")
    img = base.as_layer(image, layer=name, arg="image")
    variance = _numbers(variance, layer=name, arg="variance", cast=float)
    if len(variance) != 4:
        raise LayerConfigError(
            f"layer '{name}': variance has {len(variance)} values; expected 4 (v2: 'The "
            "variance must have 4 inputs')."
        )
    min_sizes = _numbers(min_size, layer=name, arg="min_size", cast=int)
    max_sizes = _numbers(max_size, layer=name, arg="max_size", cast=int)
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise LayerConfigError(
            f"layer '{name}': max_size has {len(max_sizes)} entries and min_size "
            f"{len(min_sizes)}; expected as many (or no max_size)."
        )
    attrs = {
        "layer_hw": _image_hw(inp, name=name, arg="input"),
        "image_hw": _image_hw(img, name=name, arg="image"),
        "aspect_ratio": _numbers(aspect_ratio, layer=name, arg="aspect_ratio", cast=float),
        "variance": variance,
        "min_size": min_sizes,
        "max_size": max_sizes,
    }
    return base.build("priorbox", name=name, inputs=[inp, img], attrs=attrs)


# cross_channel_norm -------------------------------------------------------------------
EPS = 1e-6  # v2 adds it to the sum of squares


@jax.custom_vjp
def normalize_channels(x: Any, scale: Any) -> Any:
    """``scale[c] * x[c] / sqrt(||x[:, pixel]||^2 + 1e-6)`` over ``x [B, C, pixels]``,
    ``scale [C]``."""
    return _norm_fwd(x, scale)[0]


def _norm_fwd(x, scale):
    norm = jnp.sqrt(jnp.sum(x * x, axis=1, keepdims=True) + EPS)
    return x / norm * scale[None, :, None], (x, scale, norm)


def _norm_bwd(res, g):
    """v2's backward: ``d scale`` exactly; ``d x = scale[c] (g - x <x, g> / n^2) / n`` (v2
    scales the projection term by the channel's own scale, which equals the true gradient
    when the scales are equal)."""
    x, scale, norm = res
    d_scale = jnp.sum(g * x / norm, axis=(0, 2))
    dot = jnp.sum(x * g, axis=1, keepdims=True)
    d_x = (g - x * dot / (norm * norm)) / norm * scale[None, :, None]
    return d_x, d_scale


normalize_channels.defvjp(_norm_fwd, _norm_bwd)


class CrossChannelNormKind(Kind):
    name = "cross_channel_norm"

    def infer_spec(self, inputs, attrs):
        return Spec(inputs[0].size, image=inputs[0].image)

    def param_specs(self, inputs, attrs):
        channels = inputs[0].image[0]
        return [ParamDecl("w0", (channels, 1), ParamAttrAt(0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0]
        c = params["w0"].shape[0]
        out = normalize_channels(x.reshape(x.shape[0], c, -1), params["w0"][:, 0])
        return out.reshape(x.shape)


register_kind(CrossChannelNormKind())


@base.layer_function
def cross_channel_norm(
    input: Layer,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
) -> Layer:
    """L2 normalisation across the channels of each pixel, with a learned scale per channel
    (v2 ``cross_channel_norm``, SSD's conv4_3 norm).

    $$
    out[c, p] = scale[c] \\cdot x[c, p] / n_p, \\quad
    n_p = \\sqrt{\\sum_{c'} x[c', p]^2 + 10^{-6}}
    $$

    The input gradient is v2's, ``scale[c] (g - x \\langle x, g \\rangle / n^2) / n``,
    which is the exact gradient when all scales are equal.

    Args:
        input: an image layer of ``C`` channels.
        name: the layer name (default ``__cross_channel_norm_<n>__``).
        param_attr: the scale's ``paddle.attr.Param`` (SSD sets ``initial_mean=20``,
            ``initial_std=0``); default v2's smart init ``N(0, 1/sqrt(C))``.

    Returns:
        An image layer of the input's shape; parameter ``_<name>.w0`` of shape ``[C, 1]``.

    Example:
        >>> norm = paddle.layer.cross_channel_norm(
        ...     input=conv, param_attr=paddle.attr.Param(initial_mean=20.0, initial_std=0.0))
        >>> norm.size
        256
    """
    name = base.layer_name(name, "cross_channel_norm")
    inp = base.as_layer(input, layer=name, arg="input")
    if inp.spec.image is None or inp.spec.dtype != "float32" or inp.spec.seq_level:
        raise LayerConfigError(
            f"layer '{name}': input '{inp.name}' (size {inp.spec.size}) is not a dense image; "
            "expected an image layer with channels (v2: input.num_filters must be set)."
        )
    attr = attrs_mod.as_param_attr(param_attr, layer=name, arg="param_attr")
    return base.build("cross_channel_norm", name=name, inputs=[inp], attrs={}, param_attrs=[attr])
