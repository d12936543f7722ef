"""``data``: where one field of each sample enters the network.

A data layer is the graph's input: it is fed, not computed (its kind's ``apply`` is never
called), and its spec is the ``InputType`` it declares, so the feeder, the host checks
(``feeding``) and v2's ModelConfig read data layers by their kind.
"""

from __future__ import annotations

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.data_types import DataType, InputType
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec

_DTYPES = {
    DataType.Dense: "float32",
    DataType.Index: "int32",
    DataType.SparseNonValue: "sparse_binary",
    DataType.SparseValue: "sparse_float",
}


class DataKind(Kind):
    name = "data"

    def infer_spec(self, inputs, attrs):
        tp: InputType = attrs["type"]
        image = None
        h, w, depth = attrs.get("height"), attrs.get("width"), attrs.get("depth") or 1
        if h and w:
            if tp.dim % (h * w * depth):
                raise LayerConfigError(
                    f"dim {tp.dim} is not divisible by height*width*depth = {h * w * depth}."
                )
            image = (tp.dim // (h * w * depth) * depth, h, w)
        return Spec(tp.dim, _DTYPES[tp.type], int(tp.seq_type), image)

    def apply(self, params, inputs, attrs, *, key, mode):
        raise LayerConfigError("data layers are fed, not computed.")


register_kind(DataKind())


@base.layer_function
def data(
    name: str,
    type: InputType,
    height: int | None = None,
    width: int | None = None,
    depth: int | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A data layer: where one field of each sample enters the network.

    Args:
        name: the layer name, used by ``feeding``.
        type: a ``paddle.data_type`` InputType; the layer size is ``type.dim``.
        height, width, depth: image geometry of a dense input (channels inferred).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``type.dim``.

    Example:
        >>> x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    """
    if not isinstance(name, str) or not name:
        raise LayerTypeError(f"data(): name must be a non-empty str; received {name!r}.")
    if not isinstance(type, InputType):
        raise LayerTypeError(
            f"layer '{name}': type must be a paddle.data_type InputType such as "
            f"dense_vector(784); received {type!r}."
        )
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    attrs = {"type": type, "height": height, "width": width, "depth": depth}
    return base.build("data", name=name, inputs=(), attrs=attrs)
