"""Concurrent reader decorators: prefetching, parallel mapping, one process per reader.

All three start their threads or processes when the returned reader is iterated, stop them
when the consumer finishes or abandons the pass, and re-raise a failure of the wrapped reader
(or of the mapper) in the consumer instead of ending the pass silently.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import pickle
import queue
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from paddle_lite._src.errors import PaddleLiteError
from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.decorator import (
    Reader,
    ReaderTypeError,
    check_count,
    check_reader,
    reader_samples,
    show,
)
from paddle_lite._src.readers.length import sized_as
from paddle_lite._src.readers.state import forward

_POLL_S = 0.05
_END = object()
_SAMPLE, _DONE, _ERROR = "sample", "done", "error"


class ReaderProcessError(PaddleLiteError, RuntimeError):
    """A reader running in a child process of
    [`multiprocess_reader`][paddle_lite.reader.multiprocess_reader] failed or died."""


class _Failure(NamedTuple):
    error: BaseException


def _put(q: Any, item: Any, stop: threading.Event) -> bool:
    """Put ``item`` unless ``stop`` is set first; return whether it was put."""
    while not stop.is_set():
        try:
            q.put(item, timeout=_POLL_S)
            return True
        except queue.Full:
            pass
    return False


def _get(q: Any, stop: threading.Event) -> Any:
    """Get an item, or ``_END`` once ``stop`` is set."""
    while not stop.is_set():
        try:
            return q.get(timeout=_POLL_S)
        except queue.Empty:
            pass
    return _END


def _start_daemons(*targets: tuple[Callable[..., None], tuple[Any, ...]]) -> None:
    for target, args in targets:
        threading.Thread(target=target, args=args, daemon=True).start()


def _fill(reader: Reader, q: queue.Queue, stop: threading.Event) -> None:
    try:
        for sample in reader_samples(reader, "buffered"):
            if not _put(q, sample, stop):
                return
    except BaseException as error:
        _put(q, _Failure(error), stop)
        return
    _put(q, _END, stop)


def _drain(q: queue.Queue, producers: int = 1) -> Iterator[Any]:
    """Yield the items of ``q`` until ``producers`` end markers arrived; raise failures."""
    finished = 0
    while finished < producers:
        item = q.get()
        if item is _END:
            finished += 1
        elif isinstance(item, _Failure):
            raise item.error
        else:
            yield item


def buffered(reader: Reader, size: int) -> Reader:
    """Prefetch samples in a background thread.

    A daemon thread reads ``reader`` into a queue of at most ``size`` samples (0: unbounded)
    while the consumer works, so reading overlaps with training. An exception raised by
    ``reader`` is re-raised in the consumer, after the samples read before it.

    Args:
        reader: the reader to prefetch.
        size: the queue capacity in samples (>= 0; 0 means unbounded).

    Returns:
        A reader yielding the same samples in the same order.

    Example:
        ```python
        train = paddle.batch(buffered(mnist.train(), 1024), 64)
        ```
    """
    check_reader(reader, "buffered")
    size = check_count(size, "buffered", "size", 0)

    def buffered_reader() -> Iterator[Any]:
        q: queue.Queue = queue.Queue(maxsize=size)
        stop = threading.Event()
        _start_daemons((_fill, (reader, q, stop)))
        try:
            yield from _drain(q)
        finally:
            stop.set()

    inner = seek.open_pass_of(reader)
    if inner is not None:  # reading by index needs no thread: the same samples
        buffered_reader.open_pass = inner  # type: ignore[attr-defined]
    return sized_as(forward(buffered_reader, reader), int, reader)


class _Turn:
    """Lets mapped samples leave in input order: the holder of index i waits until i is next."""

    def __init__(self) -> None:
        self._next = 0
        self._cond = threading.Condition()

    def put(self, index: int, q: queue.Queue, item: Any, stop: threading.Event) -> bool:
        with self._cond:
            while self._next != index:
                if stop.is_set():
                    return False
                self._cond.wait(_POLL_S)
        put = _put(q, item, stop)
        with self._cond:
            self._next += 1
            self._cond.notify_all()
        return put


def _feed(reader: Reader, in_q: queue.Queue, workers: int, stop: threading.Event) -> None:
    index = 0
    try:
        for sample in reader_samples(reader, "xmap_readers"):
            if not _put(in_q, (index, sample), stop):
                return
            index += 1
    except BaseException as error:
        if not _put(in_q, (index, _Failure(error)), stop):
            return
    for _ in range(workers):
        if not _put(in_q, _END, stop):
            return


def _map_worker(mapper, in_q, out_q, turn: _Turn | None, stop: threading.Event) -> None:
    while (item := _get(in_q, stop)) is not _END:
        index, sample = item
        if not isinstance(sample, _Failure):
            try:
                sample = mapper(sample)
            except BaseException as error:
                sample = _Failure(error)
        put = _put(out_q, sample, stop) if turn is None else turn.put(index, out_q, sample, stop)
        if not put:
            return
    _put(out_q, _END, stop)


def xmap_readers(
    mapper: Callable[[Any], Any],
    reader: Reader,
    process_num: int,
    buffer_size: int,
    order: bool = False,
) -> Reader:
    """Map ``mapper`` over the samples of a reader with ``process_num`` threads.

    One thread reads ``reader`` into an input queue, ``process_num`` threads apply ``mapper``
    and put the results into an output queue; both queues hold at most ``buffer_size`` items
    (0: unbounded). Threads suit mappers that release the GIL (numpy, image decoding, I/O).
    Each call of the returned reader starts a fresh pass. An exception in ``reader`` or
    ``mapper`` is re-raised in the consumer.

    Args:
        mapper: a function of one sample.
        reader: the reader to map.
        process_num: the number of mapping threads (>= 1).
        buffer_size: the capacity of each queue (>= 0).
        order: when True the results keep the input order; when False they come in
            completion order.

    Returns:
        A reader yielding ``mapper(sample)`` for every sample.

    Example:
        ```python
        images = xmap_readers(decode_and_augment, file_reader, 4, 64, order=True)
        ```
    """
    if not callable(mapper):
        raise ReaderTypeError(f"xmap_readers: mapper must be callable; received {show(mapper)}.")
    check_reader(reader, "xmap_readers")
    process_num = check_count(process_num, "xmap_readers", "process_num", 1)
    buffer_size = check_count(buffer_size, "xmap_readers", "buffer_size", 0)

    def xmapped_reader() -> Iterator[Any]:
        in_q: queue.Queue = queue.Queue(buffer_size)
        out_q: queue.Queue = queue.Queue(buffer_size)
        stop = threading.Event()
        turn = _Turn() if order else None
        worker = (_map_worker, (mapper, in_q, out_q, turn, stop))
        _start_daemons((_feed, (reader, in_q, process_num, stop)), *[worker] * process_num)
        try:
            yield from _drain(out_q, process_num)
        finally:
            stop.set()

    return sized_as(forward(xmapped_reader, reader), int, reader)


def _context() -> Any:
    """The fork context where the platform has one (readers are usually closures)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _pipe_child(reader: Reader, conn: Any) -> None:
    try:
        for sample in reader():
            conn.send((_SAMPLE, sample))
        conn.send((_DONE, None))
    except BaseException:
        conn.send((_ERROR, traceback.format_exc()))
    finally:
        conn.close()


