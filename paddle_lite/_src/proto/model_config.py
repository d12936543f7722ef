"""Decode v2's ``ModelConfig`` protobuf (``proto/ModelConfig.proto``) without protobuf.

Only the fields paddle_lite rebuilds layers from are declared; every other field is skipped
(its wire format tells its length). A decoded message is a ``Msg``: a mapping from field
name to value, a list for repeated fields, nested messages decoded in turn. Absent scalars
read as the proto2 default given in the schema (``Msg.get``).

Example:
    ```python
    model = decode_model_config(protobin)
    [layer["name"] for layer in model["layers"]]
    ```
"""

from __future__ import annotations

import struct
from typing import Any

from paddle_lite._src.errors import TopologyError
from paddle_lite._src.proto.wire import WireReader

# message -> {field number: (name, type, repeated)}; types: str, uint, int, bool, double,
# "msg:<Name>" and "packed_double".
SCHEMA: dict[str, dict[int, tuple[str, str, bool]]] = {
    "ModelConfig": {
        1: ("type", "str", False),
        2: ("layers", "msg:LayerConfig", True),
        4: ("input_layer_names", "str", True),
        5: ("output_layer_names", "str", True),
        8: ("sub_models", "msg:SubModelConfig", True),
    },
    "SubModelConfig": {1: ("name", "str", False), 6: ("is_recurrent_layer_group", "bool", False)},
    "LayerConfig": {
        1: ("name", "str", False),
        2: ("type", "str", False),
        3: ("size", "uint", False),
        4: ("active_type", "str", False),
        5: ("inputs", "msg:LayerInputConfig", True),
        6: ("bias_parameter_name", "str", False),
        7: ("num_filters", "uint", False),
        8: ("shared_biases", "bool", False),
        10: ("drop_rate", "double", False),
        11: ("num_classes", "uint", False),
        13: ("reversed", "bool", False),
        14: ("active_gate_type", "str", False),
        15: ("active_state_type", "str", False),
        16: ("num_neg_samples", "int", False),
        17: ("neg_sampling_dist", "packed_double", True),
        21: ("softmax_selfnorm_alpha", "double", False),
        25: ("norm_by_times", "bool", False),
        26: ("coeff", "double", False),
        27: ("average_strategy", "str", False),
        28: ("error_clipping_threshold", "double", False),
        29: ("operator_confs", "msg:OperatorConfig", True),
        32: ("slope", "double", False),
        33: ("intercept", "double", False),
        34: ("cos_scale", "double", False),
        40: ("select_first", "bool", False),
        41: ("trans_type", "str", False),
        46: ("use_global_stats", "bool", False),
        47: ("moving_average_fraction", "double", False),
        49: ("user_arg", "str", False),
        50: ("height", "uint", False),
        51: ("width", "uint", False),
        52: ("blank", "uint", False),
        53: ("seq_pool_stride", "int", False),
        57: ("delta", "double", False),
        58: ("depth", "uint", False),
    },
    "LayerInputConfig": {
        1: ("input_layer_name", "str", False),
        2: ("input_parameter_name", "str", False),
        3: ("conv_conf", "msg:ConvConfig", False),
        4: ("pool_conf", "msg:PoolConfig", False),
        5: ("norm_conf", "msg:NormConfig", False),
        6: ("proj_conf", "msg:ProjectionConfig", False),
        8: ("image_conf", "msg:ImageConfig", False),
    },
    "ConvConfig": {
        1: ("filter_size", "uint", False),
        2: ("channels", "uint", False),
        3: ("stride", "uint", False),
        4: ("padding", "uint", False),
        5: ("groups", "uint", False),
        8: ("img_size", "uint", False),
        10: ("filter_size_y", "uint", False),
        11: ("padding_y", "uint", False),
        12: ("stride_y", "uint", False),
        14: ("img_size_y", "uint", False),
        15: ("dilation", "uint", False),
        16: ("dilation_y", "uint", False),
    },
    "PoolConfig": {
        1: ("pool_type", "str", False),
        2: ("channels", "uint", False),
        3: ("size_x", "uint", False),
        5: ("stride", "uint", False),
        7: ("img_size", "uint", False),
        8: ("padding", "uint", False),
        9: ("size_y", "uint", False),
        10: ("stride_y", "uint", False),
        12: ("img_size_y", "uint", False),
        13: ("padding_y", "uint", False),
    },
    "NormConfig": {
        1: ("norm_type", "str", False),
        2: ("channels", "uint", False),
        3: ("size", "uint", False),
        4: ("scale", "double", False),
        5: ("pow", "double", False),
    },
    "ImageConfig": {
        2: ("channels", "uint", False),
        8: ("img_size", "uint", False),
        9: ("img_size_y", "uint", False),
    },
    "ProjectionConfig": {
        1: ("type", "str", False),
        2: ("name", "str", False),
        3: ("input_size", "uint", False),
        4: ("output_size", "uint", False),
        5: ("context_start", "int", False),
        6: ("context_length", "int", False),
        7: ("trainable_padding", "bool", False),
        11: ("offset", "uint", False),
    },
    "OperatorConfig": {
        1: ("type", "str", False),
        2: ("input_indices", "int", True),
        4: ("output_size", "uint", False),
        5: ("dotmul_scale", "double", False),
    },
}

