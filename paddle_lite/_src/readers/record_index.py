"""Record files by index: the sidecar index of a paddle_lite record file, v2's chunk scan.

``write_recordio(path, reader)`` writes ``<path>.index`` beside the data, atomically: the
magic ``b"PLRIDX1\\n"``, one line of JSON (the record count, the data file's size,
modification time and sha256, the sha256 of the offsets) and the byte offset of every
record's header (little-endian int64, one more for the file's end). ``records_view``
reads it when it describes the file; a missing index, one that no longer describes its data
(another size, or another modification time and another sha256) or one that is damaged is
rebuilt from a scan of the records, with a ``DataWarning`` -- never trusted silently -- and
written back when the folder allows. Every record read through it is still checked
against its own CRC-32.

A v2 RecordIO file needs no sidecar: its chunk index is a scan of its chunk headers
(``recordio_v2.scan_chunks``); a record is read by decompressing its chunk (the last
chunks read are kept).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import warnings
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataError, DataWarning
from paddle_lite._src.files import bounded_json
from paddle_lite._src.files.atomic import atomic_write
from paddle_lite._src.readers import recordio, recordio_v2
from paddle_lite._src.readers.decorator import Reader, check_reader, reader_samples
from paddle_lite._src.readers.seekable import Indexed

MAGIC = b"PLRIDX1\n"
SUFFIX = ".index"
_HEADER_LIMIT = 4096
_CHUNKS_KEPT = 4


def records_view(path: str) -> Indexed:
    """The samples of the record file ``path`` (either format) by index."""
    if recordio_v2.is_v2(path):
        return ChunkedRecords(path, recordio_v2.scan_chunks(path))
    return PlainRecords(path, _offsets(path))


class PlainRecords(Indexed):
    """The records of a paddle_lite record file, through their offsets."""

    def __init__(self, path: str, offsets: np.ndarray) -> None:
        self.path, self.offsets = path, offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, j: int) -> Any:
        start, stop = int(self.offsets[j]), int(self.offsets[j + 1])
        with open(self.path, "rb") as f:
            f.seek(start)
            data = f.read(stop - start)
        length, crc = recordio.HEADER.unpack_from(data)
        payload = data[recordio.HEADER.size :]
        if len(payload) != length or zlib.crc32(payload) != crc:
            raise DataError(
                f"recordio: record {j} of {self.path!r} fails its length or checksum (the file "
                "changed after its index was read?)."
            )
        return recordio.decode_at(payload, j, self.path)

    def __iter__(self) -> Any:
        return recordio.read_samples(self.path)


class ChunkedRecords(Indexed):
    """The records of a v2 RecordIO file, through the scan of its chunk headers."""

    def __init__(self, path: str, chunks: list[Any]) -> None:
        self.path, self.chunks = path, chunks
        self.ends = list(np.cumsum([c.num_records for c in chunks], dtype=np.int64))
        self.kept: OrderedDict[int, list[bytes]] = OrderedDict()

    def __len__(self) -> int:
        return int(self.ends[-1]) if self.ends else 0

    def __getitem__(self, j: int) -> Any:
        c = bisect.bisect_right(self.ends, j)
        number = j - (int(self.ends[c - 1]) if c else 0)
        records = self.kept.pop(c, None) or recordio_v2.chunk_records(self.chunks[c])
        self.kept[c] = records
        while len(self.kept) > _CHUNKS_KEPT:
            self.kept.popitem(last=False)
        return recordio_v2.decode_record(records[number], self.chunks[c], number)

    def __iter__(self) -> Any:
        return recordio_v2.read_samples(self.path)


def write_recordio(path: str | os.PathLike, reader: Reader) -> int:
    """Write every sample of a reader to a record file, replacing it atomically.

    The records go to a temporary file beside ``path`` that replaces it only once every
    sample is written: a failing reader or a killed process leaves any previous file whole.
    Then ``<path>.index`` is written beside it (the records' offsets and the data's
    sha256, see ``record_index``), so ``creator.recordio`` reads any record directly.

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
    offsets = []
    with atomic_write(path) as f:
        f.write(recordio.MAGIC)
        for sample in reader_samples(reader, "write_recordio"):
            payload = recordio.encode_sample(sample)
            if len(payload) >= 2**32:
                raise DataError(f"write_recordio: sample {len(offsets)} encodes to over 4 GiB.")
            offsets.append(f.tell())
            f.write(recordio.HEADER.pack(len(payload), zlib.crc32(payload)))
            f.write(payload)
    write_index(os.fspath(path), offsets)
    return len(offsets)


def write_index(path: str, offsets: list[int]) -> None:
    """Write ``<path>.index`` for the record file ``path`` whose records start at ``offsets``
    (and end at the file's end), atomically."""
    table = np.asarray([*offsets, os.path.getsize(path)], "<i8")
    header = {"records": len(offsets), **_stamp(path, digest=True)}
    header["offsets_sha256"] = hashlib.sha256(table.tobytes()).hexdigest()
    with atomic_write(path + SUFFIX) as f:
        f.write(MAGIC + json.dumps(header).encode() + b"\n" + table.tobytes())


def _stamp(path: str, digest: bool) -> dict[str, Any]:
    info = os.stat(path)
    stamp = {"data_size": info.st_size, "data_mtime_ns": info.st_mtime_ns}
    if digest:
        stamp["data_sha256"] = _sha256(path)
    return stamp


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _offsets(path: str) -> np.ndarray:
    """The offsets of ``path``'s records and its end: from its index when that describes
    it, else from a scan (with a warning; the index is written again when possible)."""
    try:
        return _read_index(path)
    except _Unusable as why:
        warnings.warn(
            f"recordio: the index of {path!r} {why}; it is rebuilt from a scan of the records.",
            DataWarning,
            stacklevel=4,
        )
    offsets = list(recordio.record_offsets(path))
    try:
        write_index(path, offsets)
    except OSError:  # a read-only folder: the scan serves this process
        pass
    return np.asarray([*offsets, os.path.getsize(path)], np.int64)


class _Unusable(Exception):
    """Why an index cannot be used (its message completes "the index of <path> ...")."""


def _read_index(path: str) -> np.ndarray:
    try:
        with open(path + SUFFIX, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise _Unusable("is missing") from None
    line_end = data.find(b"\n", len(MAGIC))
    if not data.startswith(MAGIC) or not 0 < line_end < len(MAGIC) + _HEADER_LIMIT:
        raise _Unusable("is damaged (no header)")
    try:
        header = bounded_json.loads(data[len(MAGIC) : line_end], path, DataError, max_depth=2)
        count = int(header["records"])
    except (DataError, KeyError, TypeError, ValueError):
        raise _Unusable("is damaged (its header does not parse)") from None
    table = data[line_end + 1 :]
    if len(table) != 8 * (count + 1):
        raise _Unusable(f"is damaged ({len(table)} bytes of offsets for {count} records)")
    if hashlib.sha256(table).hexdigest() != header.get("offsets_sha256"):
        raise _Unusable("is damaged (its offsets fail their sha256)")
    _check_describes(path, header)
    return np.frombuffer(table, "<i8").astype(np.int64)


def _check_describes(path: str, header: dict[str, Any]) -> None:
    now = _stamp(path, digest=False)
    if now["data_size"] != header.get("data_size"):
        was = header.get("data_size")
        raise _Unusable(f"describes a file of {was} bytes, not {now['data_size']}")
    if now["data_mtime_ns"] != header.get("data_mtime_ns"):
        if _sha256(path) != header.get("data_sha256"):
            raise _Unusable("describes other data (the file was written again)")
