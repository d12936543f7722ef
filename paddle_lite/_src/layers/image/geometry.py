"""Image geometry shared by the image layers: argument pairs and the (C, H, W) of values.

Images travel flat, ``[batch, C*H*W]`` in NCHW order; each image kind reshapes to
``[batch, C, H, W]`` with the input geometry resolved when the layer is built
(``attrs["image"]``) and flattens its output back. Per-axis settings are stored
``(y, x)``, i.e. (height, width). These helpers check the settings and derive the
input and output images.
"""

from __future__ import annotations

import math
from typing import Any

from paddle_lite._src.attrs import whole
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.specs import Spec


def int_at_least(value: Any, minimum: int, *, layer: str, arg: str) -> int:
    """``value`` as an int ``>= minimum`` (a whole float too, see ``attrs.whole``); a typed
    error naming ``arg`` otherwise."""
    number = whole(value)
    if number is None:
        raise LayerTypeError(f"layer '{layer}': {arg} must be an int; received {value!r}.")
    if number < minimum:
        raise LayerConfigError(f"layer '{layer}': {arg} must be >= {minimum}; received {value}.")
    return number


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


def flat_image(size: int, channels: int) -> tuple[int, int, int] | None:
    """The ``(C, H, W)`` v2's config_parser (``get_img_size``) gave ``size`` values of
    ``channels`` channels without a width and height: ``W = int(sqrt(pixels))``,
    ``H = pixels / W``; None where that does not hold the pixels (v2 refused those)."""
    pixels, rest = divmod(size, channels)
    width = math.isqrt(pixels)
    if rest or width == 0 or pixels % width:
        return None
    return (channels, pixels // width, width)


def input_image(spec: Spec, num_channels: Any, *, layer: str) -> tuple[int, int, int]:
    """``(C, H, W)`` of an input: its image spec, or v2's image of ``num_channels``
    (see ``flat_image``)."""
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
    image = flat_image(spec.size, channels)
    if image is None:
        raise LayerConfigError(
            f"layer '{layer}': input size {spec.size} / num_channels {channels} is not an "
            "image v2 could shape (v2 took width = int(sqrt(size / num_channels)) and "
            "height = size / num_channels / width, and refused sizes those do not fill); "
            "give the data layer height= and width=."
        )
    return image


def checked_image(spec: Spec, image: tuple[int, int, int]) -> tuple[int, int, int]:
    if math.prod(image) != spec.size:
        raise LayerConfigError(
            f"input size {spec.size} does not hold the image (C, H, W) = {tuple(image)}."
        )
    return tuple(image)  # type: ignore[return-value]


def output_image(spec: Spec, attrs, size_of) -> tuple[int, int, int]:
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
