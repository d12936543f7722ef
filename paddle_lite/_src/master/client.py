"""``paddle.master.client``: v2's master client (``python/paddle/v2/master/client.py``) with
the master's task queue kept in etcd (``task_queue``) instead of a Go service.

Like v2's Go client (``go/master/client.go``), ``paddle_start_get_records(pass_id)`` starts a
background thread that takes tasks of that pass, reads their chunks and puts the records in
a buffer of ``buf_size`` that ``next_record`` reads. The client holds an etcd lease, kept
alive by a daemon thread; the tasks it takes are attached to it, so when the process dies
its tasks return to the queue once the lease expires (``lease_ttl_sec``). A task counts as
finished when ``next_record`` is asked for the record after its last one (v2 counted it when
the last record entered the buffer, so a trainer killed with a full buffer lost records).

``next_record()`` returns ``(record bytes, 0)``, ``(None, -2)`` at the end of the pass and
``(None, -1)`` on an error (a chunk that cannot be read; ``client.last_error`` says which).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import socket
import threading
import uuid
import warnings
from typing import Any

from paddle_lite._src.errors import ArgumentTypeError, DataError, MasterError
from paddle_lite._src.master.etcd import Etcd, EtcdUnavailable, normalize_endpoints
from paddle_lite._src.master.task_queue import (
    DEFAULT_PREFIX,
    NOT_READY,
    PASS_END,
    RETRY,
    Task,
    TaskQueue,
)
from paddle_lite._src.readers.recordio_v2 import Chunk, chunk_records

OK, ERROR, END = 0, -1, -2  # next_record's codes (v2's paddle_next_record)


@dataclasses.dataclass(frozen=True)
class Item:
    """One entry of the record buffer: a record (and where it comes from), an error, the
    end of a pass, or the mark that a task's records are all read."""

    record: bytes | None = None
    code: int = OK
    origin: tuple[Chunk, int] | None = None
    error: Exception | None = None
    finished: Task | None = None


def _paths(paths: Any) -> list[str]:
    if isinstance(paths, str):
        found = [p.strip() for p in paths.split(",") if p.strip()]
    elif isinstance(paths, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in paths):
        found = [os.fspath(p) for p in paths]
    else:
        raise ArgumentTypeError(
            "set_dataset: paths must be a list of paths or glob patterns (or a comma-separated "
            f"str); received {paths!r}."
        )
    if not found:
        raise DataError("set_dataset: no path given (v2's master: 'no dataset specified').")
    return found


