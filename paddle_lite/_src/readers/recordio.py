"""The paddle_lite record file format, read by ``paddle.reader.creator.recordio``.

A file is the 8-byte magic ``b"PLREC\\x001\\n"`` followed by records. A record is a header of
two little-endian uint32 (payload length, CRC-32 of the payload) and the payload: one sample
as UTF-8 JSON. JSON arrays are lists; the other Python and numpy values are JSON objects with
one tag key, so a sample reads back with the types it was written with:

- ``{"__tuple__": [...]}`` a tuple, ``{"__dict__": [[key, value], ...]}`` a dict,
- ``{"__ndarray__": base64, "dtype": "<f4", "shape": [...]}`` a numeric numpy array
  (raw C-order bytes), ``{"__bytes__": base64}`` bytes.

numpy scalars are stored as Python numbers. v2 recordio files (records pickled by Python)
are deliberately not read: unpickling a file can run arbitrary code.
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

from paddle_lite._src import bounded_json
from paddle_lite._src.atomic import atomic_write
from paddle_lite._src.errors import DataError
from paddle_lite._src.readers.decorator import Reader, check_reader, reader_samples

MAGIC = b"PLREC\x001\n"
_HEADER = struct.Struct("<II")
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


def write_recordio(path: str | os.PathLike, reader: Reader) -> int:
    """Write every sample of a reader to a record file, replacing it atomically.

    The records go to a temporary file beside ``path`` that replaces it only once every
    sample is written: a failing reader or a killed process leaves any previous file whole.

    Args:
        path: the file to write.
        reader: the reader whose samples to store; samples may nest None, bool, int, float,
            str, bytes, lists, tuples, dicts and numeric numpy arrays.

    Returns:
        The number of records written.

    Example:
        ```python
        write_recordio("train.rec", paddle.dataset.uci_housing.train())
        reader = paddle.reader.creator.recordio("train.rec")
        ```
    """
    check_reader(reader, "write_recordio")
    count = 0
    with atomic_write(path) as f:
        f.write(MAGIC)
        for count, sample in enumerate(reader_samples(reader, "write_recordio"), start=1):
            payload = encode_sample(sample)
            if len(payload) >= 2**32:
                raise DataError(f"write_recordio: sample {count - 1} encodes to over 4 GiB.")
            f.write(_HEADER.pack(len(payload), zlib.crc32(payload)))
            f.write(payload)
    return count


def _check_magic(f: Any, path: str) -> None:
    head = f.read(len(MAGIC))
    if head != MAGIC:
        raise DataError(
            f"recordio: {path!r} is not a paddle_lite record file (it starts with {head!r}, "
            f"expected {MAGIC!r}). v2 recordio files hold pickled records and are not read, "
            "because unpickling can run arbitrary code; rewrite trusted data with "
            "paddle.reader.creator.write_recordio."
        )


def read_records(path: str) -> Iterator[bytes]:
    """Yield the payloads of a record file, checking lengths and checksums."""
    with open(path, "rb") as f:
        _check_magic(f, path)
        total = os.fstat(f.fileno()).st_size
        index = 0
        while header := f.read(_HEADER.size):
            length, crc = _HEADER.unpack(header.ljust(_HEADER.size, b"\0"))
            if length > total - f.tell():
                raise DataError(f"recordio: {path!r} is truncated inside record {index}.")
            payload = f.read(length)
            if len(header) < _HEADER.size or len(payload) < length:
                raise DataError(f"recordio: {path!r} is truncated inside record {index}.")
            if zlib.crc32(payload) != crc:
                raise DataError(f"recordio: record {index} of {path!r} fails its checksum.")
            yield payload
            index += 1


def read_samples(path: str) -> Iterator[Any]:
    """Yield the decoded samples of a record file; a record that does not decode is a
    ``DataError`` naming the file and the record."""
    for index, payload in enumerate(read_records(path)):
        try:
            sample = decode_sample(payload)
        except DataError as err:
            raise DataError(f"recordio: record {index} of {path!r}: {err}") from None
        except (ValueError, TypeError, KeyError, AttributeError, binascii.Error) as err:
            raise DataError(
                f"recordio: record {index} of {path!r} does not decode "
                f"({type(err).__name__}: {err}); the file is corrupt or not written by "
                "write_recordio."
            ) from None
        yield sample
