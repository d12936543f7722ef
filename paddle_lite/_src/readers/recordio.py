"""The paddle_lite record file format, read by ``paddle.reader.creator.recordio``.

A file is the 8-byte magic ``b"PLREC\\x001\\n"`` followed by records. A record is a header of
two little-endian uint32 (payload length, CRC-32 of the payload) and the payload: one sample
as UTF-8 JSON. JSON arrays are lists; the other Python and numpy values are JSON objects with
one tag key, so a sample reads back with the types it was written with:

- ``{"__tuple__": [...]}`` a tuple, ``{"__dict__": [[key, value], ...]}`` a dict,
- ``{"__ndarray__": base64, "dtype": "<f4", "shape": [...]}`` a numeric numpy array
  (raw C-order bytes), ``{"__bytes__": base64}`` bytes.

numpy scalars are stored as Python numbers. v2's RecordIO files are another format, read
by ``recordio_v2`` (``recordio_v2.read_any_samples`` tells the two apart by their first bytes).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataError
from paddle_lite._src.files import bounded_json

MAGIC = b"PLREC\x001\n"
HEADER = struct.Struct("<II")
_PLAIN = (str, int, float, type(None))


def _array_to_json(value: np.ndarray, where: str) -> dict[str, Any]:
    if value.dtype.kind not in "biufc":
        raise DataError(
            f"write_recordio: {where} is a numpy array of dtype {value.dtype}; only bool and "
            "numeric arrays can be stored."
        )
    return {
        "__ndarray__": base64.b64encode(np.ascontiguousarray(value).tobytes()).decode("ascii"),
        "dtype": value.dtype.str,
        "shape": list(value.shape),
    }


def _to_json(value: Any, where: str) -> Any:
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, list):
        return [_to_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {"__tuple__": [_to_json(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        return {
            "__dict__": [
                [_to_json(k, where), _to_json(v, f"{where}[{k!r}]")] for k, v in value.items()
            ]
        }
    if isinstance(value, np.ndarray):
        return _array_to_json(value, where)
    if isinstance(value, bytes):
        return {"__bytes__": base64.b64encode(value).decode("ascii")}
    raise DataError(
        f"write_recordio: {where} has type {type(value).__name__}; a record can hold None, "
        "bool, int, float, str, bytes, list, tuple, dict and numeric numpy arrays."
    )


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__tuple__" in value:
        return tuple(_from_json(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_from_json(k): _from_json(v) for k, v in value["__dict__"]}
    if "__ndarray__" in value:
        raw = base64.b64decode(value["__ndarray__"])
        return np.frombuffer(raw, dtype=np.dtype(value["dtype"])).reshape(value["shape"]).copy()
    if "__bytes__" in value:
        return base64.b64decode(value["__bytes__"])
    raise DataError(f"recordio: unknown tagged value with keys {sorted(value)}.")


def encode_sample(sample: Any) -> bytes:
    """Encode one sample as a record payload (UTF-8 JSON, see the module docstring)."""
    return json.dumps(_to_json(sample, "sample"), separators=(",", ":")).encode("utf-8")


def decode_sample(payload: bytes) -> Any:
    """Decode a record payload written by ``encode_sample``."""
    return _from_json(bounded_json.loads(payload, "the record", ValueError))


def _check_magic(f: Any, path: str) -> None:
    head = f.read(len(MAGIC))
    if head != MAGIC:
        raise DataError(
            f"recordio: {path!r} is not a paddle_lite record file (it starts with {head!r}, "
            f"expected {MAGIC!r}). paddle.reader.creator.recordio reads v2 RecordIO files too."
        )


def record_offsets(path: str) -> Iterator[int]:
    """The byte offset of each record of a record file (each record checked)."""
    for offset, _ in _records(path):
        yield offset


def read_records(path: str) -> Iterator[bytes]:
    """Yield the payloads of a record file, checking lengths and checksums."""
    for _, payload in _records(path):
        yield payload


def _records(path: str) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as f:
        _check_magic(f, path)
        total = os.fstat(f.fileno()).st_size
        index = 0
        while True:
            offset = f.tell()
            header = f.read(HEADER.size)
            if not header:
                return
            length, crc = HEADER.unpack(header.ljust(HEADER.size, b"\0"))
            if length > total - f.tell():
                raise DataError(f"recordio: {path!r} is truncated inside record {index}.")
            payload = f.read(length)
            if len(header) < HEADER.size or len(payload) < length:
                raise DataError(f"recordio: {path!r} is truncated inside record {index}.")
            if zlib.crc32(payload) != crc:
                raise DataError(f"recordio: record {index} of {path!r} fails its checksum.")
            yield offset, payload
            index += 1


def read_samples(path: str) -> Iterator[Any]:
    """Yield the decoded samples of a record file; a record that does not decode is a
    ``DataError`` naming the file and the record."""
    for index, payload in enumerate(read_records(path)):
        yield decode_at(payload, index, path)


def decode_at(payload: bytes, index: int, path: str) -> Any:
    """The sample of record ``index`` of ``path``; one that does not decode is a
    ``DataError`` naming the file and the record."""
    try:
        return decode_sample(payload)
    except DataError as err:
        raise DataError(f"recordio: record {index} of {path!r}: {err}") from None
    except (ValueError, TypeError, KeyError, AttributeError, binascii.Error) as err:
        raise DataError(
            f"recordio: record {index} of {path!r} does not decode "
            f"({type(err).__name__}: {err}); the file is corrupt or not written by "
            "write_recordio."
        ) from None
