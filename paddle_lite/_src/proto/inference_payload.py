"""The pickle of an inference file v2's ``Topology.serialize_for_inference`` wrote, read
without running code.

Such a file is, by definition, a Python 2 pickle (protocol 2) of ``{'protobin': <serialized
ModelConfig>, 'data_type': [(name, InputType), ...]}``. It is read with a restricted
unpickler that maps v2's ``InputType``, ``DataType`` and ``SequenceType`` (module
``paddle.trainer.PyDataProvider2``) to paddle_lite's and refuses every other global; the
ModelConfig is rebuilt as a topology by ``proto.inference_file``.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from paddle_lite._src.data_types import DataType, InputType, SequenceType
from paddle_lite._src.errors import TopologyError
from paddle_lite._src.files.pickle_check import check_opcodes

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
