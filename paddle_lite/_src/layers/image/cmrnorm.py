"""``img_cmrnorm``: local response normalisation across channels (v2's ``norm`` layer of
type ``cmrnorm-projection``) of a flat NCHW image."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    Kind,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import (
    checked_image,
    input_image,
)
from paddle_lite._src.proto.layers import Message, height_width
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec


def _cmrnorm_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    """The output's ``height`` and ``width`` and the input's ``norm_conf`` (of an image
    input only)."""
    if len(n.attrs.get("image") or ()) != 3:
        return {}
    channels, height, width = n.attrs["image"]
    size = int(n.attrs["size"])
    inputs[0].norm_conf = Message(
        norm_type="cmrnorm-projection", channels=channels, size=size,
        scale=n.attrs["scale"] / size, pow=n.attrs["power"], output_x=width, img_size=width,
        blocked=False, output_y=height, img_size_y=height,
    )  # fmt: skip
    return height_width(n)


def _cmrnorm_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    n = cfg["inputs"][0]["norm_conf"]
    return img_cmrnorm(
        input=ins[0],
        size=n["size"],
        scale=n["scale"] * n["size"],
        power=n["pow"],
        name=cfg["name"],
        num_channels=n["channels"],
    )


class CmrNormKind(Kind):
    name = "img_cmrnorm"
    v2 = V2Layer(type="norm", fields=_cmrnorm_fields, rebuild=_cmrnorm_from_v2)

    def infer_spec(self, inputs, attrs):
        return Spec(inputs[0].size, image=checked_image(inputs[0], attrs["image"]))

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["image"])
        n = attrs["size"]
        before = (n - 1) // 2
        pads = ((0, 0), (before, n - 1 - before), (0, 0), (0, 0))
        sums = lax.reduce_window(jnp.square(x), 0.0, lax.add, (1, n, 1, 1), (1, 1, 1, 1), pads)
        y = x * jnp.power(1.0 + (attrs["scale"] / n) * sums, -attrs["power"])
        return y.reshape(y.shape[0], -1)


register_kind(CmrNormKind())


@base.layer_function
def img_cmrnorm(
    input: Layer,
    size: int,
    scale: float = 0.0128,
    power: float = 0.75,
    name: str | None = None,
    num_channels: int | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Local response normalisation across channels (cross-map LRN).

    ``out[c] = x[c] / (1 + scale/size * sum_{c'} x[c']**2) ** power`` with ``c'`` over
    the ``size`` channels ``c - (size-1)//2 ... c + size - 1 - (size-1)//2`` that exist
    (v2 stores ``scale/size``).

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        size: channels in the window.
        scale, power: as in the formula.
        name: the layer name (default ``__crmnorm_<n>__``).
        num_channels: input channels (default: the input image's channels).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An image layer of the input's shape.

    Example:
        >>> norm = paddle.layer.img_cmrnorm(input=conv, size=5)
    """
    name = base.layer_name(name, "crmnorm")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "image": input_image(inp.spec, num_channels, layer=name),
        "size": base.positive_int(size, layer=name, arg="size"),
        "scale": base.number(scale, layer=name, arg="scale"),
        "power": base.number(power, layer=name, arg="power"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("img_cmrnorm", name=name, inputs=[inp], attrs=attrs)
