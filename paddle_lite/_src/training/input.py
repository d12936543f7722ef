"""What one training pass reads: the reader's batches, converted, starting where it resumes.

``pass_input`` chooses between two ways of reading a pass:

- a reader of batches that is *seekable* (``readers.seekable``: ``paddle.batch`` over a
  seekable reader) opens the pass's ``Batches`` view and reads batch ``b`` by index. A
  resumed pass starts at the checkpoint's sample without reading the samples before it
  (with another batch size too: the pass goes on from that sample). In a job of several
  processes each process reads and converts only the rows of each global batch it
  trains on (``LocalRows``: the rows ``distributed.put_batch`` would have kept),
  and the processes agree on the padded lengths of sequence and sparse fields once per
  window of batches (``distributed.exchange``), so the global batches, their order and
  the zero-weight rows that pad a short one are exactly those of one process;
- a reader of each process's own share (``cloud_reader``: v2's master hands each process
  its tasks) is read by each process for its rows of the global batch, the steps agreed
  once per window (``own_shares``); a resume does not skip anything: the master's queue
  holds what is left of the pass;
- any other reader is read in order; a resumed pass skips the batches the checkpoint
  trained, counting their samples (``resume.Skipped``), and every process of a job
  reads every batch (a ``TrainingWarning`` says so once, and how to make the reader
  seekable).
"""

from __future__ import annotations

import json
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from paddle_lite._src.distributed import parallel as distributed
from paddle_lite._src.distributed.parallel import LocalRows
from paddle_lite._src.errors import PaddleLiteError, ReaderError, TrainingWarning
from paddle_lite._src.feeding.checks import checked, numbered
from paddle_lite._src.readers.seekable import Batches, open_pass_of
from paddle_lite._src.training.chunks import converted
from paddle_lite._src.training.own_shares import (
    grown,
    largest,
    reopen,
    shapes_of,
    shared_batches,
    tagged,
)
from paddle_lite._src.training.resume import Resume, Skipped
from paddle_lite._src.values import VALID

WINDOW = 16  # batches whose padded lengths the processes agree on in one exchange
_WARNED: set[int] = set()  # readers already warned about (by id)


class PassInput:
    """The batches of one pass as ``(feeds, samples)`` pairs (see the module docstring);
    ``last`` reads the batch before the pass's start again (None where the reader cannot
    go back); ``tags`` holds, for a process-share reader, each step's count of tasks whose
    records are all trained once the step is (``own_shares.tagged``)."""

    def __init__(
        self,
        pairs: Iterable[tuple[Any, int]],
        last: Callable[[], Any] | None,
        tags: deque[int] | None = None,
    ) -> None:
        self.pairs, self.last, self.tags = pairs, last, tags

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        return iter(self.pairs)

    def batch_before(self, where: str) -> Any:
        """The batch before the pass's start, read again: a pass resumed at its end
        shapes its totals with it."""
        if self.last is None:
            raise ReaderError(
                f"{where}: the checkpoint stands at the end of this pass, and this reader "
                "(a process share of the master's tasks) cannot read its last batch again; "
                "train from the next pass on."
            )
        return self.last()

    def trained(self, steps: int) -> int | None:
        """The tag of the last of ``steps`` steps just trained (None: no tags)."""
        if self.tags is None:
            return None
        for _ in range(steps - 1):
            self.tags.popleft()
        return self.tags.popleft()


def pass_input(reader: Any, feeder: Any, padding: Any, resume: Resume, pass_id: int) -> PassInput:
    """The batches of pass ``pass_id`` of ``reader`` (see the module docstring)."""
    where = f"train() pass {pass_id}"
    share = getattr(reader, "process_share", None)
    if share:  # the master's queue says where the pass stands
        return _share_input(reader, share, feeder, padding, resume, where)
    open_pass = open_pass_of(reader)
    if open_pass is None or getattr(reader, "batch_size", None) is None:
        _warn_every_process_reads(reader)
        batches, convert = checked(reader, feeder.convert, where)
        if not resume.batches:
            return PassInput(converted(batches, convert, padding), None)
        skipped = Skipped(batches, resume, feeder.samples_in, pass_id)
        return PassInput(converted(skipped, convert, padding), lambda: skipped.last)
    view = _opened(open_pass, where)
    start = resume.samples if resume.samples is not None else resume.batches * view.batch_size
    _note_batch_size(resume, view, start)
    batches = view.from_sample(start)
    last = lambda: view.from_sample(max(start - view.batch_size, 0))[0]  # noqa: E731
    convert = numbered(feeder.convert, where)
    if distributed.multi_process():
        padding.rows = max(padding.rows, view.batch_size)
        window = 1 if feeder.fixed_shapes else WINDOW
        return PassInput(_local_rows(batches, convert, where, window), last)
    return PassInput(converted(_read(batches, where), convert, padding), last)


