"""Parameter file I/O at the byte level: v2 binary values, GNU tar members, atomic writes.

``Parameters.to_tar`` / ``from_tar`` / ``save_npz`` / ``serialize`` build on these:
the v2 binary format of one parameter (``HEADER`` ``<IIQ``, then the values), one
tar member written field for field as PaddlePaddle v2 wrote it, tar reading with
typed errors, the byte stream under a text-mode file, and writing a path atomically
(a temporary file in the same directory, then ``os.replace``).
"""

from __future__ import annotations

import contextlib
import io
import os
import struct
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np

from paddle_lite._src.distributed import is_writer
from paddle_lite._src.errors import ParameterError

HEADER = struct.Struct("<IIQ")  # version 0, bytes per value, element count
_BLOCK = 512


def _read_values(name: str, shape: tuple[int, ...], f: IO[bytes]) -> np.ndarray:
    """Parse the v2 binary format (``<IIQ`` header, float32 or float64 values)."""
    head = f.read(HEADER.size)
    if len(head) != HEADER.size:
        raise ParameterError(f"parameter '{name}': {len(head)}-byte header, expected 16.")
    version, width, count = HEADER.unpack(head)
    size = int(np.prod(shape, dtype=np.int64))
    if version != 0 or width not in (4, 8) or count != size:
        raise ParameterError(
            f"parameter '{name}': header (version {version}, value size {width}, count "
            f"{count}) does not match the expected (version 0, value size 4, count {size} "
            f"for shape {shape})."
        )
    raw = f.read(count * width)
    if len(raw) != count * width:
        raise ParameterError(
            f"parameter '{name}': {len(raw)} bytes of values, expected {count * width}."
        )
    dtype = "<f4" if width == 4 else "<f8"
    return np.frombuffer(raw, dtype).astype(np.float32).reshape(shape)


def _tar_header(name: bytes, size: int, mode: int, kind: bytes) -> bytes:
    """One GNU tar header block, field for field as Python 2's ``tarfile`` wrote it."""
    if size >= 8**11:
        raise ParameterError(f"tar member '{name.decode()}' of {size} bytes is too large.")

    def octal(n: int, width: int) -> bytes:
        return b"%0*o\0" % (width - 1, n)

    head = b"".join(
        [
            name[:100].ljust(100, b"\0"),
            octal(mode, 8),
            octal(0, 8),
            octal(0, 8),
            octal(size, 12),
            octal(0, 12),
            b" " * 8,
            kind,
            b"\0" * 100,
            b"ustar  \0",
            b"\0" * 64,
            octal(0, 8),
            octal(0, 8),
            b"\0" * 167,
        ]
    )
    return head[:148] + b"%06o\0" % sum(head) + head[155:]


def _write_member(stream: IO[bytes], name: str, data: bytes) -> None:
    raw = name.encode("utf-8")
    if len(raw) > 99:
        long_name = raw + b"\0"
        stream.write(_tar_header(b"././@LongLink", len(long_name), 0, b"L"))
        stream.write(long_name + b"\0" * (-len(long_name) % _BLOCK))
    stream.write(_tar_header(raw, len(data), 0o644, b"0"))
    stream.write(data + b"\0" * (-len(data) % _BLOCK))


def _open_tar(stream: IO[bytes]) -> tarfile.TarFile:
    try:
        return tarfile.open(fileobj=stream, mode="r:*")
    except tarfile.TarError as err:
        raise ParameterError(f"cannot read the parameter tar: {err}.") from None


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(member)
    if handle is None:
        raise ParameterError(f"tar member '{member.name}' is not a regular file.")
    return handle.read()


@contextlib.contextmanager
def _reading(f: Any) -> Iterator[IO[bytes]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream
    else:
        yield _binary(f)


def _binary(f: Any) -> Any:
    """The byte stream under a text-mode file (v2 programs open tars with ``'w'``/``'r'``)."""
    if isinstance(f, io.TextIOBase):
        f.flush()
        return f.buffer
    return f


def _write_output(f: Any, write: Callable[[IO[bytes]], None]) -> None:
    """Run ``write`` on ``f``; for a path, atomically through a temporary file.

    In a multi-process job only process 0 writes (the others would write the same
    bytes to the same place).
    """
    if not is_writer():
        return
    if not isinstance(f, (str, os.PathLike)):
        stream = _binary(f)
        write(stream)
        stream.flush()
        return
    path = os.path.abspath(os.fspath(f))
    fd, tmp = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=os.path.dirname(path)
    )
    try:
        with os.fdopen(fd, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp, os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
