"""One ``train()`` call, top to bottom: its passes, their chunks, dispatches and events.

``TrainCall`` runs the passes of one call. Each pass reads the reader's batches as
chunks of ``K >= 1`` batches (``chunks.device_batches``), dispatches each chunk as one
device call (``DeviceState.dispatch`` -> ``programs.TrainProgram.run_for``'s program),
sends v2's events (``emitter.Emitter``), lets the ``watch.Watch`` read the non-finite
flag when due, and writes checkpoints when due. At the pass end it reads the pass's
summed cost and metrics once, into the call's ``History``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from paddle_lite._src.distributed.parallel import multi_process
from paddle_lite._src.errors import (
    ArgumentTypeError,
    ConfigError,
    TrainerBusyError,
    TrainingWarning,
)
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.graph import Layer
from paddle_lite._src.readers import state as reader_state
from paddle_lite._src.readers.decorator import ReaderTypeError, show
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.training import checkpoints
from paddle_lite._src.training.chunks import RowPadding, device_batches
from paddle_lite._src.training.device_state import DeviceState
from paddle_lite._src.training.emitter import Emitter, Handler, pass_length, results
from paddle_lite._src.training.history import History, PassRecord
from paddle_lite._src.training.input import pass_input
from paddle_lite._src.training.resume import Position, Resume, agree_random, random_states
from paddle_lite._src.training.signals import Preemption
from paddle_lite._src.training.steps import OnNan
from paddle_lite._src.training.watch import Watch

Reader = Callable[[], Iterable[Any]]  # a reader of batches (``paddle.batch(reader, n)``)


class Checkpointing:
    """Where and how often ``train`` writes checkpoints (``checkpoint_dir=...``)."""

    def __init__(self, folder: Any, every: Any, kept: Any) -> None:
        self.folder = os.fspath(folder)
        self.every = None if every is None else positive("checkpoint_every", every)
        self.kept = positive("checkpoints_kept", kept)
        self.batches = 0

    def due(self, batches: int) -> bool:
        self.batches += batches
        return self.every is not None and self.batches >= self.every


@dataclasses.dataclass(frozen=True)
class Settings:
    """A ``train()`` call's arguments, checked once (see ``SGD.train``)."""

    feeder: DataFeeder
    k: int
    on_nan: OnNan
    frozen: frozenset[str]
    checkpoints: Checkpointing | None
    handler: Handler | None = None


def positive(name: str, k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"train(): {name} must be an int >= 1; received {k!r}.")
    return k


def pass_count(num_passes: Any) -> int:
    """``num_passes`` as v2's ``xrange(num_passes)`` read it under Python 2: an int, or a
    finite number truncated to one (with a ``TrainingWarning`` when a fraction is dropped)."""
    if isinstance(num_passes, numbers.Integral):
        return int(num_passes)
    if isinstance(num_passes, numbers.Real) and math.isfinite(num_passes):
        count = int(math.trunc(num_passes))
        if count != num_passes:
            warnings.warn(
                f"train(num_passes={num_passes!r}) trains {count} passes (the fraction is "
                "dropped, as v2's xrange did).",
                TrainingWarning,
                stacklevel=user_stacklevel(),
            )
        return count
    raise ArgumentTypeError(
        f"train(): num_passes must be a number of passes (an int); received "
        f"{type(num_passes).__name__} {num_passes!r}."
    )


def check_batch_reader(reader: Any, where: str) -> None:
    """Raise ``ReaderTypeError`` unless ``reader`` is a reader of batches (callable)."""
    if not callable(reader):
        raise ReaderTypeError(
            f"{where}: reader must be callable (a reader of batches: a no-argument function "
            f"returning an iterable of batches); received {show(reader)}. Pass the function itself "
            "(`paddle.batch(my_reader, 32)`), not the result of calling it."
        )


def check_not_training(training_in: threading.Thread | None, what: str) -> None:
    """Raise ``TrainerBusyError`` for ``what`` (a ``train`` call) made while the
    thread ``training_in`` trains (None: none does)."""
    if training_in is None:
        return
    if training_in is threading.current_thread():
        raise TrainerBusyError(
            f"{what} was called from inside an event handler of this trainer's running "
            "train(); a trainer trains one call at a time. Call trainer.test(...) or save "
            "inside the handler, and train again after the running train() returns."
        )
    raise TrainerBusyError(
        f"{what} was called in thread {threading.current_thread().name!r} while thread "
        f"{training_in.name!r} trains this trainer; a trainer trains one call at a time. "
        "Wait for that train() to return, or use another trainer (over other Parameters)."
    )


def checkpointing(folder: Any, every: Any, kept: Any) -> Checkpointing | None:
    if folder is None:
        if every is not None:
            raise ConfigError("train(): checkpoint_every needs a checkpoint_dir.")
        return None
    return Checkpointing(folder, every, kept)


