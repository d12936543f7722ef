"""How one layer reads in v2's ModelConfig: its ``LayerConfig`` fields and its parameters' dims.

paddle_lite's kinds are named after v2's layer types, and most layers read in v2's
ModelConfig the usual way: their kind's name as ``type``, their width as ``size``, their
activation, and every input with the weight ``w<i>`` it multiplies. A kind whose layers
read otherwise says how in its own declaration (``kinds.V2Layer``: another type, no size,
the inputs v2 lists, the image fields of convolutions, poolings and batch_norm ...); this
module writes each layer from that, as v2's config parser did, so that ``proto.views``
can show a topology as v2's ModelConfig (checked against v2's golden ModelConfig files
in ``tests/integration/test_v2_golden_configs.py`` and ``test_v2_golden_image_confs.py``).

Programs that convert v2 models read these fields (MMdnn's PaddleParser reads a
convolution's ``conv_conf``, a pool's ``pool_conf``, ... from ``parse_network``'s
result); image sizes follow v2's x (width) / y (height) naming.

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
from paddle_lite._src.kinds import V2Layer, get_kind

# string fields v2 leaves unset rather than writing an empty string.
UNSET_IF_EMPTY = frozenset({"bias_parameter_name", "input_parameter_name"})


class Message(SimpleNamespace):
    """A ModelConfig message: its fields as attributes, and protobuf's ``HasField``."""

    def HasField(self, name: str) -> bool:
        """Whether v2 would have set field ``name``: it is written here and, for the
        names v2 leaves unset when empty, not ``""``."""
        value = getattr(self, name, None)
        return value is not None and not (name in UNSET_IF_EMPTY and value == "")


def yx(pair: Any) -> tuple[int, int]:
    """An attribute's ``(y, x)`` pair as ints."""
    y, x = pair
    return int(y), int(x)


def height_width(n: Layer) -> dict[str, int]:
    """The ``height`` and ``width`` fields of a layer whose output is an image."""
    image = n.spec.image
    return {} if image is None else {"height": image[1], "width": image[2]}


def _v2(n: Layer) -> V2Layer:
    return get_kind(n.kind).v2


def v2_type(n: Layer) -> str:
    """The ``type`` v2 writes for layer ``n``."""
    written = _v2(n).type
    return written(n) if callable(written) else written or n.kind


def _size(n: Layer) -> int:
    size = _v2(n).size
    if size is None:
        return n.size
    return size(n) if callable(size) else size


def _active_type(n: Layer) -> str:
    written = _v2(n).active_type
    return getattr(n.activation, "name", "") if written is None else written


def inputs(n: Layer) -> list[Message]:
    """v2's ``LayerInputConfig`` list: each input with the weight ``w<i>`` it multiplies.

    A layer with more weights than inputs (``batch_norm``'s moving mean and variance) lists
    its last input again for each extra weight, as v2 does."""
    v2 = _v2(n)
    order = range(len(n.inputs)) if v2.inputs is None else v2.inputs(n)
    by_role = {p.role: p.name for p in n.params} if v2.owns_params else {}
    weights = [int(r[1:]) for r in by_role if r[:1] == "w" and r[1:].isdigit()]
    names = [n.inputs[i].name for i in order]
    if not names:
        return []
    count = max([len(names), *(w + 1 for w in weights)])
    names += names[-1:] * (count - len(names))
    return [
        Message(input_layer_name=name, input_parameter_name=by_role.get(f"w{i}", ""))
        for i, name in enumerate(names)
    ]


def layer_config(n: Layer) -> Message:
    """The ``LayerConfig`` fields of ``n`` that paddle_lite writes (see the module doc):
    every layer's, its ``drop_rate`` when it has one, and the fields its kind adds
    (``V2Layer.fields``: the image fields of convolutions, poolings and batch_norm)."""
    v2 = _v2(n)
    ins = inputs(n)
    params = n.params if v2.owns_params else ()
    extra = {} if n.attrs.get("drop_rate") is None else {"drop_rate": n.attrs["drop_rate"]}
    if v2.fields is not None and ins:
        extra |= v2.fields(n, ins)
    return Message(
        name=n.name,
        type=v2_type(n),
        size=_size(n),
        inputs=ins,
        bias_parameter_name=next((p.name for p in params if p.role == "wbias"), ""),
        active_type=_active_type(n),
        parameters=[p.name for p in params],
        **extra,
    )


def dimless_roles(n: Layer) -> set[str]:
    """Roles of ``n``'s parameters that v2 declares by size only, with no ``dims``
    (``V2Layer.dimless``: convolution filters, batch_norm's scale)."""
    dimless = _v2(n).dimless
    return set(dimless(n) if callable(dimless) else dimless)
