"""Atomic file writes: a file the library writes is either the old one or the new one, whole.

Every path the library writes (parameter tars and npz files, topologies, record files,
plots, dataset downloads and caches) goes through ``atomic_write``: the bytes go to a
temporary file in the same folder (``.<name>.<random>.tmp``), which is flushed and
``fsync``-ed, given the mode the target had (``0644`` for a new file) and renamed onto the
target with ``os.replace``; then the folder is ``fsync``-ed so the rename survives a power
cut. A process killed at any point leaves the previous file intact (at worst a hidden
``.tmp`` file beside it, which the next write of the same file removes); an exception
inside the block deletes the temporary file and leaves the target untouched.

Example:
    ```python
    with atomic_write("model.tar") as f:
        params.to_tar(f)
    ```
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from paddle_lite._src.distributed.parallel import is_writer

NEW_FILE_MODE = 0o644


def _fsync_folder(folder: str) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows, or a folder we may not open: the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _target_mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return NEW_FILE_MODE


def commit(tmp: str, path: str) -> None:
    """``fsync`` the finished file ``tmp``, rename it onto ``path`` and sync the folder.

    For writers that produce a file by name (``matplotlib.savefig`` into a temporary
    path, a download): call it once the file at ``tmp`` is complete and closed.
    """
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, _target_mode(path))
    os.replace(tmp, path)
    _fsync_folder(os.path.dirname(path) or ".")
    remove_stale(path)


def remove_stale(path: str) -> None:
    """Delete the temporary files earlier writes of ``path`` left when they were killed
    (``.<name>.<8 random characters>.tmp`` beside it, this module's naming only)."""
    folder, name = os.path.split(os.path.abspath(path))
    pattern = re.compile(rf"^\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp$")
    with contextlib.suppress(OSError):
        for entry in os.listdir(folder):
            if pattern.match(entry):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, entry))


def naming_target(exc: OSError, target: str, tmp: str | None, what: str = "file") -> OSError:
    """``exc`` (a failed write of the temporary ``tmp``, of something inside it, or of its
    folder), as an error of the same type and errno that names ``target``, the file (or
    folder: ``what``) the caller asked to write; an error about another path is returned
    as it is."""
    about = exc.filename
    if about is not None and tmp is not None and not str(about).startswith(tmp):
        return exc
    folder = os.path.dirname(target)
    reason = exc.strerror or str(exc) or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and not os.path.isdir(folder):
        reason += f" (the folder {folder!r} does not exist)"
    elif isinstance(exc, PermissionError):
        reason += f" (the folder {folder!r} is not writable)"
    note = f"{reason}; the {what} was not written (a previous version is unchanged)"
    try:
        return type(exc)(exc.errno, note, target)
    except TypeError:  # an OSError subclass with its own constructor
        return exc


@contextlib.contextmanager
def temporary_path(path: str | os.PathLike[str], *, makedirs: bool = False) -> Iterator[str]:
    """A fresh temporary file name beside ``path``, deleted if still there at the end.

    The block writes the file (by name) and calls ``commit`` to move it onto
    ``path``; an exception, or a block that does not commit, leaves ``path`` untouched.

    Args:
        path: the file the block means to replace.
        makedirs: create the folder of ``path`` first.

    Yields:
        The temporary file's path (the file exists, empty).
    """
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if makedirs:
        os.makedirs(folder, exist_ok=True)
    try:
        prefix = f".{os.path.basename(target)}."
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    except OSError as exc:
        raise naming_target(exc, target, None) from exc
    os.close(fd)
    try:
        yield tmp
    except OSError as exc:
        raise naming_target(exc, target, tmp) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    mode: str = "wb",
    *,
    encoding: str | None = None,
    makedirs: bool = False,
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path`` atomically.

    Args:
        path: the file to write.
        mode: ``"wb"`` (bytes) or ``"w"`` (text).
        encoding: the text encoding (text mode only; default UTF-8).
        makedirs: create the folder of ``path`` first.

    Yields:
        The open temporary file. It is flushed, ``fsync``-ed and renamed onto ``path``
        when the block ends without an exception; otherwise it is deleted.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write: mode must be 'wb' or 'w'; received {mode!r}.")
    target = os.path.abspath(os.fspath(path))
    with temporary_path(target, makedirs=makedirs) as tmp:
        text = mode == "w"
        with open(
            tmp,
            mode,
            encoding=(encoding or "utf-8") if text else None,
            newline="" if text else None,
        ) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        commit(tmp, target)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, makedirs: bool = False) -> None:
    """Atomically replace ``path`` by ``data``."""
    with atomic_write(path, "wb", makedirs=makedirs) as f:
        f.write(data)


def write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", makedirs: bool = False
) -> None:
    """Atomically replace ``path`` by ``text`` (no newline translation)."""
    with atomic_write(path, "w", encoding=encoding, makedirs=makedirs) as f:
        f.write(text)


def is_path(target: Any) -> bool:
    """True when ``target`` names a file (str or ``os.PathLike``) rather than being a stream."""
    return isinstance(target, (str, os.PathLike))


def sync_stream(stream: Any) -> None:
    """Flush a caller's stream and, when it is a real file, ``fsync`` it (best effort).

    A stream the caller opened is already truncated, so it cannot be replaced
    atomically; this at least makes the finished bytes durable.
    """
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # BytesIO, sockets, closed files
        return
    with contextlib.suppress(OSError):
        os.fsync(fd)


def binary_stream(f: Any) -> IO[bytes]:
    """The byte stream under a text-mode file (v2 programs open tars with ``'w'``/``'r'``),
    or ``f`` itself."""
    if isinstance(f, io.TextIOWrapper):
        f.flush()
        return f.buffer
    return f


def write_output(f: Any, write: Callable[[IO[bytes]], object]) -> None:
    """Run ``write`` on ``f``: a path is replaced atomically (``atomic_write``); a stream
    the caller opened is written, flushed and, when it is a file, ``fsync``-ed.

    In a multi-process job only process 0 writes (the others would write the same
    bytes to the same place).
    """
    if not is_writer():
        return
    if is_path(f):
        with atomic_write(f) as stream:
            write(stream)
        return
    stream = binary_stream(f)
    write(stream)
    sync_stream(stream)