class client:
    """A client of v2's master: the task queue of a data set of v2 RecordIO files, in etcd.

    Args:
      etcd_endpoints: etcd's client URLs, comma-separated (``"http://127.0.0.1:2379"``) or a
        list.
      timeout_sec: seconds each etcd request may take.
      buf_size: records read ahead into the buffer (0: one at a time, as v2).
      prefix: the etcd key prefix of this job's queue (v2 had one master per etcd).
      chunks_per_task: chunks per task when this client sets the data set (v2: 10).
      task_timeout_sec: seconds a trainer may hold a task before it is given to another
        (v2: 20 minutes).
      failure_max: failures of a task in a pass before it waits for the next pass (v2: 3).
      lease_ttl_sec: the lease's time to live: a dead client's tasks return after it.
      poll_sec: how often a client with nothing to read looks at the queue again.

    Example:
      ```python
      c = paddle.master.client("http://127.0.0.1:2379", 5, buf_size=64)
      c.set_dataset(["/data/mnist_train-*"])
      c.paddle_start_get_records(0)
      record, err = c.next_record()   # (pickled sample, 0) ... then (None, -2)
      ```
    """

    def __init__(
        self,
        etcd_endpoints: Any,
        timeout_sec: float,
        buf_size: int = 0,
        *,
        prefix: str = DEFAULT_PREFIX,
        chunks_per_task: int = 10,
        task_timeout_sec: float = 1200.0,
        failure_max: int = 3,
        lease_ttl_sec: float = 10.0,
        poll_sec: float = 0.25,
    ) -> None:
        self._etcd = Etcd(normalize_endpoints(etcd_endpoints), float(timeout_sec))
        self._queue = TaskQueue(
            self._etcd,
            prefix,
            chunks_per_task=chunks_per_task,
            task_timeout=task_timeout_sec,
            failure_max=failure_max,
        )
        self.id = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._records: queue.Queue[Item] = queue.Queue(maxsize=max(int(buf_size), 1))
        self._closed = threading.Event()
        self._ttl, self._poll = lease_ttl_sec, poll_sec
        self._paths: list[str] | None = None
        self.finished_tasks: list[tuple[int, int]] = []  # (pass, task id), in order
        self.reading_pass: int | None = None  # the pass paddle_start_get_records started
        self.last_error: Exception | None = None
        self._lease = self._etcd.grant(lease_ttl_sec)  # raises EtcdUnavailable: fail at once
        threading.Thread(target=self._keep_alive, name="master-lease", daemon=True).start()

    # the lease -----------------------------------------------------------------------------
    def _keep_alive(self) -> None:
        while not self._closed.wait(max(self._ttl / 3, 0.2)):
            try:
                if self._etcd.keepalive(self._lease) == 0:
                    warnings.warn(
                        f"master client {self.id}: its etcd lease expired (etcd unreachable for "
                        f"over {self._ttl} s?); the tasks it held return to the queue.",
                        RuntimeWarning,
                        stacklevel=1,
                    )
                    self._lease = self._etcd.grant(self._ttl)
            except MasterError:
                continue  # etcd down or restarting: try again at the next tick

    def _retry(self, step: Any, *args: Any) -> Any:
        """``step(*args)``, tried again while etcd is unreachable (v2's client retried every
        3 s forever); None once the client is released."""
        delay = 0.05
        while not self._closed.is_set():
            try:
                return step(*args)
            except EtcdUnavailable:
                self._closed.wait(delay)
                delay = min(delay * 2, 1.0)
        return None

    def _check_open(self) -> None:
        if self._closed.is_set():
            raise MasterError(f"master client {self.id} was released; create a new client.")

    # v2's methods --------------------------------------------------------------------------
    def set_dataset(self, paths: Any) -> None:
        """Give the master the data set: v2 RecordIO files (paths or glob patterns). Only the
        first call of all clients on this queue counts; later calls change nothing."""
        self._check_open()
        self._paths = _paths(paths)
        self._queue.set_dataset(self._paths, self.id, self._lease)

    def paddle_start_get_records(self, pass_id: int) -> None:
        """Start reading pass ``pass_id`` into the buffer (call it at the start of each pass)."""
        self._check_open()
        self.reading_pass = int(pass_id)
        threading.Thread(
            target=self._fetch, args=(int(pass_id),), name=f"master-pass-{pass_id}", daemon=True
        ).start()

    def next_record(self) -> tuple[bytes | None, int]:
        """The next record: ``(bytes, 0)``, ``(None, -2)`` at the end of the pass, or
        ``(None, -1)`` on an error (see ``last_error``). Blocks until one is there."""
        item = self.next_item()
        return item.record, item.code

    def request_save_model(self, trainer_id: Any, block_ms: int) -> int:
        """1 if this trainer should save the model (no other did within ``block_ms``
        milliseconds), 0 if another trainer is saving, -1 on an error (v2's codes)."""
        self._check_open()
        if trainer_id is None or str(trainer_id) == "":
            return ERROR  # v2's master: "trainer id is empty"
        try:
            return int(self._queue.request_save(str(trainer_id), float(block_ms)))
        except MasterError as err:
            self.last_error = err
            return ERROR

    def release(self) -> None:
        """Stop reading and revoke the lease: this client's claims end at once, so the next
        client that finds no task to do puts its unfinished tasks back in the queue."""
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._etcd.revoke(self._lease)
        except MasterError:
            pass  # etcd unreachable: the lease expires by itself

    # for the trainer and cloud_reader ------------------------------------------------------
    def next_item(self) -> Item:
        """``next_record`` with where the record comes from (``item.origin``: the chunk
        and the record's number in it) and the error of a -1."""
        while True:
            try:
                item = self._records.get(timeout=0.2)
            except queue.Empty:
                if self._closed.is_set():
                    return Item(
                        code=ERROR, error=MasterError(f"master client {self.id} was released.")
                    )
                continue
            if item.finished is None:
                self.last_error = item.error
                return item
            if self._retry(self._queue.finish, item.finished):
                self.finished_tasks.append((item.finished.pass_id, item.finished.id))

    def reopen(self, pass_id: int, trained: Any) -> int:
        """Give back to pass ``pass_id`` its tasks not in ``trained`` (task ids): what a
        trainer resumed from a checkpoint of that pass trains again (``TaskQueue.reopen``)."""
        self._check_open()
        return self._retry(self._queue.reopen, pass_id, set(trained))

    def status(self) -> dict[str, Any]:
        """The queue (current pass; tasks to do, pending, waiting for the next pass), this
        client's id and the tasks it finished, as ``(pass, task id)``."""
        self._check_open()
        return {
            **self._queue.status(),
            "client": self.id,
            "finished_tasks": list(self.finished_tasks),
        }

    # the reading thread --------------------------------------------------------------------
    def _put(self, item: Item) -> None:
        while not self._closed.is_set():
            try:
                self._records.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def _fetch(self, pass_id: int) -> None:
        try:
            self._fetch_tasks(pass_id)
        except Exception as err:
            self._put(Item(code=ERROR, error=err))

    def _fetch_tasks(self, pass_id: int) -> None:
        first = True
        while not self._closed.is_set():
            outcome = self._retry(self._queue.claim, pass_id, self.id, self._lease, first)
            if isinstance(outcome, Task):
                self._deliver(outcome)
                first = True
            elif outcome == PASS_END:
                self._put(Item(code=END))
                return
            elif outcome == RETRY:
                first = False
            else:
                if (
                    outcome == NOT_READY
                    and self._paths
                    and self._retry(self._queue.dataset) is None
                ):
                    self._retry(self._queue.set_dataset, self._paths, self.id, self._lease)
                self._closed.wait(self._poll)

    def _deliver(self, task: Task) -> None:
        for chunk in task.chunks:
            try:
                records = chunk_records(chunk)
            except (OSError, ValueError, ImportError) as err:  # DataError, no cramjam
                self._put(Item(code=ERROR, error=err))
                continue
            for number, record in enumerate(records):
                self._put(Item(record, OK, (chunk, number)))
        self._put(Item(finished=task))