class TrainCall:
    """The passes of one ``train`` call (see the module docstring).

    Args:
        device: the trainer's ``DeviceState``, started for this call.
        costs, evaluators: the trainer's cost layers and evaluators.
        emitter: sends the call's events.
        settings: the call's checked arguments.
        position: the trainer's ``Position``, kept current.
        save: ``save(folder)`` writes a checkpoint (``SGD.save_checkpoint``).
        preemption: the call's ``signals.Preemption`` (``checkpoint_dir`` runs), or None.
    """

    def __init__(
        self, device: DeviceState, costs: list[Layer], evaluators: list[Evaluator],
        emitter: Emitter, settings: Settings, position: Position, save: Callable[[str], None],
        preemption: Preemption | None = None,
    ) -> None:  # fmt: skip
        self.device, self.evaluators, self.emit = device, evaluators, emitter
        self.settings, self.position, self.save = settings, position, save
        self.preemption = preemption
        self.watch = Watch(costs, device, settings.on_nan)
        self.history = History()
        self.batches: int | None = None  # the last pass's batch count (BeginPass)
        self.padding = RowPadding()  # short batches padded to the call's batch size
        self.saved_at = -1  # the step of the call's last checkpoint
        self.progressed = False  # a step ran or a pass ended

    def run(self, reader: Reader, passes: range, resume: Resume) -> History:
        """Train ``passes`` over ``reader``, the first resumed at ``resume``."""
        self.emit.begin_training(passes.stop)
        for pass_id in passes:
            where = resume if pass_id == passes.start else Resume()
            self._pass(reader, pass_id, passes.stop, where)
        self.emit.end_training()
        return self.history

    def _pass(self, reader: Reader, pass_id: int, num_passes: int, resume: Resume) -> None:
        record = self.history.begin(pass_id)
        self.emit.begin_pass(pass_id, num_passes, pass_length(reader, self.batches))
        where, skip = self.position, resume.batches
        if multi_process():
            agree_random()
        where.random, where.reader = random_states(), reader_state.get_state(reader)
        with self.device.guard:
            where.pass_id, where.batch_id = pass_id, skip
            where.samples = record.samples = resume.samples or 0
        feeder = self.settings.feeder
        batches = pass_input(reader, feeder, self.padding, resume, pass_id)
        batch_id = skip
        for chunk in device_batches(batches, self.settings.k):
            self._preempted(after_step=False)
            if batch_id == skip:
                self.device.begin_pass(pass_id, chunk.feeds[0])
            self.emit.before(chunk, pass_id, batch_id)
            first = self.watch.step
            with self.device.guard:  # the state and what says where it stands, together
                out = self.device.dispatch(chunk)
                self.watch.note(chunk, pass_id, batch_id)
                record.samples += sum(chunk.sizes)
                where.batch_id, where.samples = batch_id + len(chunk.sizes), record.samples
                where.batch_size = self.padding.rows
                trained = batches.trained(len(chunk.sizes))
                where.share_tasks = where.share_tasks if trained is None else trained
                self.progressed = True
            fetched = self.emit.after(chunk, out, pass_id, batch_id, first)
            self.watch.after(fetched)
            batch_id += len(chunk.sizes)
            policy = self.settings.checkpoints
            if policy is not None and policy.due(len(chunk.sizes)):
                self._checkpoint(policy)
            self._preempted()
        self.watch.check()
        self.batches = batch_id if batch_id > skip else self.batches
        if batch_id == skip and skip:  # the checkpoint stood at the pass's end
            feeds = self.padding(feeder.convert(batches.batch_before(f"train() pass {pass_id}")))
            self.device.begin_pass(pass_id, feeds)  # its totals, as the checkpoint saved them
        self._end_pass(pass_id, record, trained=record.samples > 0)

    def _end_pass(self, pass_id: int, record: PassRecord, trained: bool) -> None:
        with self.device.guard:
            self.device.end_pass()
            self.position.pass_id, self.position.batch_id = pass_id + 1, 0
            self.position.samples = 0
            self.progressed = True
        if trained:
            cost_sum, stats = self.device.pass_totals()
            record.cost = float(cost_sum) / max(record.samples, 1)
            record.metrics = results(self.evaluators, stats)
        self.emit.end_pass(pass_id, lambda: dict(record.metrics), record.cost)
        if self.settings.checkpoints is not None:
            self._checkpoint(self.settings.checkpoints)
            self._preempted()

    def _checkpoint(self, policy: Checkpointing) -> None:
        """Write a checkpoint of the state now (none of a non-finite step: the watch
        raises first, so a resume never skips it)."""
        self.watch.check()
        if self.saved_at != self.watch.step:
            self.save(os.path.join(policy.folder, checkpoints.name_for(self.watch.step)))
            checkpoints.prune(policy.folder, policy.kept)
            self.saved_at = self.watch.step
        policy.batches = 0

    def _preempted(self, after_step: bool = True) -> None:
        """On a SIGTERM (``signals.Preemption``, watched in ``checkpoint_dir`` runs):
        checkpoint, then end as it would have."""
        policy = self.settings.checkpoints
        if self.preemption is not None and policy is not None and self.preemption.due(after_step):
            self._checkpoint(policy)
            self.preemption.stop()
