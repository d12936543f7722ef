"""The image fields v2's ModelConfig writes for convolution, pooling and batch_norm layers.

v2's config parser gives an ``exconv``/``exconvt`` layer's first input a ``conv_conf``, a
``pool`` layer's a ``pool_conf``, a ``norm`` (``img_cmrnorm``) layer's a ``norm_conf`` and
a ``batch_norm`` layer's an ``image_conf``, and the layers themselves ``num_filters``,
``epsilon`` and their output ``height`` and ``width`` (and any layer its ``drop_rate``).
Programs that convert v2 models read them (MMdnn's PaddleParser reads every field below
from ``parse_network``'s result). Sizes follow v2's x (width) / y (height) naming; the
values are checked against v2's golden configs in
``tests/integration/test_v2_golden_image_confs.py``.

Example:
    ```python
    conf = paddle.layer.parse_network(conv)
    spec = conf.layers[1].inputs[0].conv_conf
    spec.filter_size, spec.filter_size_y, spec.output_x   # x, y, output width
    ```
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from paddle_lite._src.graph import Layer

# string fields v2 leaves unset rather than writing an empty string.
UNSET_IF_EMPTY = frozenset({"bias_parameter_name", "input_parameter_name"})


class Message(SimpleNamespace):
    """A ModelConfig message: its fields as attributes, and protobuf's ``HasField``."""

    def HasField(self, name: str) -> bool:
        """Whether v2 would have set field ``name``: it is written here and, for the
        names v2 leaves unset when empty, not ``""``."""
        value = getattr(self, name, None)
        return value is not None and not (name in UNSET_IF_EMPTY and value == "")


def _yx(pair: Any) -> tuple[int, int]:
    y, x = pair
    return int(y), int(x)


def _conv_conf(n: Layer) -> Message:
    channels, height, width = n.attrs["image"]
    _, out_h, out_w = n.spec.image
    fy, fx = _yx(n.attrs["filter_size"])
    sy, sx = _yx(n.attrs["stride"])
    py, px = _yx(n.attrs["padding"])
    dy, dx = _yx(n.attrs["dilation"])
    groups = int(n.attrs["groups"])
    trans = bool(n.attrs.get("trans"))
    # a transposed convolution's "image" is its output and its "output" its input
    img, out = ((out_w, out_h), (width, height)) if trans else ((width, height), (out_w, out_h))
    filter_channels = (n.attrs["num_filters"] if trans else channels) // groups
    return Message(
        filter_size=fx, channels=channels, stride=sx, padding=px, groups=groups,
        filter_channels=filter_channels, output_x=out[0], img_size=img[0], caffe_mode=True,
        filter_size_y=fy, padding_y=py, stride_y=sy, output_y=out[1], img_size_y=img[1],
        dilation=dx, dilation_y=dy,
    )  # fmt: skip


def _pool_conf(n: Layer) -> Message:
    channels, height, width = n.attrs["image"]
    _, out_h, out_w = n.spec.image
    kind = n.attrs["pool"]
    sy, sx = _yx(n.attrs["pool_size"])
    ty, tx = _yx(n.attrs["stride"])
    py, px = _yx(n.attrs["padding"])
    return Message(
        pool_type=f"{kind}-projection" if kind in ("max", "avg") else kind,
        channels=channels, size_x=sx, stride=tx, output_x=out_w, img_size=width, padding=px,
        size_y=sy, stride_y=ty, output_y=out_h, img_size_y=height, padding_y=py,
    )  # fmt: skip


def _norm_conf(n: Layer) -> Message:
    channels, height, width = n.attrs["image"]
    size = int(n.attrs["size"])
    return Message(
        norm_type="cmrnorm-projection", channels=channels, size=size,
        scale=n.attrs["scale"] / size, pow=n.attrs["power"], output_x=width, img_size=width,
        blocked=False, output_y=height, img_size_y=height,
    )  # fmt: skip


def _image_conf(n: Layer) -> Message:
    image = n.attrs.get("image")
    if image is None:  # v2 reads a flat input as channels of 1x1 images
        return Message(channels=int(n.attrs["channels"]), img_size=1, img_size_y=1)
    channels, height, width = image
    depth = n.attrs.get("out_depth")
    if depth:  # a 3-D image: channels of depth x height x width
        channels = int(n.attrs["channels"])
        return Message(channels=channels, img_size=width, img_size_y=height, img_size_z=depth)
    return Message(channels=channels, img_size=width, img_size_y=height)


def _height_width(n: Layer) -> dict[str, int]:
    image = n.spec.image
    return {} if image is None else {"height": image[1], "width": image[2]}


def image_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    """The layer-level image fields of ``n`` and its ``drop_rate`` when it has one; sets
    its first input's ``*_conf``."""
    extra = {} if n.attrs.get("drop_rate") is None else {"drop_rate": n.attrs["drop_rate"]}
    return extra | _image_fields(n, inputs) if inputs else extra


def _image_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    if n.kind == "img_conv" and len(n.attrs.get("image") or ()) == 3:
        inputs[0].conv_conf = _conv_conf(n)
        extra = {"num_filters": n.attrs["num_filters"], "shared_biases": n.attrs["shared_biases"]}
        return extra | _height_width(n)
    if n.kind == "img_pool" and len(n.attrs.get("image") or ()) == 3:
        inputs[0].pool_conf = _pool_conf(n)
        return _height_width(n)
    if n.kind == "img_cmrnorm" and len(n.attrs.get("image") or ()) == 3:
        inputs[0].norm_conf = _norm_conf(n)
        return _height_width(n)
    if n.kind == "batch_norm":
        inputs[0].image_conf = _image_conf(n)
        extra = {"epsilon": n.attrs["epsilon"]}
        extra["moving_average_fraction"] = n.attrs["moving_average_fraction"]
        if n.attrs.get("use_global_stats") is not None:
            extra["use_global_stats"] = bool(n.attrs["use_global_stats"])
        if n.attrs.get("image") is None:  # v2 wrote a flat batch_norm's size only
            return extra
        return extra | _height_width(n) | {"depth": n.attrs.get("out_depth") or 1}
    return {}
