"""Where training stands, what a checkpoint records of it, and resuming there exactly.

``Position`` is where the next step trains (kept by the trainer, changed with the
device state under its guard); ``position_meta`` is what a checkpoint records of it,
and ``Loaded`` what ``load_checkpoint`` takes back. ``pass_range`` says which passes
the next ``train`` call runs, ``Resume`` what its first pass skips, and ``Skipped``
skips it, checking that the batches skipped hold the samples the checkpoint trained (a
changed batch size or a shorter reader is a ``ResumeError``, raised before anything
trains).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from paddle_lite._src.distributed.parallel import exchange, process_index
from paddle_lite._src.errors import TrainingWarning
from paddle_lite._src.readers import state as reader_state
from paddle_lite._src.topology import Topology
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.training import checkpoints, snapshot
from paddle_lite._src.training.checkpoints import Meta
from paddle_lite._src.training.own_shares import trained_tasks
from paddle_lite._src.version import __version__


@dataclasses.dataclass
class Position:
    """Where training stands: the pass and batch the next step trains, the samples the
    pass trained before it and the largest batch so far (what the batch number means),
    and the random states and reader state at that pass's start (what a mid-pass
    checkpoint keeps). It changes with the device state, under its guard."""

    pass_id: int = 0
    batch_id: int = 0
    samples: int = 0
    batch_size: int = 0
    random: dict[str, Any] = dataclasses.field(default_factory=dict)  # random_states()
    reader: Any = None  # the reader's state() (JSON), or None
    share_tasks: int = 0  # a process-share reader's finished tasks now trained (own_shares)


@dataclasses.dataclass(frozen=True)
class Resume:
    """Where a loaded checkpoint left its pass: ``batches`` to skip, which held
    ``samples`` (None for a checkpoint that did not record them) of at most
    ``batch_size`` each; ``path`` names the checkpoint in errors."""

    batches: int = 0
    samples: int | None = None
    batch_size: int = 0
    path: str = ""
    master: dict[str, Any] | None = None  # a process-share reader's trained tasks


def random_states() -> dict[str, Any]:
    """The global ``random`` and ``numpy.random`` states (what v2 readers shuffle with),
    as JSON values: numpy's as its legacy tuple ``set_state`` takes back."""
    version, internal, gauss = random.getstate()
    state = np.random.get_state(legacy=False)  # a MT19937's, as a dict
    mt = state["state"]
    return {
        "python": [version, list(internal), gauss],
        "numpy": [
            state["bit_generator"], mt["key"].tolist(), int(mt["pos"]),
            int(state["has_gauss"]), float(state["gauss"]),
        ],
    }  # fmt: skip


def agree_random() -> None:
    """Give every process of a job process 0's global random states (once per pass, so
    readers that shuffle with them read the same global batches everywhere)."""
    mine = json.dumps(random_states()) if process_index() == 0 else ""
    restore_random(json.loads(exchange("random", mine)[0]))


def restore_random(states: dict[str, Any]) -> None:
    """Set the global random states ``random_states`` returned."""
    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, pos, has_gauss, cached = states["numpy"]
    np.random.set_state((name, np.asarray(keys, np.uint32), pos, has_gauss, cached))


def position_meta(where: Position, reader: Any) -> Meta:
    """The ``checkpoint.json`` entries of ``where`` (mid-pass: the random states and the
    reader's state at the pass's start; else as they are now, for the next pass)."""
    mid_pass = where.batch_id > 0
    return {
        "pass_id": where.pass_id,
        "batch_id": where.batch_id,
        "samples": where.samples,
        "batch_size": where.batch_size,
        "random": where.random if mid_pass else random_states(),
        "reader": where.reader if mid_pass else reader_state.get_state(reader),
    }


def checkpoint_files(
    state: snapshot.Snapshot,
    where: Position,
    reader: Any,
    topology: Topology,
    shapes: dict[str, list[int]],
) -> tuple[dict[str, np.ndarray], Meta]:
    """The arrays and the ``checkpoint.json`` entries of a checkpoint of one step: the
    device ``state`` taken at ``where`` (at a pass's start without the pass's totals),
    the position, the tasks of the master's shares this process trained, the topology's
    fingerprint, the parameters' ``shapes`` and the library version."""
    if where.batch_id == 0:  # a pass's start: no totals to keep
        state = dataclasses.replace(state, totals=None)
    arrays, meta = snapshot.to_files(state)
    meta.update(position_meta(where, reader))
    share = getattr(reader, "process_share", None)
    if share:
        meta["master"] = trained_tasks(share, where.share_tasks)
    meta["fingerprint"] = checkpoints.fingerprint(topology)
    meta["parameters"], meta["version"] = shapes, __version__
    return arrays, meta


