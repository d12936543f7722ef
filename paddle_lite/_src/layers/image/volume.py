"""Geometry of 3-D images (volumes) shared by img_conv3d, img_pool3d and 3-D batch_norm.

A volume travels flat, ``[batch, C*D*H*W]`` in NCDHW order. Its spec keeps the 2-D
image convention with depth folded into the channels, ``image = (C*D, H, W)``, as a
data layer declared with ``depth=`` does; the depth itself is an attribute of the
layer that made it: ``depth`` of a data layer, ``out_depth`` of the 3-D layers. Per-axis
settings are stored ``(z, y, x)``, i.e. (depth, height, width).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers.image.geometry import int_at_least, plain_dense
from paddle_lite._src.specs import Spec

Volume = tuple[int, int, int, int]  # (C, D, H, W)


def depth_of(layer: Layer) -> int:
    """The depth of ``layer``'s output: a data layer's ``depth=``, a 3-D layer's output
    depth, else 1 (v2's default for layers that do not set one)."""
    if layer.kind == "data":
        return int(layer.attrs.get("depth") or 1)
    return int(layer.attrs.get("out_depth") or 1)


def input_volume(layer: Layer, num_channels: Any, *, name: str) -> Volume:
    """``(C, D, H, W)`` of ``layer``'s output, as v2's ``get_img3d_size`` reads it.

    Height and width come from the input image, the depth from ``depth_of``, and
    the channels from ``num_channels`` (else the image's channels divided by the depth);
    ``C*D*H*W`` must equal the input size.
    """
    spec = layer.spec
    plain_dense(spec, layer=name)
    if spec.image is None:
        raise LayerConfigError(
            f"layer '{name}': the input '{layer.name}' (size {spec.size}) is not an image; "
            "give the data layer height=, width= and depth=."
        )
    folded, h, w = spec.image
    d = depth_of(layer)
    if num_channels is None:
        if folded % d:
            raise LayerConfigError(
                f"layer '{name}': the input image has {folded} channels, not a multiple of its "
                f"depth {d}; pass num_channels=."
            )
        return folded // d, d, h, w
    c = int_at_least(num_channels, 1, layer=name, arg="num_channels")
    if c * d * h * w != spec.size:
        raise LayerConfigError(
            f"layer '{name}': input size {spec.size} != num_channels * depth * height * width "
            f"= {c} * {d} * {h} * {w} = {c * d * h * w} (v2: 'Incorrect input image size')."
        )
    return c, d, h, w


def volume_spec(volume: Volume) -> Spec:
    """The spec of a ``(C, D, H, W)`` output: size ``C*D*H*W``, image ``(C*D, H, W)``."""
    c, d, h, w = volume
    return Spec(c * d * h * w, image=(c * d, h, w))


def triple(value: Any, minimum: int, *, layer: str, arg: str) -> tuple[int, int, int]:
    """``(z, y, x)`` from v2's ``arg``: one int for all three axes or an ``(x, y, z)`` list."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 3:
            raise LayerConfigError(
                f"layer '{layer}': {arg} must be an int or an (x, y, z) sequence of 3; "
                f"received {value!r}."
            )
        x, y, z = (int_at_least(v, minimum, layer=layer, arg=arg) for v in value)
        return z, y, x
    n = int_at_least(value, minimum, layer=layer, arg=arg)
    return n, n, n


def checked_volume(spec: Spec, volume: Volume) -> Volume:
    c, d, h, w = volume
    if c * d * h * w != spec.size:
        raise LayerConfigError(
            f"input size {spec.size} does not hold the volume (C, D, H, W) = {tuple(volume)}."
        )
    return tuple(volume)  # type: ignore[return-value]


def output_volume(spec: Spec, attrs, channels: int, size_of) -> Volume:
    """``(channels, outD, outH, outW)`` with ``size_of(in_size, axis)`` per axis (0 = z)."""
    _, d, h, w = checked_volume(spec, attrs["volume"])
    out = tuple(size_of(n, i) for i, n in enumerate((d, h, w)))
    if min(out) < 1:
        keys = ("filter_size", "pool_size", "stride", "padding")
        settings = ", ".join(f"{k}={attrs[k]}" for k in keys if k in attrs)
        raise LayerConfigError(
            f"the output volume would be {out[0]}x{out[1]}x{out[2]} (D x H x W) for an input "
            f"of {d}x{h}x{w} with {settings} (each (z, y, x)); expected at least 1x1x1."
        )
    return (channels, *out)
