"""A small reader of MATLAB v5 ``.mat`` files (numeric matrices only), so data sets that
ship labels as ``.mat`` (Oxford flowers) need no SciPy.

Format: a 128-byte header (text, subsystem offset, version, endian mark ``IM``), then data
elements: an 8-byte tag (type, byte count) or a 4-byte "small element" tag, the data, and
padding to 8 bytes. ``miCOMPRESSED`` elements hold a zlib stream of one element;
``miMATRIX`` elements hold the array flags, dimensions, name and real part (column-major).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from paddle_lite._src.dataset.sources import corrupt

MI_MATRIX, MI_COMPRESSED = 14, 15
_NUMERIC = {
    1: "i1",
    2: "u1",
    3: "i2",
    4: "u2",
    5: "i4",
    6: "u4",
    7: "f4",
    9: "f8",
    12: "i8",
    13: "u8",
}


def _element(buf: bytes, pos: int) -> tuple[int, bytes, int]:
    """``(type, data, next position)`` of the element at ``pos``."""
    kind, size = struct.unpack_from("<II", buf, pos)
    if kind >> 16:  # small element: type and size share the first word
        return kind & 0xFFFF, buf[pos + 4 : pos + 4 + (kind >> 16)], pos + 8
    end = pos + 8 + size
    if end > len(buf):
        raise ValueError(f"an element of {size} bytes runs past the end of the file")
    pad = 0 if kind == MI_COMPRESSED else -size % 8  # compressed elements are not padded
    return kind, buf[pos + 8 : end], end + pad


def _matrix(data: bytes) -> tuple[str, np.ndarray]:
    """``(name, array)`` of a numeric ``miMATRIX`` element's data."""
    pos, parts = 0, []
    while pos < len(data) and len(parts) < 4:
        kind, body, pos = _element(data, pos)
        parts.append((kind, body))
    (_, _flags), (_, dims), (_, name), (kind, real) = parts
    shape = np.frombuffer(dims, "<i4")
    if kind not in _NUMERIC:
        raise ValueError(f"matrix {name!r} has data type {kind}, not a numeric type")
    values = np.frombuffer(real, "<" + _NUMERIC[kind])
    return name.decode("ascii"), values.reshape(tuple(shape), order="F")


def read_mat(raw: bytes, path: str = "", md5sum: str = "") -> dict[str, np.ndarray]:
    """The numeric matrices of a v5 ``.mat`` file by name.

    Args:
      raw: the file's bytes.
      path, md5sum: named in the error when the file cannot be read.

    Returns:
      ``{name: ndarray}`` in MATLAB's shapes (e.g. ``(1, 8189)`` for a row vector).

    Raises:
      CorruptFileError: not a little-endian v5 file, or a damaged element.
    """
    if len(raw) < 128 or raw[126:128] != b"IM":
        raise corrupt(path, "it is not a little-endian MATLAB v5 .mat file", md5sum)
    out, pos = {}, 128
    try:
        while pos + 8 <= len(raw):
            kind, data, pos = _element(raw, pos)
            if kind == MI_COMPRESSED:
                kind, data, _ = _element(zlib.decompress(data), 0)
            if kind == MI_MATRIX:
                name, array = _matrix(data)
                out[name] = array
    except (ValueError, struct.error, zlib.error) as exc:
        raise corrupt(path, f"{type(exc).__name__}: {exc}", md5sum) from exc
    return out


def write_mat(arrays: dict[str, np.ndarray], compress: bool = False) -> bytes:
    """A v5 ``.mat`` file holding ``arrays`` as double matrices (for tests and tools)."""
    out = [b"MATLAB 5.0 MAT-file".ljust(116) + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"]
    for name, array in arrays.items():
        array = np.atleast_2d(np.asarray(array, "<f8"))
        body = b"".join(
            _pack(kind, data)
            for kind, data in (
                (6, struct.pack("<II", 6, 0)),  # array flags: class double
                (5, np.asarray(array.shape, "<i4").tobytes()),
                (1, name.encode("ascii")),
                (9, array.tobytes(order="F")),
            )
        )
        element = _pack(MI_MATRIX, body)
        out.append(_pack(MI_COMPRESSED, zlib.compress(element)) if compress else element)
    return b"".join(out)


def _pack(kind: int, data: bytes) -> bytes:
    pad = 0 if kind == MI_COMPRESSED else -len(data) % 8
    return struct.pack("<II", kind, len(data)) + data + b"\0" * pad
