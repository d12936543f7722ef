"""Read the inference files v2's ``Topology.serialize_for_inference`` wrote.

Such a file is, by definition, a Python 2 pickle (protocol 2) of ``{'protobin': <serialized
ModelConfig>, 'data_type': [(name, InputType), ...]}``. It is read with a restricted
unpickler that maps v2's ``InputType``, ``DataType`` and ``SequenceType`` (module
``paddle.trainer.PyDataProvider2``) to paddle_lite's and refuses every other global, so
loading cannot run code. The ModelConfig is decoded (``proto.model_config``) and its layers are
rebuilt, in order, with the public layer functions under their v2 names and parameter names,
so ``Inference(parameters=..., fileobj=...)`` runs v2 inference files with v2 parameter tars.
How a layer is rebuilt is part of its kind's declaration (``kinds.V2Layer``: ``rebuild``,
and the v2 types it ``reads``); a layer type no kind rebuilds is named in the error.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any

from paddle_lite._src.data_types import DataType, InputType, SequenceType
from paddle_lite._src.errors import PaddleLiteError, TopologyError
from paddle_lite._src.files.pickle_check import check_opcodes
from paddle_lite._src.graph import Layer, name_scope
from paddle_lite._src.kinds import all_kinds
from paddle_lite._src.layers.data import data
from paddle_lite._src.proto.model_config import Msg, decode_model_config
from paddle_lite._src.topology import Topology

V2_MODULE = "paddle.trainer.PyDataProvider2"


class _V2InputType:
    """Receives the state of a pickled v2 ``InputType`` (its ``__slots__``)."""

    def __setstate__(self, state: Any) -> None:
        slots = state[1] if isinstance(state, tuple) else state
        self.fields = {(k.decode() if isinstance(k, bytes) else k): v for k, v in slots.items()}

    def convert(self) -> InputType:
        f = self.fields
        return InputType(int(f["dim"]), SequenceType(int(f["seq_type"])), DataType(int(f["type"])))


class _RestrictedUnpickler(pickle.Unpickler):
    """Only v2's data type classes may be named by the file."""

    ALLOWED = {"InputType": _V2InputType, "DataType": DataType, "SequenceType": SequenceType}

    def find_class(self, module: str, name: str) -> Any:
        if module == V2_MODULE and name in self.ALLOWED:
            return self.ALLOWED[name]
        raise pickle.UnpicklingError(
            f"v2 inference file names the global {module}.{name}; only {V2_MODULE}."
            f"{{InputType, DataType, SequenceType}} may appear, so it is refused."
        )


def is_v2_inference_file(data: bytes) -> bool:
    """True for a pickle (v2's format), False for paddle_lite's JSON."""
    return data[:1] == b"\x80"


def load_payload(
    data: bytes, where: str = "the v2 inference file"
) -> tuple[bytes, list[tuple[str, InputType]]]:
    """``(protobin, data_type)`` of a v2 inference file, read without running code.

    The opcodes are checked first (``pickle_check``: memo indexes and sizes within the
    input), then the pickle is loaded with the restricted unpickler and its shape is
    checked; every failure is a ``TopologyError`` naming ``where``.
    """
    check_opcodes(data, where, TopologyError)
    try:
        payload = _RestrictedUnpickler(io.BytesIO(data), encoding="bytes").load()
    except TopologyError:
        raise
    except Exception as exc:  # a parser boundary: whatever the unpickler raises is bad data
        raise TopologyError(
            f"{where} is not a readable v2 inference file: {type(exc).__name__}: {exc}"
        ) from None
    try:
        return _payload_fields(payload)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TopologyError(
            f"{where} is not a v2 inference file: expected {{'protobin': bytes, "
            f"'data_type': [(name, InputType), ...]}} ({type(exc).__name__}: {exc})."
        ) from None


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"expected a name, received {type(value).__name__}")
    return value


def _payload_fields(payload: Any) -> tuple[bytes, list[tuple[str, InputType]]]:
    payload = {_text(k): v for k, v in payload.items()}
    protobin = payload["protobin"]
    if not isinstance(protobin, bytes):
        raise TypeError(f"'protobin' is a {type(protobin).__name__}")
    data_type = []
    for name, tp in payload["data_type"]:
        tp = tp.convert() if isinstance(tp, _V2InputType) else tp
        if not isinstance(tp, InputType):
            raise TypeError(f"the data type of {name!r} is a {type(tp).__name__}")
        data_type.append((_text(name), tp))
    return protobin, data_type


# rebuilding ---------------------------------------------------------------------------
def rebuilders() -> dict[str, Callable[[Msg, list[Layer]], Layer]]:
    """v2 layer type -> the function that rebuilds such a layer: each kind declares its
    own (``V2Layer.rebuild``) and the v2 types it takes (``V2Layer.reads``: by default the
    type it writes). Data layers are rebuilt here, from the file's ``data_type``."""
    found = {}
    for kind in all_kinds():
        v2 = kind.v2
        if v2.rebuild is not None:
            written = v2.type if isinstance(v2.type, str) and v2.type else kind.name
            found.update(dict.fromkeys(v2.reads or (written,), v2.rebuild))
    return found


def rebuild(protobin: bytes, data_type: list[tuple[str, InputType]]) -> Topology:
    """The topology of a serialized v2 ``ModelConfig``, rebuilt layer by layer.

    Raises:
        TopologyError: a layer type has no rebuilder (the message lists them) or the config
            is malformed.
    """
    model = decode_model_config(protobin)
    types = dict(data_type)
    by_type = rebuilders()
    missing = sorted({c["type"] for c in model["layers"]} - set(by_type) - {"data"})
    if missing:
        raise TopologyError(
            f"this v2 inference file uses layer types paddle_lite cannot rebuild: {missing}. "
            "Rebuild the network with paddle_lite's layer functions and pass "
            "output_layer= instead of fileobj=."
        )
    built: dict[str, Layer] = {}
    try:
        with name_scope():
            for cfg in model["layers"]:
                built[cfg["name"]] = _layer(cfg, built, types, by_type)
        outputs = model.get("output_layer_names") or [model["layers"][-1]["name"]]
        return Topology([built[name] for name in outputs])
    except PaddleLiteError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise TopologyError(
            f"the ModelConfig is malformed after layer {list(built)[-1:]}: "
            f"{type(exc).__name__}: {exc}."
        ) from None


def _layer(
    cfg: Msg,
    built: dict[str, Layer],
    types: dict[str, InputType],
    by_type: dict[str, Callable[[Msg, list[Layer]], Layer]],
) -> Layer:
    if cfg["type"] == "data":  # the graph's input, typed by the file's data_type
        if cfg["name"] not in types:
            raise TopologyError(f"data layer '{cfg['name']}' has no entry in the file's data_type.")
        return data(
            name=cfg["name"],
            type=types[cfg["name"]],
            height=cfg.get("height") or None,
            width=cfg.get("width") or None,
        )
    inputs = [built[i["input_layer_name"]] for i in cfg.get("inputs", [])]
    layer = by_type[cfg["type"]](cfg, inputs)
    if cfg.get("size") and layer.size != cfg["size"]:
        raise TopologyError(
            f"layer '{cfg['name']}' ({cfg['type']}) rebuilds with size {layer.size}, but the file "
            f"says {cfg['size']}."
        )
    return layer
