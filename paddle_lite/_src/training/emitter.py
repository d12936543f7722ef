"""The one place that builds v2's training events and hands them to the handler.

v2's order: ``BeginTraining``; per pass ``BeginPass``, per batch ``BeginIteration``,
``EndForwardBackward``, ``EndIteration``, then ``EndPass``; ``EndTraining``. A dispatch
trains ``K >= 1`` batches: the first batch's ``BeginIteration`` (and ``Compiling``, when
the dispatch compiles a program) comes before it, so a handler's ``parameters.set``
there still applies to that batch; every other event of the chunk comes after it,
batch by batch, each ``EndIteration`` with its own cost and metrics. With no handler
(``event_handler=None``) no event object is built at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from paddle_lite._src.errors import ArgumentTypeError
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.training import events, steps
from paddle_lite._src.training.chunks import Chunk, signature
from paddle_lite._src.training.device_state import DeviceState
from paddle_lite._src.training.gradient_machine import GradientMachine, LayerForwards, machines_for
from paddle_lite._src.training.programs import TrainProgram
from paddle_lite._src.training.watch import Fetched

Handler = Callable[[Any], None]  # an event handler


def results(evaluators: Sequence[Evaluator], stats: Any) -> dict[str, float]:
    """Metrics of ``evaluators`` from their (host or device) summed statistics."""
    out: dict[str, float] = {}
    for ev, s in zip(evaluators, stats, strict=True):
        out.update(ev.result(jax.tree_util.tree_map(np.asarray, s)))
    return out


class Emitter:
    """v2's events of one ``train`` call, sent to ``handler`` (see the module docstring).

    Args:
        handler: the combined event handler, or None (then nothing is built).
        evaluators: the trainer's evaluators (for ``metrics``).
        forwards: the ``gradient_machine.LayerForwards`` behind ``event.gm``.
        device: the trainer's ``DeviceState`` (its parameters, read by ``event.gm``).
        compiles: the trainer's ``CompileWatch``.
    """

    def __init__(
        self,
        handler: Handler | None,
        evaluators: Sequence[Evaluator],
        forwards: LayerForwards,
        device: DeviceState,
        compiles: CompileWatch,
    ) -> None:
        self.handler, self.evaluators = handler, evaluators
        self.forwards, self.device = forwards, device
        self.compiles = compiles  # the trainer's CompileWatch: a new signature fires Compiling
        self.last_gm: GradientMachine | None = None  # the last batch's, passed on to EndPass

    @property
    def listening(self) -> bool:
        return self.handler is not None

    def begin_training(self, num_passes: int) -> None:
        if self.handler is not None:
            self.handler(events.BeginTraining(num_passes))

    def begin_pass(self, pass_id: int, num_passes: int, batches: int | None) -> None:
        if self.handler is not None:
            self.handler(events.BeginPass(pass_id, num_passes, batches))

    def before(self, chunk: Chunk, pass_id: int, batch_id: int) -> None:
        """Before a chunk's dispatch: its first ``BeginIteration``, then ``Compiling``
        when this (program, signature) is new."""
        if self.handler is None:
            return
        self.handler(events.BeginIteration(pass_id, batch_id))
        if self.compiles.is_new(self.device.program, chunk):
            self.handler(events.Compiling(pass_id, batch_id))

    def after(
        self, chunk: Chunk, out: steps.Outputs, pass_id: int, batch_id: int, first_step: int
    ) -> Fetched | None:
        """After a chunk's dispatch: the rest of its batches' events, in order. Returns
        the outputs as a ``Fetched`` (None when no handler can read them)."""
        handler = self.handler
        if handler is None:
            return None
        fetched, gm = Fetched(out), machines_for(self.forwards, self.device, chunk, first_step)
        for i, size in enumerate(chunk.sizes):
            if i:
                handler(events.BeginIteration(pass_id, batch_id + i))
            machine = gm(i)
            self._end_forward_backward(handler, pass_id, batch_id + i, machine)
            handler(self._end_iteration(fetched.pick(i), size, pass_id, batch_id + i, machine))
        self.last_gm = gm(len(chunk.sizes) - 1)
        return fetched

    def _end_forward_backward(
        self, handler: Handler, pass_id: int, batch_id: int, machine: GradientMachine
    ) -> None:
        """``EndForwardBackward``; ``parameters.get_grad`` answers from ``machine`` while
        it is handled (v2 zeroed the gradients in the update that followed)."""
        parameters = self.device.host.parameters
        parameters.gradients_from(machine.gradient)
        try:
            handler(events.EndForwardBackward(pass_id, batch_id, gm=machine))
        finally:
            parameters.gradients_from(None)

    def _end_iteration(
        self,
        pick: Callable[[], steps.BatchOutput],
        size: int,
        pass_id: int,
        batch_id: int,
        gm: GradientMachine,
    ) -> events.EndIteration:
        return events.EndIteration(
            pass_id,
            batch_id,
            cost=lambda: float(pick()[0]) / size,
            evaluator=lambda: results(self.evaluators, pick()[1]),
            gm=gm,
            skipped=lambda: not bool(pick()[2]),
        )

    def end_pass(
        self, pass_id: int, metrics: Callable[[], dict[str, float]], cost: float | None
    ) -> None:
        if self.handler is not None:
            self.handler(events.EndPass(pass_id, evaluator=metrics, gm=self.last_gm, cost=cost))

    def end_training(self) -> None:
        if self.handler is not None:
            self.handler(events.EndTraining())


def combined_handler(event_handler: Any) -> Handler | None:
    """One callable for ``event_handler``: None (no handler: None), a callable, or a list
    of callables (each called in order with every event)."""
    if event_handler is None or callable(event_handler):
        return event_handler
    if isinstance(event_handler, (list, tuple)):
        handlers = list(event_handler)
        bad = [h for h in handlers if not callable(h)]
        if not bad:

            def each(event: Any) -> None:
                for handler in handlers:
                    handler(event)

            return each
        event_handler = bad[0]
    raise ArgumentTypeError(
        "event_handler must be a callable or a list of callables; received "
        f"{event_handler!r} of type {type(event_handler).__name__}."
    )


class CompileWatch:
    """The (program, signature) pairs already compiled: a new one compiles on dispatch,
    and so does every one of a program that forgot its run (a compile cut short)."""

    def __init__(self) -> None:
        self._seen: set[Any] = set()

    def is_new(self, program: TrainProgram, chunk: Chunk) -> bool:
        key = (id(program), program.dropped, signature(chunk.feeds))
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


def pass_length(reader: Any, previous: int | None) -> int | None:
    """Batches per pass: the reader's ``len()`` when it has one, else ``previous``."""
    try:
        return len(reader)
    except TypeError:
        return previous