def _queue_child(reader: Reader, q: Any, index: int) -> None:
    try:
        for sample in reader():
            q.put((index, _SAMPLE, pickle.dumps(sample, pickle.HIGHEST_PROTOCOL)))
        q.put((index, _DONE, None))
    except BaseException:
        q.put((index, _ERROR, traceback.format_exc()))


def _child_failed(index: int, text: str) -> ReaderProcessError:
    return ReaderProcessError(
        f"multiprocess_reader: readers[{index}] raised in its process:\n{text}"
    )


def _child_died(index: int, process: Any) -> ReaderProcessError:
    process.join(timeout=1.0)
    return ReaderProcessError(
        f"multiprocess_reader: the process of readers[{index}] exited with code "
        f"{process.exitcode} before finishing its samples."
    )


def _stop(processes: list[Any]) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()
        process.join()


def _merge_pipes(ctx: Any, readers: Sequence[Reader]) -> Iterator[Any]:
    processes, open_conns = [], {}
    try:
        for index, reader in enumerate(readers):
            receive, send = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_pipe_child, args=(reader, send), daemon=True)
            process.start()
            send.close()
            processes.append(process)
            open_conns[receive] = index
        while open_conns:
            for conn in multiprocessing.connection.wait(list(open_conns)):
                index = open_conns[conn]
                try:
                    kind, payload = conn.recv()
                except EOFError:
                    raise _child_died(index, processes[index]) from None
                if kind == _ERROR:
                    raise _child_failed(index, payload)
                if kind == _DONE:
                    del open_conns[conn]
                    conn.close()
                else:
                    yield payload
    finally:
        _stop(processes)
        for conn in open_conns:
            conn.close()


