"""``paddle.reader.creator.cloud_reader``: v2's reader over the master's task queue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paddle_lite._src.errors import MasterError
from paddle_lite._src.master.client import END, client
from paddle_lite._src.readers.decorator import Reader
from paddle_lite._src.readers.recordio_v2 import decode_record
from paddle_lite._src.readers.state import PassCounter


def cloud_reader(
    paths: Any,
    etcd_endpoints: Any,
    timeout_sec: float = 5,
    buf_size: int = 64,
    **client_options: Any,
) -> Reader:
    """Create a reader of the samples of v2 RecordIO files, dispatched by the master in etcd.

    Every trainer of a job creates the same reader: the first ``set_dataset`` splits the
    files into tasks of chunks, and each call of the reader starts the next pass (0, 1, ...)
    and yields the samples of the tasks this trainer gets until the pass ends for all of them
    (v2's ``cloud_reader``). Records are pickles, read without running code: only plain
    containers, numbers, strings and numpy arrays come out of them.

    Args:
        paths: v2 RecordIO files or glob patterns (a list, or a comma-separated str).
        etcd_endpoints: etcd's client URLs, e.g. ``"http://127.0.0.1:2379"``.
        timeout_sec: seconds each etcd request may take.
        buf_size: records read ahead.
        **client_options: keyword options of ``paddle.master.client`` (``prefix``,
            ``chunks_per_task``, ``task_timeout_sec``, ``failure_max``, ``lease_ttl_sec``).

    Returns:
        A reader; each call reads one pass. It counts the passes it started (its state,
        kept by checkpoints), and ``reader.master`` is its ``paddle.master.client``.

    Raises:
        DataError: (while reading) a chunk or record is corrupt; the message names the
            file, chunk and record.

    Example:
        ```python
        reader = paddle.reader.creator.cloud_reader(
            ["/data/mnist_train-*"], "http://127.0.0.1:2379")
        trainer.train(paddle.batch(reader, 128), num_passes=10)
        ```
    """
    master = client(etcd_endpoints, timeout_sec, buf_size, **client_options)
    master.set_dataset(paths)
    passes = PassCounter("cloud_reader")

    def reader() -> Iterator[Any]:
        master.paddle_start_get_records(passes.next())
        while True:
            item = master.next_item()
            if item.code == END:
                return
            if item.record is None:
                raise item.error or MasterError("cloud_reader: the master client failed.")
            yield decode_record(item.record, *item.origin)

    reader.master = master  # type: ignore[attr-defined]
    reader.process_share = master  # type: ignore[attr-defined]  # each trainer its own tasks
    return passes.attach(reader)
