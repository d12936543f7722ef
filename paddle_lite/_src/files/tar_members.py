"""Reading the member list of a parameter tar whole, or refusing it with the offset.

Python's ``tarfile`` stops quietly at the first header after the first member that does
not parse (a flipped bit, a file cut inside a header) and treats it as the end of the
archive, so a damaged tar would load some of its parameters and no error. Here the
members are read one by one and what follows the last one is checked:

* two zero blocks (the end-of-archive marker ``tarfile``, GNU tar and
  ``Parameters.to_tar`` write): the tar is whole; bytes after them are ignored, as tar
  tools ignore them (a compressed stream is still read to its end, so its checksum is
  verified);
* nothing at all: the tar was written the way PaddlePaddle v2's ``Parameters.to_tar``
  wrote it (it never closed its ``TarFile``, so its tars, e.g. the book's
  ``fit_a_line.tar``, have no end-of-archive blocks). v2 wrote each parameter's
  ``<name>.protobuf`` member after its values, so such a tar must end with a
  ``.protobuf`` member; one cut exactly between two parameters cannot be told apart
  from a smaller whole tar (``init_from_tar`` names what the tar lacks);
* anything else (a header that does not parse, a lone zero block, a partial block, a
  member whose data runs past the end of the file) is a ``ParameterError`` naming the
  file and the byte offset.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import tarfile
import zlib
from typing import IO, Literal

from paddle_lite._src.errors import ParameterError

BLOCK = 512
# What reading a damaged tar (or compressed stream) can raise besides ParameterError.
READ_ERRORS = (tarfile.TarError, EOFError, OSError, zlib.error, ValueError, UnicodeError)
ReadMode = Literal["r:", "r:gz", "r:bz2", "r:xz"]
_MAGIC: tuple[tuple[bytes, ReadMode], ...] = (
    (b"\x1f\x8b", "r:gz"),
    (b"BZh", "r:bz2"),
    (b"\xfd7zXZ\x00", "r:xz"),
)
_CHUNK = 1 << 20
_PACKED = (gzip.GzipFile, bz2.BZ2File, lzma.LZMAFile)


def open_tar(stream: IO[bytes], where: str) -> tarfile.TarFile:
    """The tar in ``stream`` (plain, gzip, bzip2 or xz, told by its first bytes)."""
    start = stream.tell()
    head = stream.read(6)
    stream.seek(start)
    mode: ReadMode = next((m for magic, m in _MAGIC if head.startswith(magic)), "r:")
    try:
        return tarfile.open(fileobj=stream, mode=mode)
    except READ_ERRORS as err:
        what = f"the header at byte {start}" if mode == "r:" else "the compressed stream"
        raise ParameterError(
            f"cannot read the parameter tar {where}: {_why(err)} ({what} does not parse). "
            "Expected a v2 parameter tar (written by Parameters.to_tar or PaddlePaddle v2)."
        ) from None


def _why(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text.rstrip(".")


def _bad_member(member: tarfile.TarInfo) -> str | None:
    """Why a member may not appear in a parameter tar, or None when it may."""
    name = member.name
    if name.startswith(("/", "\\")) or (name[:1].isalpha() and name[1:2] == ":"):
        return "has an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "has a '..' path component"
    if member.issym() or member.islnk():
        return f"is a link (to {member.linkname!r})"
    if not (member.isfile() or member.isdir()):
        return "is a device, fifo or other special file"
    return None


def _all_members(tar: tarfile.TarFile, where: str) -> list[tarfile.TarInfo]:
    members: list[tarfile.TarInfo] = []
    while True:
        try:
            member = tar.next()
        except READ_ERRORS as err:
            after = f" (after member {members[-1].name!r})" if members else ""
            raise ParameterError(
                f"the parameter tar {where} is truncated or corrupt at byte {tar.offset}"
                f"{after}: {_why(err)}."
            ) from None
        if member is None:
            return members
        members.append(member)


def members(tar: tarfile.TarFile, where: str) -> dict[str, tarfile.TarInfo]:
    """The regular-file members by name, after checking the tar ends properly.

    Unsafe members (absolute or ``..`` paths, links, devices) are refused.
    """
    found = _all_members(tar, where)
    check_end(tar, found, where)
    out = {}
    for member in found:
        problem = _bad_member(member)
        if problem is not None:
            raise ParameterError(
                f"tar member {member.name!r} of {where} {problem}; a parameter tar holds only "
                "regular files named after parameters, so this file is refused."
            )
        if member.isfile():
            out[member.name] = member
    return out


def check_end(tar: tarfile.TarFile, found: list[tarfile.TarInfo], where: str) -> None:
    """Refuse a tar whose last member is not followed by its proper end (module doc)."""
    end = tar.offset
    stream = tar.fileobj
    try:
        stream.seek(end)
        tail = stream.read(2 * BLOCK)
        if len(tail) == 2 * BLOCK and not tail.strip(b"\0") and isinstance(stream, _PACKED):
            while stream.read(_CHUNK):  # a compressed stream: reach its checksum
                pass
    except READ_ERRORS as err:
        raise ParameterError(
            f"the parameter tar {where} is truncated or corrupt after byte {end}: {_why(err)}."
        ) from None
    if len(tail) == 2 * BLOCK and not tail.strip(b"\0"):
        return
    last = found[-1].name if found else None
    if not tail:
        if last is not None and last.endswith(".protobuf"):
            return  # v2's own writer: no end-of-archive blocks (module doc)
        raise ParameterError(
            f"the parameter tar {where} ends at byte {end}, after member {last!r}, with no "
            "end-of-archive blocks and no '<name>.protobuf' member last (PaddlePaddle v2 "
            "wrote each parameter's config after its values); the file is truncated."
        )
    raise ParameterError(
        f"the parameter tar {where} is truncated or corrupt at byte {end} (after member "
        f"{last!r}): {_tail_problem(tail)}; expected another member header or the "
        "end-of-archive blocks (two zero blocks)."
    )


def _tail_problem(tail: bytes) -> str:
    """Why the bytes after the last member are neither a header nor the end marker."""
    if not tail[:BLOCK].strip(b"\0"):
        return f"one zero block, then {len(tail) - BLOCK} bytes that are not a second one"
    if len(tail) < BLOCK:
        return f"{len(tail)} bytes, less than a {BLOCK}-byte header block"
    try:
        tarfile.TarInfo.frombuf(tail[:BLOCK], "utf-8", "surrogateescape")
    except READ_ERRORS as err:
        return f"the member header there does not parse ({_why(err)})"
    return "a member header there that the tar reader stopped at"
