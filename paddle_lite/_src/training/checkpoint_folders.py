"""Replacing a folder so that its name always holds a whole one: the old or the new.

``replacing`` yields a hidden sibling folder (``.<name>.<random>``) for the caller to
fill; when the block ends it writes the manifest (each file's size and sha256, and the
save's sequence number), fsyncs the folder and puts it in place:

* where the system can swap two paths atomically (Linux ``renameat2`` with
  ``RENAME_EXCHANGE``), the new folder and the old one trade names in one step, so the
  name holds the old checkpoint until the instant it holds the new one;
* elsewhere the old folder is renamed aside (``.<name>.<random>.old``) and the new one
  into place; a process killed between the two renames leaves no folder under the name
  but two whole hidden siblings, and ``recoverable`` finds the newer (the higher
  sequence number), so a load never sees "no checkpoint" once one was completed.

Afterwards every hidden sibling of this naming (the old folder, and the folders of saves
that were killed) is removed. Every filesystem step is one call of ``os`` / ``shutil``,
in the order listed in ``replacing``, so a test can stop the process before any one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence

from paddle_lite._src.errors import PaddleLiteError
from paddle_lite._src.files import bounded_json
from paddle_lite._src.files.atomic import naming_target

MANIFEST = "manifest.json"
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV}
_CHUNK = 1 << 20


class CheckpointError(PaddleLiteError, ValueError):
    """A checkpoint is missing, incomplete, damaged, or belongs to another network."""


def fsync_write(path: str, data: bytes) -> None:
    """Write ``data`` to the new file ``path`` and fsync it."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def exchange(a: str, b: str) -> bool:
    """Swap the paths ``a`` and ``b`` atomically; False where the system cannot."""
    try:
        rename2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return False
    rename2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if rename2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), b)


def _hidden(dirname: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(os.path.basename(dirname))}\.[A-Za-z0-9_]+(\.old)?$")


def _siblings(dirname: str) -> list[str]:
    """The hidden sibling folders of ``dirname`` this module names (stale or in flight)."""
    parent = os.path.dirname(dirname)
    pattern = _hidden(dirname)
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    return [os.path.join(parent, n) for n in sorted(names) if pattern.match(n)]


def _manifest(folder: str, files: Sequence[str], sequence: int) -> bytes:
    entries = {}
    for name in files:
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        entries[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    return json.dumps({"sequence": sequence, "files": entries}, indent=1).encode()


@contextlib.contextmanager
def replacing(dirname: str, files: Sequence[str] = ()) -> Iterator[str]:
    """A hidden sibling folder that replaces ``dirname`` when the block succeeds.

    The steps: make the sibling; the block writes its files; write the manifest; fsync
    the sibling; exchange it with ``dirname`` (or: rename ``dirname`` aside, rename the
    sibling in); fsync the parent; remove the old folder and stale siblings.
    """
    dirname = os.path.abspath(dirname)
    parent = os.path.dirname(dirname)
    os.makedirs(parent, exist_ok=True)
    sequence = _sequence(dirname) + 1
    try:
        tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(dirname)}.", dir=parent)
    except OSError as exc:
        raise naming_target(exc, dirname, None, "checkpoint") from exc
    try:
        yield tmp
        names = files or sorted(n for n in os.listdir(tmp) if n != MANIFEST)
        fsync_write(os.path.join(tmp, MANIFEST), _manifest(tmp, names, sequence))
        _fsync_dir(tmp)
        _put_in_place(tmp, dirname)
        _fsync_dir(parent)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):  # a full disk, a folder refusing files: name the checkpoint
            raise naming_target(exc, dirname, tmp, "checkpoint") from exc
        raise
    for stale in _siblings(dirname):
        shutil.rmtree(stale, ignore_errors=True)


def _put_in_place(tmp: str, dirname: str) -> None:
    if not os.path.lexists(dirname):
        os.rename(tmp, dirname)
    elif not exchange(tmp, dirname):
        os.rename(dirname, tmp + ".old")
        os.rename(tmp, dirname)


def _read_manifest(folder: str) -> dict | None:
    try:
        with open(os.path.join(folder, MANIFEST), "rb") as f:
            data = f.read(_CHUNK)
        manifest = bounded_json.loads(data, folder, CheckpointError, max_depth=4)
    except (OSError, CheckpointError):
        return None
    ok = isinstance(manifest, dict) and isinstance(manifest.get("files"), dict)
    return manifest if ok and isinstance(manifest.get("sequence"), int) else None


def is_complete(folder: str, files: Sequence[str]) -> bool:
    """Whether ``folder`` holds a readable manifest listing ``files``, each present."""
    manifest = _read_manifest(folder)
    if manifest is None:
        return False
    listed = manifest["files"]
    return all(n in listed and os.path.isfile(os.path.join(folder, n)) for n in files)


def _sequence(dirname: str) -> int:
    found = [dirname, *_siblings(dirname)]
    numbers = [m["sequence"] for m in map(_read_manifest, found) if m is not None]
    return max(numbers, default=0)


def recoverable(dirname: str, files: Sequence[str]) -> str | None:
    """The newest complete hidden sibling of a missing ``dirname`` (module doc), or None."""
    dirname = os.path.abspath(dirname)
    if os.path.lexists(dirname):
        return None
    best: tuple[int, str] | None = None
    for path in _siblings(dirname):
        manifest = _read_manifest(path)
        if manifest is not None and is_complete(path, files):
            best = max(best or (-1, ""), (manifest["sequence"], path))
    return None if best is None else best[1]


def verified(folder: str, files: Sequence[str]) -> dict[str, bytes]:
    """The bytes of ``files`` in ``folder``, each checked against the manifest (size
    before reading, then sha256); a ``CheckpointError`` naming the file otherwise."""
    manifest = _read_manifest(folder)
    if manifest is None:
        raise CheckpointError(f"checkpoint {folder!r}: {MANIFEST} is missing or unreadable.")
    out = {}
    for name in files:
        entry = manifest["files"].get(name)
        where = f"checkpoint {folder!r}, file {name!r}"
        if not (isinstance(entry, dict) and isinstance(entry.get("size"), int)):
            raise CheckpointError(f"{where}: the manifest has no valid entry for it.")
        path = os.path.join(folder, name)
        size = os.path.getsize(path)
        if size != entry["size"]:
            raise CheckpointError(
                f"{where} is {size} bytes; the manifest says {entry['size']} (damaged)."
            )
        with open(path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            raise CheckpointError(f"{where}: its sha256 differs from the manifest's (damaged).")
        out[name] = data
    return out
