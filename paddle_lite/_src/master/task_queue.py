"""v2's master task queue (Go ``go/master/service.go``), kept in etcd and run by its clients.

v2's master was one Go process holding ``Todo``, ``Pending``, ``Done`` and ``Failed`` in
memory and saving a snapshot to etcd. Here there is no master process: the queue *is* a set
of etcd keys under a prefix (default ``/paddle/master/``), and every client moves tasks with
transactions that compare the revision of what it read, so two clients never take the same
task and a crash between two steps leaves nothing half done:

=================================  =============================================================
``dataset``                        the paths of the first ``set_dataset`` (created only if absent)
``pass``                           the current pass; written once the tasks are in place
``todo/<pass>/<failures>/<id>``    a task waiting in that pass (failed ones sort last, as v2
                                   appended them); done and failed tasks move to ``pass + 1``
``pending/<id>``                   a task being read: its chunks, owner, pass and deadline
``claim/<id>``                     attached to the owner's lease: it vanishes when the owner dies
``save_model``                     the trainer allowed to save, until its window ends
=================================  =============================================================

As in v2, ``set_dataset`` scans each file's chunks and groups them into tasks of
``chunks_per_task`` (10); a task that times out (``task_timeout``, 20 minutes) or whose owner
is gone (its lease expired) goes back to ``todo`` with one more failure, and after more than
``failure_max`` (3) failures it waits for the next pass; a finished task waits for the next
pass with its failures reset. When a pass has no task left in ``todo`` nor ``pending``, the
first client to see it moves ``pass`` on (one transaction that checks both are empty).
"""

from __future__ import annotations

import dataclasses
import glob
import random
import time
from typing import Any

from paddle_lite._src.errors import DataError, MasterError
from paddle_lite._src.master.etcd import Etcd, KeyValue, compare, delete, put
from paddle_lite._src.readers import recordio, recordio_v2
from paddle_lite._src.readers.recordio_v2 import Chunk

DEFAULT_PREFIX = "/paddle/master/"
TXN_OPS = 100  # etcd refuses transactions of more than 128 operations by default

# What claim() answers besides a task.
PASS_END = "pass end"  # the pass asked for is over: next_record gives -2
WAIT = "wait"  # nothing to take now: other clients hold the last tasks, or a later pass
NOT_READY = "not ready"  # no data set has been set yet
RETRY = "retry"  # another client took the task first


@dataclasses.dataclass(frozen=True)
class Task:
    """A task this client took: its id, chunks, pass, failures so far, and the revision of
    its pending key (v2's epoch: a stale finish or failure is ignored)."""

    id: int
    chunks: tuple[Chunk, ...]
    pass_id: int
    failures: int
    revision: int


def _chunks(value: dict[str, Any]) -> tuple[Chunk, ...]:
    return tuple(
        Chunk(path, index, offset, count) for path, index, offset, count in value["chunks"]
    )


def _files(patterns: list[str]) -> list[str]:
    """Each pattern's matches in sorted order, as Go's ``filepath.Glob``."""
    paths = [p for pattern in patterns for p in sorted(glob.glob(pattern))]
    if not paths:
        raise DataError(f"set_dataset: the paths {patterns!r} match no file.")
    return paths


def _file_chunks(path: str) -> list[Chunk]:
    with open(path, "rb") as f:
        if f.read(len(recordio.MAGIC)) == recordio.MAGIC:
            raise DataError(
                f"set_dataset: {path!r} is a paddle_lite record file; the master splits v2 "
                "RecordIO files by chunk. Write the data with paddle.reader.creator."
                "write_recordio_v2 or paddle.dataset.common.convert."
            )
    return recordio_v2.scan_chunks(path)


def partition(chunks: list[Chunk], chunks_per_task: int) -> list[list[Chunk]]:
    """Consecutive chunks grouped ``chunks_per_task`` at a time (v2's ``partition``)."""
    size = max(chunks_per_task, 1)
    return [chunks[i : i + size] for i in range(0, len(chunks), size)]