def _share_input(
    reader: Any, share: Any, feeder: Any, padding: Any, resume: Resume, where: str
) -> PassInput:
    """A pass over a process-share reader (see the module docstring)."""
    if resume.master is not None:
        reopen(share, resume.master)
    batches, convert = checked(reader, feeder.convert, where)
    read: deque[int] = deque()
    shares = tagged(batches, share, read)
    if not distributed.multi_process():
        return PassInput(converted(shares, convert, padding), None, read)
    steps: deque[int] = deque()
    return PassInput(shared_batches(map(convert, shares), padding, read, steps), None, steps)


def _opened(open_pass: Any, where: str) -> Any:
    try:
        return open_pass()
    except PaddleLiteError:
        raise
    except Exception as err:
        raise ReaderError(f"{where}: the reader raised {type(err).__name__}: {err}") from err


def _read(batches: Batches, where: str) -> Iterator[list[Any]]:
    """The batches of ``batches`` in order; a failing read is a ``ReaderError``."""
    for b in range(len(batches)):
        yield _samples(batches, batches.indices(b), b, where)


def _samples(batches: Batches, indices: Any, b: int, where: str) -> list[Any]:
    """The samples at ``indices`` (each read once, however often it repeats)."""
    read: dict[int, Any] = {}
    try:
        for j in indices:
            if j not in read:
                read[j] = batches.view[j]
    except PaddleLiteError:
        raise
    except Exception as err:
        raise ReaderError(
            f"{where}: the reader raised {type(err).__name__}: {err} while reading sample {j} "
            f"for batch {b} (the reader's traceback is above)."
        ) from err
    return [read[j] for j in indices]


def _local_rows(
    batches: Batches, convert: Any, where: str, window_size: int
) -> Iterator[tuple[LocalRows, int]]:
    """This process's rows of each batch, converted; padded lengths agreed by windows of
    ``window_size`` batches (1: shapes are fixed, nothing to agree)."""
    size = batches.batch_size
    total = -(-size // distributed.device_count()) * distributed.device_count()
    share = total // distributed.process_count()
    mine = range(distributed.process_index() * share, (distributed.process_index() + 1) * share)
    for first in range(0, len(batches), window_size):
        window = []
        for b in range(first, min(first + window_size, len(batches))):
            indices = list(batches.indices(b))
            n = len(indices)
            rows = [indices[(j % size) % n] for j in mine]
            feeds = convert(_samples(batches, rows, b, where))
            feeds[VALID] = np.asarray([1.0 if j < n else 0.0 for j in mine], np.float32)
            window.append((feeds, n))
        for feeds, n in _agreed(window) if window_size > 1 else window:
            yield LocalRows(feeds, total), n


def _agreed(window: list[tuple[dict[str, Any], int]]) -> list[tuple[dict[str, Any], int]]:
    """The window's feeds, every leaf padded with zeros to the largest shape any process
    has for it (padded lengths are bucketed from the longest sample, a monotonic rule, so
    this is the shape the whole batch would have had)."""
    shapes = [shapes_of(f) for f, _ in window]
    every = [json.loads(text) for text in distributed.exchange("lengths", json.dumps(shapes))]
    agreed = [largest(list(batch)) for batch in zip(*every, strict=True)]
    return [(grown(f, target), n) for (f, n), target in zip(window, agreed, strict=True)]


def _note_batch_size(resume: Resume, view: Batches, start: int) -> None:
    if resume.batches and resume.batch_size and resume.batch_size != view.batch_size:
        warnings.warn(
            f"train(): the checkpoint {resume.path!r} was trained with batches of "
            f"{resume.batch_size}; this reader's are of {view.batch_size}. The pass goes on "
            f"from sample {start}, where the checkpoint stands.",
            TrainingWarning,
            stacklevel=6,
        )


def _warn_every_process_reads(reader: Any) -> None:
    if distributed.multi_process() and id(reader) not in _WARNED:
        _WARNED.add(id(reader))
        warnings.warn(
            "train(): the reader is not seekable, so every process reads and converts every "
            "batch and keeps its own rows. Build it from seekable parts (creator.np_array, "
            "text_file, recordio, cache(...), the in-memory paddle.dataset readers, then "
            "paddle.batch) for each process to read only the rows it trains on.",
            TrainingWarning,
            stacklevel=6,
        )
