"""The host side of one training pass: dispatches, events, the non-finite watch.

:class:`Watch` remembers the last dispatches so that, once the device flags a step
whose cost, gradients or update were not finite, the trainer can name its pass and batch and
re-run it to find the layer at fault. It reads the flag every ``CHECK_EVERY``
dispatches, at the end of each pass, and right after a handler has read a non-finite
cost, so the steps in between run ahead without a host sync.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from paddle_lite._src import events
from paddle_lite._src.distributed import to_host
from paddle_lite._src.errors import NonFiniteError
from paddle_lite._src.training import steps
from paddle_lite._src.training.nonfinite import diagnose

CHECK_EVERY = 16  # also the most steps a CPU mesh may run ahead (a JAX 0.10 deadlock)


class Fetched:
    """Outputs of one dispatch, copied to the host once, when something reads them."""

    def __init__(self, value: Any) -> None:
        self._value, self._host = value, None

    @property
    def read(self) -> bool:
        return self._host is not None

    def get(self) -> Any:
        if self._host is None:
            self._host = to_host(self._value)
        return self._host

    def pick(self, i: int | None) -> Callable[[], Any]:
        """The ``(cost_sum, stats, finite)`` of batch ``i`` of a stacked dispatch."""
        if i is None:
            return self.get
        return lambda: jax.tree_util.tree_map(lambda x: x[i], self.get())


def results(evaluators: list[Any], stats: Any) -> dict[str, float]:
    """Metrics of ``evaluators`` from their (host or device) summed statistics."""
    out: dict[str, float] = {}
    for ev, s in zip(evaluators, stats, strict=True):
        out.update(ev.result(jax.tree_util.tree_map(np.asarray, s)))
    return out


def fire_iterations(handler, evaluators, chunk, out: Fetched, pass_id: int, batch_id: int, gm):  # noqa: ANN001
    """The v2 per-batch events of a dispatched chunk, each with its own cost and metrics;
    ``gm(i)`` is batch ``i``'s ``event.gm``."""
    if not chunk.stacked:
        handler(events.EndForwardBackward(pass_id, batch_id, gm=gm(0)))
    for i, size in enumerate(chunk.sizes):
        pick = out.pick(i if chunk.stacked else None)
        machine = gm(i)
        if chunk.stacked:
            handler(events.BeginIteration(pass_id, batch_id + i))
            handler(events.EndForwardBackward(pass_id, batch_id + i, gm=machine))
        handler(
            events.EndIteration(
                pass_id,
                batch_id + i,
                cost=lambda p=pick, n=size: float(p()[0]) / n,
                evaluator=lambda p=pick: results(evaluators, p()[1]),
                gm=machine,
                skipped=lambda p=pick: not bool(p()[2]),
            )
        )


class Watch:
    """Recent dispatches, to name and diagnose the first non-finite step."""

    def __init__(self, costs: list[Any], device: Any, first_step: int, on_nan: str) -> None:
        self.costs, self.device, self.on_nan = costs, device, on_nan
        self.step = first_step  # steps dispatched so far (host count)
        self.recent: collections.deque = collections.deque(maxlen=CHECK_EVERY + 1)
        self.since_check = 0

    def record(self, chunk: Any, out: Fetched, pass_id: int, batch_id: int) -> None:
        self.recent.append((self.step, chunk, pass_id, batch_id, out))
        self.step += len(chunk.sizes)
        self.since_check += 1

    def due(self) -> bool:
        """Time to read the flag: every ``CHECK_EVERY`` dispatches, or a non-finite cost
        was just read by a handler."""
        if self.on_nan != "raise":
            return False
        _, _, _, _, out = self.recent[-1]
        seen_bad = out.read and not np.all(out.get()[2])
        return seen_bad or self.since_check >= CHECK_EVERY

    def check(self) -> None:
        """Raise :class:`NonFiniteError` if a step was flagged (a host read)."""
        self.since_check = 0
        if self.on_nan != "raise" or not self.recent:
            return
        bad = self.device.bad_step()
        if bad < 0:
            return
        for first, chunk, pass_id, batch_id, _ in self.recent:
            if first <= bad < first + len(chunk.sizes):
                self._raise(bad, chunk, pass_id, batch_id + bad - first, bad - first)
        raise NonFiniteError(f"training step {bad} was not finite (it is no longer buffered).")

    def _raise(self, bad: int, chunk: Any, pass_id: int, batch_id: int, i: int) -> None:
        feeds = chunk.feeds
        if chunk.stacked:
            feeds = jax.tree_util.tree_map(lambda x: x[i], feeds)
        state = self.device.state  # as it was before the step: it was not applied
        key = jax.random.fold_in(state.key, bad)
        update = functools.partial(steps.optimized, self.device.program.tx, state, feeds=feeds)
        where = diagnose(self.costs, self.device.params(), feeds, key, update)
        raise NonFiniteError(
            f"pass {pass_id}, batch {batch_id}: the step is not finite; {where}. The "
            "parameters and optimizer state keep their values from before this batch. Lower the "
            "learning rate, clip gradients (gradient_clipping_threshold), check the data, "
            "or train with on_nan='skip' to drop such batches."
        )
