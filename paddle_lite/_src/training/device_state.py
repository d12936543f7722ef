"""A trainer's state on the device and the few host calls that move it.

:class:`DeviceState` holds, while ``train`` runs, the :class:`~steps.TrainState` of
the current (frozen set, precision, on_nan) program, and between runs the optimizer
state of every frozen set, the step count and the PRNG key, so a second ``train``
call continues where the first stopped. Host reads happen only when asked: pulling
the parameters into the user's ``Parameters``, reading the non-finite flag, or
exporting a checkpoint.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from paddle_lite._src import config
from paddle_lite._src.distributed import put_replicated, to_host
from paddle_lite._src.training import packing, pass_totals, steps
from paddle_lite._src.training.checkpoints import Saved, fill
from paddle_lite._src.training.host_sync import HostSync
from paddle_lite._src.training.programs import Programs, TrainProgram


class DeviceState:
    """The device side of a trainer; see the module docstring."""

    def __init__(  # noqa: ANN001
        self, costs, evaluators, equation, specs, parameters, own=None, aux_costs=()
    ) -> None:
        self.host = HostSync(specs, parameters, own, self.pull)
        self.programs = Programs(costs, evaluators, equation, specs, aux_costs)
        self.opt_states: dict[frozenset[str], Any] = {}  # device trees, or Saved
        self.zeros = steps.make_zeros(costs, evaluators)
        self.program: TrainProgram | None = None
        self.leaves: list[Any] | None = None  # the TrainState's leaves, packed, while training
        self.packing: packing.Packing | None = None  # how (``packing``)
        self.run: Any = None  # the program's run over them (TrainProgram.run_for)
        self.frozen: frozenset[str] = frozenset()
        self.step_count: Any = np.int32(0)  # steps run, carried across train() calls
        self.pass_id: Any = np.int32(0)  # the last pass trained
        self.key = np.asarray(jax.random.PRNGKey(config.default_seed()))
        self.saved_totals: tuple[list[str], list[Any]] | None = None  # a resumed pass's
        self.totals_layout: Any = None  # how the pass totals are packed (pass_totals)

    def start(self, frozen: frozenset[str], on_nan: steps.OnNan) -> None:
        """Put the parameters and the optimizer state of ``frozen`` on the device; the
        user's ``Parameters`` now pulls its values from here when read."""
        self.program, self.frozen = self.programs.get_for(frozen, on_nan), frozen
        values = self.host.device_values()
        self.host.attach()
        trainable = {n: values[n] for n in self.program.names}
        saved = self.opt_states.get(frozen)
        if saved is None:
            self.opt_states[frozen] = self.program.init(trainable)
        elif isinstance(saved, Saved):  # restored from a checkpoint
            template = jax.eval_shape(self.program.init, trainable)
            self.opt_states[frozen] = fill(template, saved.paths, saved.leaves, "optimizer state")
        self.state = steps.TrainState(
            trainable=trainable,
            fixed={n: v for n, v in values.items() if n not in trainable},
            opt_state=self.opt_states[frozen],
            totals=None,
            counters=steps.counters(self.step_count, 0),
            key=self.key,
            masks={n: m for n, m in self.host.masks.items() if n in trainable},
        )

    @property
    def state(self) -> steps.TrainState | None:
        """The ``steps.TrainState`` on the device while training, else None (a host read
        of the packed small leaves, put back)."""
        return None if self.leaves is None else self._read(on_device=True)

    @state.setter
    def state(self, state: steps.TrainState | None) -> None:
        self.run = None  # the program's run for this state's packing, when dispatched
        if state is None:
            self.leaves = None
            return
        leaves, tree = jax.tree_util.tree_flatten(state)
        self.packing = packing.packing_of(tree, leaves)
        self.leaves = packing.pack(self.packing, leaves, host=True)

    def _read(self, on_device: bool = False) -> steps.TrainState:
        """The training state, its packed small leaves read to the host (a host read),
        and put back ``on_device``."""
        leaves = packing.unpack(self.packing, self.leaves, host=True)
        if on_device:
            leaves = packing.on_device(self.packing, leaves)
        return jax.tree_util.tree_unflatten(self.packing.tree, leaves)

    def reload(self) -> None:
        """Take parameter values ``set`` on the host since the last step."""
        values = self.host.device_values()
        state = self._read()  # packed again on the host: no put
        self.state = state._replace(
            trainable={n: values[n] for n in state.trainable},
            fixed={n: values[n] for n in state.fixed},
        )

    def stop(self) -> None:
        """Hand the parameters back to the user's ``Parameters``; keep the optimizer state
        and step count for the next ``start``."""
        self.pull()
        self.host.detach()
        state = self.state
        if state is not None:
            self.opt_states[self.frozen] = state.opt_state
            step, pass_id, _ = to_host(state.counters)
            self.step_count, self.pass_id = np.int32(step), np.int32(pass_id)
        self.state = None

    def params(self) -> dict[str, Any] | None:
        state = self.state
        return None if state is None else {**state.fixed, **state.trainable}

    def pull(self) -> None:
        """Copy the device parameters into the user's ``Parameters``."""
        params = self.params()
        if params is not None:
            self.host.receive(to_host(params))

    def begin_pass(self, pass_id: int, feeds: Any) -> None:
        """Zero the pass totals (shaped from a batch's ``feeds``) and set the pass id."""
        state = self._read()  # packed again on the host: no put
        totals = self.zeros({**state.fixed, **state.trainable}, feeds)
        self.totals_layout = pass_totals.layout(totals)
        if self.saved_totals is not None:
            totals = to_host(fill(totals, *self.saved_totals, "pass totals"))
            self.saved_totals = None
        step, _, bad = state.counters
        self.state = state._replace(
            totals=pass_totals.pack(totals), counters=steps.counters(step, pass_id, bad)
        )

    def dispatch(self, chunk: Any) -> Any:
        """Run the steps of ``chunk`` (one device call); returns ``(cost_sums, stats,
        finite)``, each with a leading axis of the chunk's ``K`` batches."""
        if self.host.changed():
            self.reload()
        if self.run is None:
            self.run = self.program.run_for(self.packing)
        self.leaves, out = self.run(self.leaves, chunk.feeds)
        return out

    def end_pass(self) -> None:
        """v2's end-of-pass catch-up of lazily decayed sparse rows."""
        if self.program.lazy_decay:
            self.state = self.program.catch_up(self.state)

    def steps_run(self) -> int:
        """Steps this trainer has run (a host read while training)."""
        return int(self._read().counters[0] if self.leaves is not None else self.step_count)

    def bad_step(self) -> int:
        """The first step whose cost, gradients or update were not finite, or -1 (a host read)."""
        return int(self._read().counters[2])

    def pass_totals(self) -> tuple[Any, list[Any]]:
        """The pass's ``(cost_sum, stats)`` so far, on the host (a host read)."""
        return pass_totals.unpack(to_host(self._read().totals), self.totals_layout)

    def eval_params(self, averaged: bool) -> dict[str, Any]:
        """Values to test (``averaged=False``) or save with: sparse rows' missed decay
        applied, and model-averaged when ``averaged`` and the optimizer averages (v2's
        ``apply()``, which only ``save_parameter_to_tar`` called). The training state is
        untouched."""
        state = self.state
        params = self.params() or self.host.device_values()
        if state is not None:
            return self.program.eval_view(state.opt_state, params, state.pass_id, averaged)
        ready = [(f, s) for f, s in self.opt_states.items() if not isinstance(s, Saved)]
        if not ready:
            return params
        frozen, opt_state = ready[0]
        program = self.programs.of_frozen(frozen)
        pass_id = put_replicated(np.int32(self.pass_id))
        return program.eval_view(opt_state, params, pass_id, averaged)
