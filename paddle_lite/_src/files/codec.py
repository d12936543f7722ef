"""JSON encoding of layer attributes (no pickle anywhere).

Plain values pass through; lists and tuples both become JSON lists and decode as
tuples; activations, poolings, input types and recurrent-group steps are tagged objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paddle_lite._src.activations import BaseActivation, activation_from_json
from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import TopologyError
from paddle_lite._src.poolings import BasePoolingType, pooling_from_json
from paddle_lite._src.step_graph import StepGraph


def encode(value: Any, where: str = "attribute") -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode(v, where) for v in value]
    if isinstance(value, Mapping):
        return {"__dict__": {str(k): encode(v, where) for k, v in value.items()}}
    if isinstance(value, BaseActivation):
        return {"__activation__": value.to_json()}
    if isinstance(value, BasePoolingType):
        return {"__pooling__": value.to_json()}
    if isinstance(value, InputType):
        return {"__input_type__": value.to_json()}
    if isinstance(value, StepGraph):
        return {"__step_graph__": value.to_json(encode_attrs)}
    raise TopologyError(f"{where}: cannot serialize {value!r} of type {type(value).__name__}.")


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if not isinstance(value, dict):
        return value
    if "__dict__" in value:
        return {k: decode(v) for k, v in value["__dict__"].items()}
    if "__activation__" in value:
        return activation_from_json(value["__activation__"])
    if "__pooling__" in value:
        return pooling_from_json(value["__pooling__"])
    if "__input_type__" in value:
        return InputType.from_json(value["__input_type__"])
    if "__step_graph__" in value:
        return StepGraph.from_json(value["__step_graph__"], decode_attrs)
    raise TopologyError(f"cannot decode attribute {value!r}.")


def encode_attrs(attrs: Mapping[str, Any], layer: str) -> dict[str, Any]:
    return {k: encode(v, f"layer '{layer}' attribute '{k}'") for k, v in attrs.items()}


def decode_attrs(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: decode(v) for k, v in obj.items()}
