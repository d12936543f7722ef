"""v2's parameter files at the byte level: one parameter's binary values, the parameter tar.

``Parameters.to_tar`` / ``from_tar`` / ``serialize`` / ``deserialize`` build on these.
The tar is byte for byte as PaddlePaddle v2 writes it: a GNU tar with, per parameter in
order, a member ``<name>`` holding a 16-byte header ``struct.pack("<IIQ", 0, 4, count)``
(``HEADER``) and ``count`` float32 values, then a member ``<name>.protobuf`` holding its
serialized ``ParameterConfig``; member metadata is fixed (mode 0644, mtime 0, uid/gid 0),
so equal parameters give equal bytes. Reading checks every size before it reads and
fails with typed errors that name the file and the member.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
import tarfile
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

import numpy as np

from paddle_lite._src.errors import ParameterError, ParameterWarning
from paddle_lite._src.files import atomic, tar_members
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.specs import ParamSpec
from paddle_lite._src.tracebacks import user_stacklevel

HEADER = struct.Struct("<IIQ")  # version 0, bytes per value, element count
MAX_CONFIG_BYTES = 1 << 20  # a ParameterConfig is a few dozen bytes
_READ_ERRORS = tar_members.READ_ERRORS


def read_values(
    name: str, shape: tuple[int, ...], f: IO[bytes], available: int | None = None
) -> np.ndarray:
    """Parse the v2 binary format (``<IIQ`` header, float32 or float64 values).

    ``available`` (the tar member's size, when known) must equal the header plus the
    values the header announces; it is checked before the values are read.
    """
    head = f.read(HEADER.size)
    if len(head) != HEADER.size:
        raise ParameterError(f"parameter '{name}': {len(head)}-byte header, expected 16.")
    version, width, count = HEADER.unpack(head)
    size = math.prod(shape)
    if version != 0 or width not in (4, 8) or count != size:
        raise ParameterError(
            f"parameter '{name}': header (version {version}, value size {width}, count "
            f"{count}) does not match the expected (version 0, value size 4, count {size} "
            f"for shape {shape})."
        )
    if available is not None and available != HEADER.size + count * width:
        raise ParameterError(
            f"parameter '{name}': the member holds {available} bytes but its header announces "
            f"{HEADER.size + count * width} (16 + {count} values of {width} bytes); the file "
            "is truncated or corrupt."
        )
    raw = f.read(count * width)
    if len(raw) != count * width:
        raise ParameterError(
            f"parameter '{name}': {len(raw)} bytes of values, expected {count * width}; the "
            "data is truncated."
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


def member_bytes(value: np.ndarray) -> bytes:
    """One parameter in v2's binary format: the 16-byte header, then float32 values."""
    return HEADER.pack(0, 4, value.size) + value.astype("<f4").tobytes()


def write_tar(
    stream: IO[bytes], specs: Iterable[ParamSpec], values: Mapping[str, np.ndarray]
) -> None:
    """The v2 tar of ``values``: per spec, in order, a member ``<name>`` (``member_bytes``)
    and a member ``<name>.protobuf`` (its ``ParameterConfig``), then the end blocks."""
    for spec in specs:
        _write_member(stream, spec.name, member_bytes(values[spec.name]))
        _write_member(stream, spec.name + ".protobuf", proto.encode(proto.from_spec(spec)))
    stream.write(b"\0" * (2 * tar_members.BLOCK))


def _write_member(stream: IO[bytes], name: str, data: bytes) -> None:
    raw = name.encode("utf-8")
    if len(raw) > 99:
        long_name = raw + b"\0"
        stream.write(_tar_header(b"././@LongLink", len(long_name), 0, b"L"))
        stream.write(long_name + b"\0" * (-len(long_name) % tar_members.BLOCK))
    stream.write(_tar_header(raw, len(data), 0o644, b"0"))
    stream.write(data + b"\0" * (-len(data) % tar_members.BLOCK))


def source_name(f: Any) -> str:
    """How errors name a file argument: its path, a stream's ``name``, or ``<stream>``."""
    if atomic.is_path(f):
        return repr(os.fspath(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else "<stream>"


def _handle(tar: tarfile.TarFile, member: tarfile.TarInfo, where: str) -> IO[bytes]:
    handle = tar.extractfile(member)
    if handle is None:
        raise ParameterError(f"tar member {member.name!r} of {where} is not a regular file.")
    return handle


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo, where: str, limit: int) -> bytes:
    """The bytes of a member of at most ``limit`` bytes (checked before reading)."""
    if member.size > limit:
        raise ParameterError(
            f"tar member {member.name!r} of {where} is {member.size} bytes; at most {limit} "
            "are expected, so the file is refused."
        )
    handle = _handle(tar, member, where)
    try:
        data = handle.read()
    except _READ_ERRORS as err:
        raise ParameterError(
            f"tar member {member.name!r} of {where} is truncated: {err}."
        ) from None
    if len(data) != member.size:
        raise ParameterError(
            f"tar member {member.name!r} of {where} has {len(data)} of its {member.size} bytes."
        )
    return data


def _member_values(
    tar: tarfile.TarFile, member: tarfile.TarInfo, shape: tuple[int, ...], where: str
) -> np.ndarray:
    """The values of the parameter member ``member``, sizes checked before reading."""
    handle = _handle(tar, member, where)
    try:
        return read_values(member.name, shape, handle, member.size)
    except ParameterError as err:
        raise ParameterError(f"tar member {member.name!r} of {where}: {err}") from None
    except _READ_ERRORS as err:
        raise ParameterError(
            f"tar member {member.name!r} of {where} is truncated: {err}."
        ) from None


@contextlib.contextmanager
def _reading(f: Any) -> Iterator[IO[bytes]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream
    else:
        yield atomic.binary_stream(f)


def _config_spec(tar: tarfile.TarFile, member: tarfile.TarInfo, where: str) -> ParamSpec:
    """The spec in a ``<name>.protobuf`` member; errors name the member and the file."""
    data = _read(tar, member, where, MAX_CONFIG_BYTES)
    try:
        spec = proto.to_spec(proto.decode(data))
    except ParameterError as err:
        raise ParameterError(f"tar member {member.name!r} of {where}: {err}") from None
    expected = member.name[: -len(".protobuf")]
    if spec.name != expected:
        raise ParameterError(
            f"tar member {member.name!r} of {where} holds the config of parameter "
            f"{spec.name!r}; expected {expected!r}, the member's own name."
        )
    return spec


def _warn_unless_empty(members: dict[str, tarfile.TarInfo], where: str) -> None:
    """A tar with files but no parameter is almost surely not a parameter tar; v2 read it
    as an empty set all the same."""
    if not members:
        return
    names = sorted(members)
    shown = ", ".join(repr(n) for n in names[:5]) + (" ..." if len(names) > 5 else "")
    warnings.warn(
        f"the tar {where} holds no parameter (no '<name>.protobuf' member) but "
        f"{len(names)} other file(s) ({shown}); it is read as an empty parameter set, as "
        "v2 read it. Is it a parameter tar (written by Parameters.to_tar)?",
        ParameterWarning,
        stacklevel=user_stacklevel(),
    )


def read_parameter_tar(f: Any) -> list[tuple[ParamSpec, np.ndarray]]:
    """``(spec, values)`` of every parameter of a v2 tar (a path or a binary stream).

    The ``*.protobuf`` members give the specs, in member order; each parameter's values
    come from the member of its name, its size checked against its header first. A whole
    tar without parameters reads as none, as v2's ``Parameters.from_tar`` read it (one
    with other files in it, with a ``ParameterWarning``); a damaged one is refused.
    """
    where = source_name(f)
    with _reading(f) as stream, tar_members.open_tar(stream, where) as tar:
        members = tar_members.members(tar, where)
        specs = [
            _config_spec(tar, member, where)
            for name, member in members.items()
            if name.endswith(".protobuf")
        ]
        if not specs:
            _warn_unless_empty(members, where)
            return []
        out = []
        for spec in specs:
            if spec.name not in members:
                raise ParameterError(
                    f"tar {where} has a config for parameter '{spec.name}' but no member "
                    f"'{spec.name}' holding its values."
                )
            out.append((spec, _member_values(tar, members[spec.name], spec.shape, where)))
        return out
