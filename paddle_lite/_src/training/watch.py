"""The host's side of the non-finite check: which step went bad, and where.

The step program flags the first step whose cost, gradients or update were not
finite (``TrainState.bad``) and, under ``OnNan.RAISE``, changes nothing from then on.
``Watch`` remembers the last dispatches so that, once it reads that flag, it can
name the step's pass and batch and re-run it to find the layer at fault. It reads the
flag every ``CHECK_EVERY`` dispatches, at the end of each pass, and right after a
handler has read a non-finite cost, so the steps in between run ahead without a host
sync.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable

import jax

from paddle_lite._src.distributed.parallel import to_host
from paddle_lite._src.errors import DataError, NonFiniteError
from paddle_lite._src.graph import Layer
from paddle_lite._src.training import steps
from paddle_lite._src.training.chunks import Chunk, Feeds
from paddle_lite._src.training.device_state import DeviceState
from paddle_lite._src.training.nonfinite import diagnose

CHECK_EVERY = 16  # also the most steps a CPU mesh may run ahead (a JAX 0.10 deadlock)


class Fetched:
    """Outputs of one dispatch, each batch's ``(cost_sum, stats, finite)``, copied to
    the host once, when something reads them."""

    def __init__(self, value: steps.Outputs) -> None:
        self._value: steps.Outputs = value
        self._host: steps.Outputs | None = None

    @property
    def read(self) -> bool:
        return self._host is not None

    def get(self) -> steps.Outputs:
        if self._host is None:
            self._host = to_host(self._value)
        return self._host

    def pick(self, i: int) -> Callable[[], steps.BatchOutput]:
        """``() -> (cost_sum, stats, finite)`` of batch ``i`` of the dispatch."""
        return lambda: self.get()[i]

    def seen_bad(self) -> bool:
        """Whether outputs already read say a batch was not finite."""
        return self.read and not all(bool(out[2]) for out in self.get())


class Watch:
    """Recent dispatches, to name and diagnose the first non-finite step."""

    def __init__(self, costs: list[Layer], device: DeviceState, on_nan: steps.OnNan) -> None:
        self.costs, self.device = costs, device
        self.active = on_nan is steps.OnNan.RAISE
        self.step = device.steps_run()  # steps dispatched so far (host count)
        # (first step, chunk, pass id, batch id) of the latest dispatches
        self.recent: collections.deque[tuple[int, Chunk, int, int]] = collections.deque(
            maxlen=CHECK_EVERY + 1
        )
        self.since_check = 0

    def note(self, chunk: Chunk, pass_id: int, batch_id: int) -> None:
        """Count a dispatch of ``chunk`` (with the state it changed, under the guard)."""
        self.recent.append((self.step, chunk, pass_id, batch_id))
        self.step += len(chunk.sizes)
        self.since_check += 1

    def after(self, out: Fetched | None) -> None:
        """Read the flag when it is time: every ``CHECK_EVERY`` dispatches, or when a
        handler has just read a non-finite cost (``out`` is None when no handler can
        read the dispatch's outputs)."""
        if not self.active:
            return
        if (out is not None and out.seen_bad()) or self.since_check >= CHECK_EVERY:
            self.check()

    def check(self) -> None:
        """Raise ``NonFiniteError`` if a step was flagged (a host read)."""
        self.since_check = 0
        if not self.active or not self.recent:
            return
        bad = self.device.bad_step()
        if bad < 0:
            return
        for first, chunk, pass_id, batch_id in self.recent:
            if first <= bad < first + len(chunk.sizes):
                self._raise(bad, chunk.feeds[bad - first], pass_id, batch_id + bad - first)
        raise NonFiniteError(f"training step {bad} was not finite (it is no longer buffered).")

    def _raise(self, bad: int, feeds: Feeds, pass_id: int, batch_id: int) -> None:
        state = self.device.running_state()  # as before the step: it was not applied
        key = jax.random.fold_in(state.key, bad)
        update = functools.partial(steps.optimized, self.device.program.tx, state, feeds=feeds)
        try:
            where = diagnose(self.costs, {**state.fixed, **state.trainable}, feeds, key, update)
        except DataError as err:  # the data, not the numbers (a group's in-link lengths)
            raise DataError(f"train() pass {pass_id}, batch {batch_id}: {err}") from None
        raise NonFiniteError(
            f"pass {pass_id}, batch {batch_id}: the step is not finite; {where}. The "
            "parameters and optimizer state keep their values from before this batch. Lower the "
            "learning rate, clip gradients (gradient_clipping_threshold), check the data, "
            "or train with on_nan='skip' to drop such batches."
        )