class TaskQueue:
    """The queue's keys under ``prefix`` and the transactions that move tasks between them.

    Args:
      etcd: the etcd client.
      prefix: the key prefix of this job's queue (one data set per prefix).
      chunks_per_task: chunks per task (v2: 10).
      task_timeout: seconds a client may hold a task (v2: 20 minutes).
      failure_max: failures a task may have in a pass before it waits for the next (v2: 3).
    """

    def __init__(
        self,
        etcd: Etcd,
        prefix: str = DEFAULT_PREFIX,
        *,
        chunks_per_task: int = 10,
        task_timeout: float = 1200.0,
        failure_max: int = 3,
    ) -> None:
        self.etcd = etcd
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.chunks_per_task = chunks_per_task
        self.task_timeout = task_timeout
        self.failure_max = failure_max

    def key(self, *parts: Any) -> str:
        return self.prefix + "/".join(str(p) for p in parts)

    def todo(self, pass_id: int, failures: int | None = None, task_id: int | None = None) -> str:
        if failures is None:
            return self.key("todo", f"{pass_id:08d}", "")
        return self.key("todo", f"{pass_id:08d}", f"{failures:04d}", f"{task_id:08d}")

    # the data set ----------------------------------------------------------------------
    def set_dataset(self, paths: list[str], owner: str, lease: int) -> bool:
        """Fill the queue from ``paths`` if no data set is set (v2: the first call wins).

        Returns:
          True when this call set the data set, False when one was set already.

        Raises:
          DataError: the paths match no file, or a file is not v2 RecordIO.
        """
        ours = {"paths": paths, "owner": owner, "ready": False}
        created, revision = self.etcd.txn(
            [compare(self.key("dataset"), "CREATE", 0)], [put(self.key("dataset"), ours, lease)]
        )
        if not created:
            return False
        try:
            tasks = partition(
                [c for p in _files(paths) for c in _file_chunks(p)], self.chunks_per_task
            )
            self._write_tasks(tasks, revision)
            ready = {**ours, "ready": True, "tasks": len(tasks)}
            self._txn_as_owner(
                revision, [put(self.key("dataset"), ready), put(self.key("pass"), "0")]
            )
        except BaseException:
            try:  # leave the data set to the next set_dataset
                self.etcd.txn(
                    [compare(self.key("dataset"), "MOD", revision)], [delete(self.key("dataset"))]
                )
            except MasterError:
                pass  # etcd unreachable: the key goes with this client's lease
            raise
        return True

    def _txn_as_owner(self, revision: int, requests: list[dict]) -> None:
        done, _ = self.etcd.txn([compare(self.key("dataset"), "MOD", revision)], requests)
        if not done:
            raise MasterError(
                f"set_dataset: {self.key('dataset')} changed while this client wrote the tasks "
                "(its lease expired?); the data set is left to the next set_dataset."
            )

    def _write_tasks(self, tasks: list[list[Chunk]], revision: int) -> None:
        for name in ("todo/", "pending/", "claim/", "pass"):  # a dead loader's leftovers
            self.etcd.delete_prefix(self.prefix + name)
        puts = [
            put(
                self.todo(0, 0, i),
                {"id": i, "failures": 0, "chunks": [list(dataclasses.astuple(c)) for c in task]},
            )
            for i, task in enumerate(tasks)
        ]
        for start in range(0, len(puts), TXN_OPS):
            self._txn_as_owner(revision, puts[start : start + TXN_OPS])

    def dataset(self) -> dict[str, Any] | None:
        found = self.etcd.get(self.key("dataset"))
        return found[0].json() if found else None

    def current_pass(self) -> int | None:
        found = self.etcd.get(self.key("pass"))
        return int(found[0].value) if found else None

    # tasks ---------------------------------------------------------------------------------
    def claim(self, pass_id: int, owner: str, lease: int, first: bool = True) -> Task | str:
        """Take a task of pass ``pass_id``, or say why not (``PASS_END``, ``WAIT``,
        ``NOT_READY``, ``RETRY``). With no task in ``todo``, re-queue the tasks of dead or
        late owners and, when nothing is pending either, end the pass."""
        current = self.current_pass()
        if current is None:
            return NOT_READY
        if pass_id != current:
            return PASS_END if pass_id < current else WAIT
        waiting = self.etcd.get(self.todo(current), prefix=True, limit=8)
        if not waiting:
            return self._settle(current)
        kv = waiting[0] if first else random.choice(waiting)
        value = kv.json()
        pending = {
            **value,
            "pass": current,
            "owner": owner,
            "deadline": time.time() + self.task_timeout,
        }
        taken, revision = self.etcd.txn(
            [
                compare(kv.key, "MOD", kv.mod_revision),
                compare(self.key("pass"), "VALUE", str(current)),
            ],
            [
                delete(kv.key),
                put(self.key("pending", f"{value['id']:08d}"), pending),
                put(self.key("claim", f"{value['id']:08d}"), owner, lease),
            ],
        )
        if not taken:
            return RETRY
        return Task(value["id"], _chunks(value), current, value["failures"], revision)

    def _settle(self, current: int) -> str:
        pending = self.etcd.get(self.key("pending", ""), prefix=True)
        if not pending:
            self.etcd.txn(
                [
                    compare(self.key("pass"), "VALUE", str(current)),
                    compare(self.todo(current), "VERSION", 0, prefix=True),
                    compare(self.key("pending", ""), "VERSION", 0, prefix=True),
                ],
                [put(self.key("pass"), str(current + 1))],
            )
            return PASS_END if self.current_pass() != current else RETRY
        claims = {
            kv.key.rsplit("/", 1)[1]: kv.value.decode()
            for kv in self.etcd.get(self.key("claim", ""), prefix=True)
        }
        now = time.time()
        for kv in pending:
            value = kv.json()
            if claims.get(kv.key.rsplit("/", 1)[1]) != value["owner"] or value["deadline"] < now:
                self._requeue(kv, value, value["failures"] + 1)
        return WAIT

    def _requeue(self, kv: KeyValue, value: dict[str, Any], failures: int) -> bool:
        """Move a pending task back to ``todo`` (or, past ``failure_max``, to the next pass)
        if its pending key is still at the revision read."""
        later = failures > self.failure_max
        target = self.todo(value["pass"] + later, failures, value["id"])
        entry = {"id": value["id"], "failures": failures, "chunks": value["chunks"]}
        moved, _ = self.etcd.txn(
            [compare(kv.key, "MOD", kv.mod_revision)],
            [delete(kv.key), delete(self.key("claim", f"{value['id']:08d}")), put(target, entry)],
        )
        return moved

    def _pending(self, task: Task) -> tuple[KeyValue, dict[str, Any]] | None:
        found = self.etcd.get(self.key("pending", f"{task.id:08d}"))
        if not found or found[0].mod_revision != task.revision:
            return None  # timed out and re-queued meanwhile (v2: "pending task not found")
        return found[0], found[0].json()

    def finish(self, task: Task) -> bool:
        """Mark ``task`` done: it waits for the next pass, its failures reset (v2's
        ``TaskFinished``). False when it is no longer this client's."""
        found = self._pending(task)
        if found is None:
            return False
        kv, value = found
        entry = {"id": task.id, "failures": 0, "chunks": value["chunks"]}
        moved, _ = self.etcd.txn(
            [compare(kv.key, "MOD", task.revision)],
            [
                delete(kv.key),
                delete(self.key("claim", f"{task.id:08d}")),
                put(self.todo(task.pass_id + 1, 0, task.id), entry),
            ],
        )
        return moved

    def fail(self, task: Task) -> bool:
        """Report ``task`` failed (v2's ``TaskFailed``): back to ``todo`` with one more
        failure, or to the next pass past ``failure_max``. False when it is no longer this
        client's."""
        found = self._pending(task)
        return found is not None and self._requeue(*found, task.failures + 1)

    def reopen(self, pass_id: int, trained: set[int]) -> int:
        """Put back into pass ``pass_id``'s ``todo`` the tasks of that pass a checkpoint
        had not trained (finished since, or failed for good: they wait for the next pass),
        and the current pass back to ``pass_id`` if it moved on: a job restarted from the
        checkpoint trains them again. Returns how many went back.

        Raises:
          MasterError: the queue is more than one pass past ``pass_id``.
        """
        current = self.current_pass()
        if current is None or current == pass_id - 1:
            return 0
        if current not in (pass_id, pass_id + 1):
            raise MasterError(
                f"the master's queue ({self.prefix}) is at pass {current}; the checkpoint is "
                f"of pass {pass_id}. Resume from a later checkpoint, or start the data set "
                "again under another prefix."
            )
        moves = []
        for kv in self.etcd.get(self.todo(pass_id + 1), prefix=True):
            value = kv.json()
            if value["id"] not in trained:
                entry = {**value, "failures": 0}
                moves += [delete(kv.key), put(self.todo(pass_id, 0, value["id"]), entry)]
        for start in range(0, len(moves), TXN_OPS - 1):
            self.etcd.txn([], moves[start : start + TXN_OPS - 1])
        if current != pass_id:
            self.etcd.txn([compare(self.key("pass"), "VALUE", str(current))],
                          [put(self.key("pass"), str(pass_id))])  # fmt: skip
        return len(moves) // 2

    # saving the model --------------------------------------------------------------------
    def request_save(self, trainer: str, block_ms: float) -> bool:
        """True for exactly one trainer per window of ``block_ms`` (and again for that
        trainer, which renews its window), False for the others (v2's
        ``RequestSaveModel``). The key is attached to a lease of the window's length, so etcd
        drops it; the window's end is also stored, since etcd rounds short leases up."""
        key = self.key("save_model")
        for _ in range(8):
            now = time.time()
            found = self.etcd.get(key)
            if found:
                holder = found[0].json()
                if holder["trainer"] != trainer and holder["until"] > now:
                    return False
                condition = compare(key, "MOD", found[0].mod_revision)
            else:
                condition = compare(key, "CREATE", 0)
            lease = self.etcd.grant(block_ms / 1000)
            value = {"trainer": trainer, "until": now + block_ms / 1000}
            if self.etcd.txn([condition], [put(key, value, lease)])[0]:
                return True
        return False

    def status(self) -> dict[str, Any]:
        """The queue now: the current pass and how many tasks wait in it, are pending, and
        wait for the next pass (done or failed)."""
        current = self.current_pass()
        if current is None:
            return {"pass": None, "todo": 0, "pending": 0, "next_pass": 0}
        return {
            "pass": current,
            "todo": self.etcd.count(self.todo(current)),
            "pending": self.etcd.count(self.key("pending", "")),
            "next_pass": self.etcd.count(self.todo(current + 1)),
        }
