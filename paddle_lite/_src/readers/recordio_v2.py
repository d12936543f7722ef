"""v2's RecordIO format (Go package ``github.com/PaddlePaddle/recordio``), read and written.

A file is a sequence of chunks and nothing else (its index is a scan of the chunk headers).
A chunk is a 20-byte little-endian header of five uint32 fields, in this order:

====  ==================================================================
0     magic number ``0x01020304`` (the bytes ``04 03 02 01``)
4     CRC-32 (IEEE, ``zlib.crc32``) of the compressed data
8     compressor: 0 none, 1 snappy (v2's default), 2 gzip
12    size of the compressed data in bytes
16    number of records
====  ==================================================================

followed by the compressed data: the records, each a uint32 length and its bytes. Snappy is
the framing format (Go's ``snappy.NewBufferedWriter`` / ``NewReader``: a ``sNaPpY`` stream
of checksummed blocks), read and written with ``cramjam`` (the ``snappy`` extra); gzip is
one gzip stream. v2's writer closed a chunk before its records passed 32 MiB.

The records v2's Python wrote are pickles (``cPickle.dumps(sample)``, protocol 0, in
``dataset.common.convert``); they are decoded with ``safe_pickle.load_plain`` (no code runs;
a Python 2 ``str`` reads back as ``bytes``), and written with ``safe_pickle.dumps_plain``
(protocol 2, readable by v2). Every defect is a ``DataError`` naming the file, the chunk
(and its byte offset) and the record.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import struct
import zlib
from collections.abc import Iterator
from typing import Any

from paddle_lite._src.errors import DataError, MissingDependencyError
from paddle_lite._src.files import safe_pickle
from paddle_lite._src.files.atomic import atomic_write
from paddle_lite._src.readers import recordio
from paddle_lite._src.readers.decorator import Reader, check_reader, reader_samples

MAGIC = 0x01020304
MAGIC_BYTES = struct.pack("<I", MAGIC)
HEADER = struct.Struct("<IIIII")  # magic, checksum, compressor, compressed size, records
COMPRESSORS = {"none": 0, "snappy": 1, "gzip": 2}
DEFAULT_MAX_CHUNK_SIZE = 32 * 1024 * 1024
# A chunk whose records inflate past this is refused (v2's writer made chunks of 32 MiB).
MAX_INFLATED = 1 << 30
_LENGTH = struct.Struct("<I")


@dataclasses.dataclass(frozen=True)
class Chunk:
    """Where one chunk lies: the file, its number in the file, its byte offset, its records."""

    path: str
    index: int
    offset: int
    num_records: int

    def where(self) -> str:
        return f"chunk {self.index} (byte {self.offset}) of {self.path!r}"


def _snappy() -> Any:
    try:
        import cramjam
    except ImportError:
        raise MissingDependencyError(
            "this v2 RecordIO chunk is snappy-compressed (v2's default); reading or writing "
            "snappy needs cramjam: pip install 'paddle_lite[snappy]' (or pip install cramjam)."
        ) from None
    return cramjam


def _gunzip(data: bytes, where: str) -> bytes:
    out, rest = [], data
    total = 0
    while rest:
        inflater = zlib.decompressobj(31)
        out.append(inflater.decompress(rest, MAX_INFLATED + 1 - total))
        total += len(out[-1])
        if total > MAX_INFLATED:
            raise DataError(f"recordio: {where} inflates past {MAX_INFLATED} bytes; refused.")
        if not inflater.eof:
            raise DataError(f"recordio: {where} ends inside its gzip stream.")
        rest = inflater.unused_data
    return b"".join(out)


def _inflate(data: bytes, compressor: int, where: str) -> bytes:
    try:
        if compressor == 0:
            return data
        if compressor == 1:
            cramjam = _snappy()
            try:
                return bytes(cramjam.snappy.decompress(data))
            except cramjam.DecompressionError as err:
                raise DataError(f"recordio: {where} is not valid snappy data ({err}).") from None
        if compressor == 2:
            return _gunzip(data, where)
    except zlib.error as err:
        raise DataError(f"recordio: {where} is not valid gzip data ({err}).") from None
    raise DataError(
        f"recordio: {where} names compressor {compressor}; v2 RecordIO knows 0 (none), "
        "1 (snappy) and 2 (gzip)."
    )


def _deflate(raw: bytes, compressor: int) -> bytes:
    if compressor == 1:
        return bytes(_snappy().snappy.compress(raw))
    if compressor == 2:
        return gzip.compress(raw, mtime=0)
    return raw


def _header(f: Any, chunk: Chunk, size: int) -> tuple[int, int, int, int]:
    """``(checksum, compressor, compressed size, records)`` of the chunk at ``chunk.offset``."""
    f.seek(chunk.offset)
    head = f.read(HEADER.size)
    if len(head) < HEADER.size:
        raise DataError(
            f"recordio: {chunk.where()} is truncated: its header has {len(head)} of "
            f"{HEADER.size} bytes."
        )
    magic, checksum, compressor, length, count = HEADER.unpack(head)
    if magic != MAGIC:
        raise DataError(
            f"recordio: {chunk.where()} starts with magic number {magic:#010x}, expected "
            f"{MAGIC:#010x}; the file is not v2 RecordIO or is corrupt there."
        )
    if length > size - chunk.offset - HEADER.size:
        raise DataError(
            f"recordio: {chunk.where()} is truncated: its header announces {length} bytes of "
            f"data, the file has {size - chunk.offset - HEADER.size} left."
        )
    return checksum, compressor, length, count


def scan_chunks(path: str) -> list[Chunk]:
    """The chunks of a v2 RecordIO file, from a scan of their headers (v2's ``LoadIndex``).

    Raises:
      DataError: a header is cut short, has a wrong magic number or announces more data
        than the file holds.
    """
    chunks = []
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        offset = 0
        while offset < size:
            _, _, length, count = _header(f, Chunk(path, len(chunks), offset, 0), size)
            chunks.append(Chunk(path, len(chunks), offset, count))
            offset += HEADER.size + length
    return chunks


def _split(raw: bytes, count: int, chunk: Chunk) -> list[bytes]:
    records, pos = [], 0
    for index in range(count):
        if pos + _LENGTH.size > len(raw):
            raise DataError(f"recordio: record {index} of {chunk.where()} is truncated.")
        (length,) = _LENGTH.unpack_from(raw, pos)
        pos += _LENGTH.size
        if pos + length > len(raw):
            raise DataError(f"recordio: record {index} of {chunk.where()} is truncated.")
        records.append(raw[pos : pos + length])
        pos += length
    return records


def read_chunk(f: Any, chunk: Chunk, size: int) -> tuple[list[bytes], int]:
    """The records of ``chunk`` in the open file ``f`` (of ``size`` bytes), checked against
    its checksum, and the offset of the next chunk.

    Raises:
      DataError: a bad header or checksum, a truncated chunk or record, or a record count
        other than ``chunk.num_records`` when that is set (the file changed since its scan).
    """
    checksum, compressor, length, count = _header(f, chunk, size)
    if chunk.num_records and count != chunk.num_records:
        raise DataError(
            f"recordio: {chunk.where()} now holds {count} records, {chunk.num_records} when the "
            "data set was set; the file changed while it was being read."
        )
    data = f.read(length)
    if zlib.crc32(data) != checksum:
        raise DataError(
            f"recordio: {chunk.where()} fails its CRC-32 checksum (stored {checksum:#010x}, "
            f"computed {zlib.crc32(data):#010x}); the file is corrupt."
        )
    records = _split(_inflate(data, compressor, chunk.where()), count, chunk)
    return records, chunk.offset + HEADER.size + length


def chunk_records(chunk: Chunk) -> list[bytes]:
    """The records of one chunk, read from its file (what a master task reads)."""
    with open(chunk.path, "rb") as f:
        return read_chunk(f, chunk, os.fstat(f.fileno()).st_size)[0]


def read_records(path: str) -> Iterator[tuple[Chunk, int, bytes]]:
    """Yield ``(chunk, record number in the chunk, record bytes)`` of a v2 RecordIO file."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        offset, index = 0, 0
        while offset < size:
            chunk = Chunk(path, index, offset, 0)
            records, offset = read_chunk(f, chunk, size)
            for number, record in enumerate(records):
                yield chunk, number, record
            index += 1


def decode_record(record: bytes, chunk: Chunk, number: int) -> Any:
    """The sample a v2 record pickled, read without running code (see ``safe_pickle``)."""
    return safe_pickle.load_plain(record, f"recordio: record {number} of {chunk.where()}")


def read_samples(path: str) -> Iterator[Any]:
    """Yield the decoded samples of a v2 RecordIO file."""
    for chunk, number, record in read_records(path):
        yield decode_record(record, chunk, number)


def read_any_samples(path: str) -> Iterator[Any]:
    """Yield the samples of a v2 RecordIO file or a paddle_lite record file, told apart by
    their first bytes (see ``is_v2``)."""
    yield from (read_samples(path) if is_v2(path) else recordio.read_samples(path))


def is_v2(path: str) -> bool:
    """Whether ``path`` is a v2 RecordIO file (an empty file is one of no chunks, as v2
    read it) rather than a paddle_lite record file.

    Raises:
      DataError: the file is neither.
    """
    with open(path, "rb") as f:
        head = f.read(len(recordio.MAGIC))
    if head == recordio.MAGIC:
        return False
    if head[:4] == MAGIC_BYTES or not head:
        return True
    raise DataError(
        f"recordio: {path!r} is neither a v2 RecordIO file (which starts with "
        f"{MAGIC_BYTES!r}) nor a paddle_lite record file (which starts with "
        f"{recordio.MAGIC!r}); it starts with {head!r}."
    )


def _compressor_id(compressor: Any) -> int:
    if compressor in COMPRESSORS:
        return COMPRESSORS[compressor]
    if compressor in COMPRESSORS.values() and not isinstance(compressor, bool):
        return int(compressor)
    raise DataError(
        f"write_recordio_v2: compressor must be one of {sorted(COMPRESSORS)} or their ids "
        f"0, 1, 2; received {compressor!r}."
    )


def _write_chunk(f: Any, records: list[bytes], compressor: int) -> None:
    raw = b"".join(_LENGTH.pack(len(r)) + r for r in records)
    data = _deflate(raw, compressor)
    f.write(HEADER.pack(MAGIC, zlib.crc32(data), compressor, len(data), len(records)))
    f.write(data)


def write_recordio_v2(
    path: str | os.PathLike,
    reader: Reader,
    compressor: str | int = "none",
    max_chunk_size: int = DEFAULT_MAX_CHUNK_SIZE,
) -> int:
    """Write every sample of a reader to a v2 RecordIO file, replacing it atomically.

    Each sample is pickled as v2's Python 2 read it (``safe_pickle.dumps_plain``); a chunk
    is closed before its records pass ``max_chunk_size`` bytes, as v2's writer did. The file
    is read by ``paddle.reader.creator.recordio``, ``cloud_reader`` and by v2 itself.

    Args:
        path: the file to write.
        reader: the reader whose samples to store (None, bool, int, float, str, bytes,
            lists, tuples, dicts and bool or numeric numpy arrays, nested).
        compressor: ``"none"``, ``"snappy"`` (v2's default; needs cramjam) or ``"gzip"``,
            or their ids 0, 1, 2.
        max_chunk_size: bytes of records per chunk before compression.

    Returns:
        The number of records written.

    Example:
        ```python
        write_recordio_v2("train-00000", paddle.dataset.uci_housing.train(), "gzip")
        reader = paddle.reader.creator.recordio("train-*")
        ```
    """
    check_reader(reader, "write_recordio_v2")
    compressor_id = _compressor_id(compressor)
    if compressor_id == 1:
        _snappy()
    count, pending, pending_bytes = 0, [], 0
    with atomic_write(path) as f:
        for count, sample in enumerate(reader_samples(reader, "write_recordio_v2"), start=1):
            record = safe_pickle.dumps_plain(sample, f"write_recordio_v2: sample {count - 1}")
            if pending and pending_bytes + len(record) > max_chunk_size:
                _write_chunk(f, pending, compressor_id)
                pending, pending_bytes = [], 0
            pending.append(record)
            pending_bytes += len(record)
        if pending:
            _write_chunk(f, pending, compressor_id)
    return count