DEFAULTS: dict[str, Any] = {
    "shared_biases": False,
    "drop_rate": 0.0,
    "reversed": False,
    "coeff": 1.0,
    "trans_type": "non-seq",
    "select_first": False,
    "seq_pool_stride": -1,
    "stride": 1,
    "padding": 0,
    "groups": 1,
    "dilation": 1,
    "dotmul_scale": 1.0,
    "offset": 0,
    "moving_average_fraction": 0.9,
    "active_type": "",
    "error_clipping_threshold": 0.0,
    "softmax_selfnorm_alpha": 0.1,
    "num_neg_samples": 10,
    "blank": 0,
    "delta": 1.0,
    "trainable_padding": False,
    "slope": 1.0,
    "intercept": 0.0,
    "cos_scale": 1.0,
}


class Msg(dict):
    """A decoded message; ``get(name)`` falls back to the proto2 default."""

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        return DEFAULTS.get(key, default)


def _signed(n: int, bits: int = 64) -> int:
    return n - (1 << bits) if n >= 1 << (bits - 1) else n


def _value(kind: str, wire: int, raw: Any) -> list[Any]:
    if kind.startswith("msg:"):
        return [decode_message(kind[4:], raw)]
    if kind == "str":
        return [raw.decode("utf-8")]
    if kind == "double":
        return [struct.unpack("<d", raw)[0]]
    if kind == "packed_double":
        return (
            list(struct.unpack(f"<{len(raw) // 8}d", raw))
            if wire == 2
            else [struct.unpack("<d", raw)[0]]
        )
    if kind == "bool":
        return [bool(raw)]
    if kind == "int":
        if wire == 2:  # packed
            sub, out = WireReader(raw), []
            while not sub.done():
                out.append(_signed(sub.varint()))
            return out
        return [_signed(raw)]
    return [raw]


def decode_message(name: str, data: bytes) -> Msg:
    """Decode ``data`` as the message ``name`` of ``SCHEMA``."""
    fields, out, reader = SCHEMA[name], Msg(), WireReader(data)
    while not reader.done():
        num, wire, raw = reader.field()
        if num not in fields or raw is None:
            continue
        attr, kind, repeated = fields[num]
        values = _value(kind, wire, raw)
        if repeated:
            out.setdefault(attr, []).extend(values)
        else:
            out[attr] = values[-1]
    return out


def decode_model_config(data: bytes) -> Msg:
    """Decode a serialized ``ModelConfig``.

    Raises:
        TopologyError: the bytes are not a ModelConfig.
    """
    try:
        model = decode_message("ModelConfig", data)
    except Exception as exc:
        raise TopologyError(f"not a v2 ModelConfig: {exc}") from None
    if "layers" not in model:
        raise TopologyError("not a v2 ModelConfig: it declares no layers.")
    return model
