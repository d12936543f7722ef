"""Reading data files: archives, extracted folders, gzip, and typed errors for bad files.

A *source* is a path to a tar archive (any compression), a zip archive or a folder. Member
names are relative POSIX paths without a leading ``./`` (``simple-examples/data/ptb.train.txt``),
so a module finds the same member in Paddle's archive, in a repack and in an extracted folder.
Folders are walked in natural order (``2_9.txt`` before ``10_1.txt``), which is the order of the
files in the original archives.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator

from paddle_lite._src.errors import DataError

_READ_ERRORS = (
    EOFError,
    zlib.error,
    gzip.BadGzipFile,
    tarfile.TarError,
    zipfile.BadZipFile,
    UnicodeDecodeError,
    struct.error,
)


class CorruptFileError(DataError):
    """A data file is truncated, corrupted or not in the expected format.

    Attributes:
      path: the offending file.
      md5sum: the md5 of the official file, or ``""`` where none is known.
    """

    def __init__(self, message: str, path: str = "", md5sum: str = ""):
        super().__init__(message)
        self.path: str = path
        self.md5sum: str = md5sum


def corrupt(path: str, problem: str, md5sum: str = "") -> CorruptFileError:
    """Build the error for a bad data file.

    Args:
      path: the offending file.
      problem: what is wrong, e.g. ``"header count 10, expected 60000"``.
      md5sum: the md5 of the official file, if known.

    Returns:
      A ``CorruptFileError`` whose message names the file, the problem, the md5 and the fix.
    """
    message = f"Data file {path} is corrupted, truncated or in the wrong format: {problem}."
    if md5sum:
        message += f" The official file has md5 {md5sum}."
    message += " Delete it so it is downloaded again, or replace it with an intact copy."
    return CorruptFileError(message, path=path, md5sum=md5sum)


@contextlib.contextmanager
def reading(path: str, md5sum: str = "") -> Iterator[None]:
    """Turn low-level decoding errors raised inside the block into ``CorruptFileError``.

    Args:
      path: the file being read (named in the error).
      md5sum: the md5 of the official file, if known.
    """
    try:
        yield
    except CorruptFileError:
        raise
    except _READ_ERRORS as exc:
        raise corrupt(path, f"{type(exc).__name__}: {exc}", md5sum) from exc


def natural_key(name: str) -> list:
    """Sort key that orders digit runs by value: ``a/2_9.txt`` < ``a/10_1.txt``."""
    return [int(t) if i % 2 else t for i, t in enumerate(re.split(r"(\d+)", name))]


def _norm(name: str) -> str:
    """Strip a leading ``./`` or ``/`` from an archive member name."""
    while name.startswith("./"):
        name = name[2:]
    return name.lstrip("/")


def _dir_names(root: str) -> list[str]:
    """Relative POSIX names of all regular files under ``root``, in natural order."""
    names = []
    for folder, _, files in os.walk(root, followlinks=True):
        rel = os.path.relpath(folder, root)
        for f in files:
            names.append(f if rel == "." else f"{rel}/{f}".replace(os.sep, "/"))
    return sorted(names, key=natural_key)


def iter_members(
    path: str, match: Callable[[str], bool] | None = None, md5sum: str = ""
) -> Iterator[tuple[str, bytes]]:
    """Yield ``(name, content)`` for the regular files in an archive or folder.

    Args:
      path: a tar archive (any compression), a zip archive, or a folder.
      match: predicate on the member name; members for which it is false are skipped
        without being read. ``None`` keeps every member.
      md5sum: md5 of the official archive, named in errors.

    Returns:
      An iterator over ``(name, bytes)`` in archive order (natural order for folders).

    Raises:
      CorruptFileError: the archive cannot be read.
    """
    keep = match or (lambda name: True)
    if os.path.isdir(path):
        for name in _dir_names(path):
            if keep(name):
                with open(os.path.join(path, name), "rb") as f:
                    yield name, f.read()
        return
    with reading(path, md5sum):
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    if not info.is_dir() and keep(_norm(info.filename)):
                        yield _norm(info.filename), zf.read(info)
            return
        with tarfile.open(path, "r:*") as tf:
            for info in tf:
                if info.isfile() and keep(_norm(info.name)):
                    yield _norm(info.name), tf.extractfile(info).read()


def read_member(path: str, name: str, md5sum: str = "") -> bytes:
    """Return the content of one member of an archive or folder.

    Args:
      path: a tar archive, a zip archive, or a folder.
      name: the member name, without a leading ``./``.
      md5sum: md5 of the official archive, named in errors.

    Returns:
      The member's bytes.

    Raises:
      CorruptFileError: the archive cannot be read or has no such member.
    """
    for _, content in iter_members(path, lambda n: n == name, md5sum):
        return content
    raise corrupt(path, f"it has no member {name!r}", md5sum)


def read_text(path: str, name: str, md5sum: str = "", encoding: str = "utf-8") -> str:
    """Return one member of an archive or folder decoded as text.

    Args:
      path: a tar archive, a zip archive, or a folder.
      name: the member name, without a leading ``./``.
      md5sum: md5 of the official archive, named in errors.
      encoding: the member's text encoding.

    Returns:
      The member's text.

    Raises:
      CorruptFileError: the archive cannot be read, has no such member, or the member is not
        valid ``encoding`` (the error names ``path:name``).
    """
    with reading(f"{path}:{name}", md5sum):
        return read_member(path, name, md5sum).decode(encoding)


def gunzip(data: bytes, path: str, md5sum: str = "") -> bytes:
    """Decompress gzip bytes, naming ``path`` in the error if they are damaged.

    Args:
      data: the compressed bytes.
      path: the file they came from (or ``archive:member``).
      md5sum: md5 of the official file, if known.

    Returns:
      The decompressed bytes.
    """
    with reading(path, md5sum):
        return gzip.decompress(data)


def read_file(path: str) -> bytes:
    """Return a file's bytes (a small helper so callers need not open files themselves)."""
    with open(path, "rb") as f:
        return f.read()
