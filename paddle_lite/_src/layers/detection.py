"""The SSD feature layers: ``priorbox`` (the default boxes of a feature map) and
``cross_channel_norm`` (L2 normalisation across channels with a learned scale), as v2's
``PriorBoxLayer`` and ``CrossChannelNormLayer`` compute them."""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
from paddle_lite._src.layers import _base
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


def _pixel_priors(attrs: Any) -> list[tuple[float, float]]:
    """``(width, height)`` of the priors at one pixel, in v2's order: per min size its
    square box then (if max sizes are given) ``int(sqrt(min * max))`` boxes for every max
    size; then one box per aspect ratio other than 1 (the ratios, their flips, and 1),
    all of the last min size."""
    boxes: list[tuple[float, float]] = []
    min_size = 0
    for min_size in attrs["min_size"]:
        boxes.append((min_size, min_size))
        for max_size in attrs["max_size"]:
            side = int(math.sqrt(min_size * max_size))
            boxes.append((side, side))
    ratios = [np.float32(r) for r in attrs["aspect_ratio"]]
    ratios += [np.float32(1) / r for r in ratios] + [np.float32(1)]
    for ratio in ratios:
        if abs(float(ratio) - 1.0) < 1e-6:
            continue
        root = np.sqrt(ratio, dtype=np.float32)
        boxes.append((float(np.float32(min_size * root)), float(np.float32(min_size / root))))
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
        n_priors = len(attrs["aspect_ratio"]) * 2 + 1 + len(attrs["max_size"])
        generated = len(_pixel_priors(attrs))
        if generated != n_priors:
            raise LayerConfigError(
                f"min_size={list(attrs['min_size'])}, max_size={list(attrs['max_size'])} and "
                f"aspect_ratio={list(attrs['aspect_ratio'])} generate {generated} priors per "
                f"pixel, but v2 sizes the output for len(aspect_ratio) * 2 + 1 + "
                f"len(max_size) = {n_priors} (v2 wrote past or short of its buffer). Pass one "
                "min_size (and at most one max_size) per priorbox layer, and no aspect ratio 1."
            )
        return Spec(layer_h * layer_w * n_priors * 8)

    def apply(self, params, inputs, attrs, *, key, mode):
        rows = jnp.asarray(prior_rows(attrs))
        return jnp.broadcast_to(rows, (inputs[0].shape[0], rows.shape[0]))


register_kind(PriorBoxKind())


def _image_hw(layer, *, name: str, arg: str) -> tuple[int, int]:  # noqa: ANN001
    if layer.spec.image is None:
        raise LayerConfigError(
            f"layer '{name}': {arg} '{layer.name}' (size {layer.spec.size}) is not an image; "
            "expected an image layer (a convolution output, or a data layer with height= and "
            "width=)."
        )
    return layer.spec.image[1], layer.spec.image[2]


@_base.layer_function
def priorbox(input, image, aspect_ratio, variance, min_size, max_size=[], name=None):  # noqa: A002, B006
    """The SSD prior (default) boxes of a feature map, with their variances (v2 ``priorbox``).

    At each pixel ``(h, w)`` of ``input`` (``H x W``), centred at
    ``((w + 0.5) * imgW / W, (h + 0.5) * imgH / H)`` in the image's pixels, the priors
    are: a ``min_size`` square; if ``max_size`` is given, a square of side
    ``int(sqrt(min_size * max_size))``; and for each ratio ``r`` in ``aspect_ratio`` and
    its flip ``1/r`` (ratio 1 skipped) a box ``min_size * sqrt(r)`` wide and
    ``min_size / sqrt(r)`` high. Coordinates are divided by the image size and clipped
    to ``[0, 1]``. The values do not depend on the data, only on the two shapes.

    Args:
        input: the feature map (an image layer, e.g. a convolution).
        image: the network's input image (an image layer: data with height= and width=).
        aspect_ratio: the aspect ratios (list), each also used flipped.
        variance: the four variances stored with every prior.
        min_size: the minimum box side in pixels (a list; v2 supports one entry).
        max_size: the maximum box side (a list, empty or one entry).

    Returns:
        A layer of size ``H * W * (2 * len(aspect_ratio) + 1 + len(max_size)) * 8``: per
        prior ``[xmin, ymin, xmax, ymax, var0, var1, var2, var3]`` (the same row for every
        image of a batch).

    Example:
        >>> prior = paddle.layer.priorbox(input=conv, image=img, aspect_ratio=[2.0],
        ...     variance=[0.1, 0.1, 0.2, 0.2], min_size=[3], max_size=[6])
        >>> prior.size  # 8 x 8 pixels, 4 priors each, 8 numbers per prior
        2048
    """
    name = _base.layer_name(name, "priorbox")
    inp = _base.as_layer(input, layer=name, arg="input")
    img = _base.as_layer(image, layer=name, arg="image")
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
    return _base.build("priorbox", name=name, inputs=[inp, img], attrs=attrs)


# cross_channel_norm -------------------------------------------------------------------
@jax.custom_vjp
def normalize_channels(x: Any, scale: Any) -> Any:
    """``scale[c] * x[c] / ||x[:, pixel]||`` over ``x [B, C, pixels]``, ``scale [C]``."""
    return x / jnp.sqrt(jnp.sum(x * x, axis=1, keepdims=True)) * scale[None, :, None]


def _norm_fwd(x, scale):  # noqa: ANN001, ANN202
    norm = jnp.sqrt(jnp.sum(x * x, axis=1, keepdims=True))
    return x / norm * scale[None, :, None], (x, scale, norm)


def _norm_bwd(res, g):  # noqa: ANN001, ANN202
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
        return [ParamDecl("w0", (channels, 1), ("param", 0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0]
        c = params["w0"].shape[0]
        out = normalize_channels(x.reshape(x.shape[0], c, -1), params["w0"][:, 0])
        return out.reshape(x.shape)


register_kind(CrossChannelNormKind())


@_base.layer_function
def cross_channel_norm(input, name=None, param_attr=None):  # noqa: A002
    """L2 normalisation across the channels of each pixel, with a learned scale per channel
    (v2 ``cross_channel_norm``, SSD's conv4_3 norm).

    .. math:: out[c, p] = scale[c] \\cdot x[c, p] / \\sqrt{\\sum_{c'} x[c', p]^2}

    As in v2 no epsilon is added (a pixel whose channels are all 0 gives NaN). The input
    gradient is v2's, ``scale[c] (g - x \\langle x, g \\rangle / n^2) / n``, which is the
    exact gradient when all scales are equal.

    Args:
        input: an image layer of ``C`` channels.
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
    name = _base.layer_name(name, "cross_channel_norm")
    inp = _base.as_layer(input, layer=name, arg="input")
    if inp.spec.image is None or inp.spec.dtype != "float32" or inp.spec.seq_level:
        raise LayerConfigError(
            f"layer '{name}': input '{inp.name}' (size {inp.spec.size}) is not a dense image; "
            "expected an image layer with channels (v2: input.num_filters must be set)."
        )
    attr = attrs_mod.as_param_attr(param_attr, layer=name, arg="param_attr")
    return _base.build("cross_channel_norm", name=name, inputs=[inp], attrs={}, param_attrs=[attr])