@dataclasses.dataclass(frozen=True)
class Loaded:
    """A checkpoint ``load_checkpoint`` took back: its ``position``, the ``samples`` its
    pass had trained (None for a checkpoint that did not record them), the folder given
    (``source``) and the checkpoint's own (``path``), both resolved."""

    position: Position
    samples: int | None
    source: str
    path: str
    master: dict[str, Any] | None = None

    @classmethod
    def from_meta(cls, meta: Meta, dirname: str, path: str) -> Loaded:
        samples = meta.get("samples")
        where = Position(
            meta["pass_id"], meta["batch_id"], samples or 0, meta.get("batch_size", 0),
            meta["random"], meta.get("reader"),
        )  # fmt: skip
        real = os.path.realpath
        return cls(where, samples, real(dirname), real(path), meta.get("master"))

    def resume(self) -> Resume:
        where = self.position
        return Resume(where.batch_id, self.samples, where.batch_size, self.path, self.master)

    def restore(self, reader: Any) -> None:
        """Put back the random states and the reader's state of the checkpoint's pass."""
        restore_random(self.position.random)
        if self.position.reader is not None:
            reader_state.restore_state(reader, self.position.reader)


def pass_range(resume: Loaded | None, num_passes: int, folder: str | None) -> range:
    """The passes one ``train(num_passes=..., checkpoint_dir=folder)`` call runs.

    The rule (v2's meaning of ``num_passes``, kept across checkpoints): without a
    loaded checkpoint a call trains passes ``0 .. num_passes - 1`` (``train(2);
    train(2)`` is 4 passes). After ``load_checkpoint(d)`` (``resume``), a call given
    ``checkpoint_dir=d`` continues the call the checkpoint was taken in, up to pass
    ``num_passes`` (a killed and restarted script ends where the uninterrupted one
    would); any other call trains ``num_passes`` passes from where the checkpoint
    stands, a pass it interrupted finished first and counted as the first. A call that
    trains nothing warns (``TrainingWarning``).
    """
    start = 0 if resume is None else resume.position.pass_id
    if resume is None:
        passes = range(num_passes)
    elif folder is not None and os.path.realpath(folder) in (
        resume.source,
        os.path.dirname(resume.path),
    ):
        passes = range(start, num_passes)
    else:
        passes = range(start, start + num_passes)
    if not passes:
        where = "" if resume is None else f"; the checkpoint stands at pass {start}"
        warnings.warn(
            f"train(num_passes={num_passes}) trains nothing{where} (a call with the "
            "checkpoint_dir it was loaded from continues that run up to pass num_passes).",
            TrainingWarning,
            stacklevel=user_stacklevel(),
        )
    return passes


class Skipped:
    """``batches`` after the ``resume.batches`` a checkpoint's pass trained, checked to
    hold the samples it trained: a reader that ends first, or batches of another size,
    is a ``ResumeError`` (skipping them would not continue at the
    checkpoint's sample), raised before anything trains. ``last`` keeps the last batch
    skipped (a pass with nothing left after it still ends with its totals)."""

    def __init__(
        self,
        batches: Iterable[Any],
        resume: Resume,
        samples_in: Callable[[Any], int],
        pass_id: int,
    ) -> None:
        self.batches, self.resume, self.pass_id = batches, resume, pass_id
        self.samples_in = samples_in
        self.last: Any = None

    def __iter__(self) -> Iterator[Any]:
        batches, resume = iter(self.batches), self.resume
        seen = 0
        for count in range(resume.batches):
            try:
                self.last = next(batches)
            except StopIteration:
                raise self._refused(count, seen, ended=True) from None
            seen += self.samples_in(self.last)
        if resume.samples is not None and seen != resume.samples:
            raise self._refused(resume.batches, seen, ended=False)
        yield from batches

    def _refused(self, count: int, seen: int, ended: bool) -> checkpoints.ResumeError:
        resume = self.resume
        where = f"train() pass {self.pass_id}: the checkpoint {resume.path!r}"
        if ended and (resume.samples is None or seen < resume.samples):
            return checkpoints.ResumeError(
                f"{where} stands after batch {resume.batches} of this pass{_samples(resume)}, "
                f"but the reader ended after {count} batches ({seen} samples). The reader is "
                "shorter than the one the checkpoint was trained with; resume with that "
                "reader, or start over without loading the checkpoint."
            )
        return checkpoints.ResumeError(
            f"{where} was taken after {resume.batches} batches{_samples(resume)} of this pass, "
            f"but this reader's first {count} batches hold {seen} samples: the batch size "
            "(or the reader) changed, so skipping them would not continue at the "
            f"checkpoint's sample. Resume with batches of {resume.batch_size}, or start over: "
            "train without loading the checkpoint (its parameters alone load with "
            "Parameters.from_tar on its parameters.tar)."
        )


def _samples(resume: Resume) -> str:
    if resume.samples is None:
        return ""
    return f" ({resume.samples} samples in batches of {resume.batch_size})"
