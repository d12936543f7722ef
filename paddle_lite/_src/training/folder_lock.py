"""One writer per checkpoint folder: an advisory lock on ``<folder>/.paddle_lite.lock``.

A trainer holds the lock of its ``checkpoint_dir`` for a whole ``train(checkpoint_dir=...)``
call, and ``save_checkpoint(path)`` holds the lock of the folder it writes ``path`` into
while it writes. A second writer -- a job started twice on one folder, a restarted pod
beside a live one, another trainer of the same process -- gets a
``CheckpointLockedError`` naming the folder and the process that holds it, instead
of two runs removing each other's files. The holder of a lock may take it again
(re-entrant: a save inside its own training).

The lock is ``fcntl.flock`` on a file that names its holder (process id, host, what it
does, since when): the system drops it when the process dies, so the lock of a killed
run is taken over by the next one, and the file is removed when the lock is released
(a taker checks that the file it locked is still the one at the path).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from paddle_lite._src.files.atomic import naming_target
from paddle_lite._src.training.checkpoint_folders import CheckpointError

NAME = ".paddle_lite.lock"
SAVING = "save_checkpoint"  # a holder that lets go soon: worth waiting for
_POLL_S = 0.05
_TABLE = threading.Lock()  # guards _HELD (a trainer's threads may save at once)


class _Held:
    """A lock file this process holds open (with its flock): its ``owner`` and how many
    times it was taken. The descriptor is closed when the lock is let go, or when the
    object is collected (an interrupt between the two steps of letting go)."""

    def __init__(self, owner: Any, fd: int) -> None:
        self.owner, self.fd, self.count = owner, fd, 1

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)

    __del__ = close


_HELD: dict[str, _Held] = {}  # lock file -> what this process holds


class CheckpointLockedError(CheckpointError):
    """Another trainer (in this process or another one) writes into the checkpoint folder."""


@contextlib.contextmanager
def holding(
    folder: str, owner: Any, what: str, wait_s: float = 0.0, target: str | None = None
) -> Iterator[None]:
    """Hold the lock of ``folder`` (made if missing) for the block, for ``owner`` (what
    may take it again), waiting up to ``wait_s`` seconds for another holder that saves
    (``what == SAVING``) to let go.
    A folder that cannot be made or written is an ``OSError`` naming ``target`` (the
    checkpoint to write; default: the folder)."""
    path = os.path.join(os.path.abspath(folder), NAME)
    with _TABLE:
        held = _HELD.get(path)
        if held is not None and held.owner is not owner:
            raise _locked(folder, _describe(_holder_of(path)), "another trainer of this process")
        if held is not None:
            held.count += 1
    if held is None:
        try:
            os.makedirs(folder, exist_ok=True)
            held = _Held(owner, _acquire(path, folder, what, wait_s))
        except OSError as exc:
            raise naming_target(exc, target or folder, None, "checkpoint") from exc
        with _TABLE:
            _HELD[path] = held
    try:
        yield
    finally:
        with _TABLE:
            held.count -= 1
            last = not held.count
            if last:
                del _HELD[path]
        if last:
            with contextlib.suppress(OSError):
                os.unlink(path)  # before letting go: a new taker makes a new file
            held.close()


def _acquire(path: str, folder: str, what: str, wait_s: float) -> int:
    deadline = time.monotonic() + wait_s
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(fd)
            if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            holder = _holder_of(path)
            if time.monotonic() >= deadline or holder.get("what") != SAVING:
                raise _locked(folder, _describe(holder), "another process") from None
            time.sleep(_POLL_S)  # a save ends soon: wait for it
            continue
        if _same_file(fd, path):
            _write_holder(fd, what)
            return fd
        os.close(fd)  # its holder removed it as we took it: take the new one


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _write_holder(fd: int, what: str) -> None:
    text = json.dumps(
        {"pid": os.getpid(), "host": socket.gethostname(), "what": what, "since": time.time()}
    )
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode(), 0)


def _holder_of(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            holder = json.loads(f.read(4096) or b"{}")
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _describe(holder: dict[str, Any]) -> str:
    if not holder:
        return "a process that has not written its name yet"
    since = holder.get("since")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since)) if since else "?"
    return (
        f"process {holder.get('pid')} on host {holder.get('host')!r} "
        f"({holder.get('what')}, since {when})"
    )


def _locked(folder: str, holder: str, who: str) -> CheckpointLockedError:
    return CheckpointLockedError(
        f"the checkpoint folder {folder!r} is in use by {who}: {holder}. One trainer writes "
        "into a folder at a time; stop the other run, or give this one another "
        "checkpoint_dir (a lock left by a process that died is taken over by itself)."
    )