def _merge_queue(ctx: Any, readers: Sequence[Reader], queue_size: int) -> Iterator[Any]:
    q = ctx.Queue(queue_size)
    processes = [
        ctx.Process(target=_queue_child, args=(reader, q, index), daemon=True)
        for index, reader in enumerate(readers)
    ]
    remaining, suspects = set(range(len(readers))), set()
    try:
        for process in processes:
            process.start()
        while remaining:
            try:
                index, kind, payload = q.get(timeout=_POLL_S * 4)
            except queue.Empty:
                dead = {i for i in remaining if processes[i].exitcode is not None}
                if dead & suspects:
                    index = min(dead & suspects)
                    raise _child_died(index, processes[index]) from None
                suspects = dead
                continue
            if kind == _ERROR:
                raise _child_failed(index, payload)
            if kind == _DONE:
                remaining.discard(index)
            else:
                yield pickle.loads(payload)
    finally:
        _stop(processes)
        q.close()


def multiprocess_reader(
    readers: Sequence[Reader], use_pipe: bool = True, queue_size: int = 1000
) -> Reader:
    """Run each reader in its own process and merge their samples in arrival order.

    Every pass starts one child process per reader (by fork where the platform has it, so
    readers may be closures; elsewhere readers must be picklable). Children send their samples
    pickled, through one pipe each (``use_pipe=True``) or one shared
    ``multiprocessing.Queue(queue_size)``; samples must therefore be picklable. Only samples
    produced by the program's own children are unpickled. Readers run in forked children must
    not use JAX; once JAX has started its backend in this process, JAX warns at every fork
    (a ``RuntimeWarning``). A child's exception, or a child that dies, raises
    [`ReaderProcessError`][paddle_lite.errors.ReaderProcessError] in the consumer.

    Args:
        readers: a list of readers (at least one).
        use_pipe: pipes when True, a shared queue when False.
        queue_size: the queue capacity in samples (>= 1), used when ``use_pipe`` is False.

    Returns:
        A reader yielding every sample of every reader, interleaved as they arrive.

    Example:
        ```python
        merged = multiprocess_reader([shard_reader(0), shard_reader(1)])
        ```
    """
    if isinstance(readers, (str, bytes)) or not isinstance(readers, Sequence) or not readers:
        raise ReaderTypeError(
            "multiprocess_reader: readers must be a non-empty list of readers; "
            f"received {show(readers)}."
        )
    for i, reader in enumerate(readers):
        check_reader(reader, "multiprocess_reader", f"readers[{i}]")
    queue_size = check_count(queue_size, "multiprocess_reader", "queue_size", 1)
    readers = list(readers)

    def merged_reader() -> Iterator[Any]:
        ctx = _context()
        if use_pipe:
            yield from _merge_pipes(ctx, readers)
        else:
            yield from _merge_queue(ctx, readers, queue_size)

    return sized_as(forward(merged_reader, *readers), lambda *n: sum(n), *readers)
