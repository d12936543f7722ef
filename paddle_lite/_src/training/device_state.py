"""A trainer's state on the device and the few host calls that move it.

``DeviceState`` holds, while ``train`` runs, the ``TrainState`` of
the current (frozen set, precision, on_nan) program, and between runs the optimizer
state of every frozen set, the step count and the PRNG key, so a second ``train``
call continues where the first stopped. Host reads happen only when asked: pulling
the parameters into the user's ``Parameters``, reading the non-finite flag, or taking
a checkpoint's ``snapshot``.

Every change of the state runs inside ``with self.guard`` (``signals.Guard``): under the
lock of the user's ``Parameters``, which every read takes too (so another thread reads
the values after a whole step, never buffers a step donated), and with Ctrl-C deferred
until the new buffers are stored. A host read never puts anything on the device and
never computes over the mesh, so one process of a multi-process job may read alone
(``if process_index() == 0: parameters.get(...)``) without leaving a collective
half-joined.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import numpy as np
import optax

from paddle_lite._src import config
from paddle_lite._src.distributed.parallel import put_replicated, to_host
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.training import chunks, packing, pass_totals, steps
from paddle_lite._src.training.chunks import Chunk, Feeds
from paddle_lite._src.training.host_sync import HostSync
from paddle_lite._src.training.programs import Model, Programs, Run, TrainProgram
from paddle_lite._src.training.signals import Guard
from paddle_lite._src.training.snapshot import Saved, Snapshot, check_fit, fill


class Held(NamedTuple):
    """The training state on the device: its leaves as ``packing`` packs them, and the
    program's run over them (None until the first dispatch)."""

    packing: packing.Packing
    leaves: list[Any]
    run: Run | None = None


class Ran(NamedTuple):
    """The last run that returned, with the feeds it ran on while training (their
    signature alone after ``stop``, which lets the batch go)."""

    run: Run | None = None
    feeds: tuple[Feeds, ...] | None = None
    known: tuple[Any, ...] | None = None  # the feeds' signature, once they are let go

    def signature(self) -> tuple[Any, ...] | None:
        if self.known is None and self.run is not None:
            return chunks.signature(self.feeds)
        return self.known

    def let_go(self) -> Ran:
        return Ran(self.run, None, self.signature())


class DeviceState:
    """The device side of a trainer; see the module docstring.

    Args:
        model: what the trainer trains (``programs.Model``).
        parameters: the user's ``Parameters``.
        own: the trainer's own ``Parameters`` (those the user's set lacks), or None.
    """

    def __init__(self, model: Model, parameters: Parameters, own: Parameters | None = None) -> None:
        self.host = HostSync(model.specs, parameters, own, self.pull)
        self.guard = Guard(parameters.lock)
        self.programs = Programs(model)
        self.opt_states: dict[frozenset[str], optax.OptState | Saved] = {}  # device, or host
        self.zeros = steps.make_zeros(model.costs, model.evaluators)
        self._program: TrainProgram | None = None
        self.held: Held | None = None  # while training
        self.ran = Ran()  # the last run that returned, and what it ran on
        self.frozen: frozenset[str] = frozenset()
        self.step_count = np.int32(0)  # steps run, carried across train() calls
        self.pass_id = np.int32(0)  # the last pass trained
        self.key = np.asarray(jax.random.PRNGKey(config.default_seed()))
        self.saved_totals: Saved | None = None  # a resumed pass's totals
        self.totals_layout: pass_totals.Layout | None = None  # how the totals are packed

    @property
    def training(self) -> bool:
        return self.held is not None

    @property
    def program(self) -> TrainProgram:
        """The program of the latest ``start``."""
        if self._program is None:
            raise RuntimeError("the trainer has not started training yet")
        return self._program

    def _holding(self) -> Held:
        """The state on the device; only while training (``start`` .. ``stop``)."""
        if self.held is None:
            raise RuntimeError("the trainer holds no training state: it is not training")
        return self.held

    # changes (each inside ``with self.guard``) -------------------------------------
    def start(self, frozen: frozenset[str], on_nan: steps.OnNan) -> None:
        """Put the parameters and the optimizer state of ``frozen`` on the device; the
        user's ``Parameters`` now pulls its values from here when read."""
        with self.guard:
            program = self.programs.get_for(frozen, on_nan)
            values = self.host.device_values()
            trainable = {n: values[n] for n in program.names}
            saved = self.opt_states.get(frozen)
            if saved is None:
                saved = program.init(trainable)
            elif isinstance(saved, Saved):  # restored from a checkpoint
                template = jax.eval_shape(program.init, trainable)
                saved = fill(template, saved, "optimizer state")
            self._store(
                steps.TrainState(
                    trainable=trainable,
                    fixed={n: v for n, v in values.items() if n not in trainable},
                    opt_state=saved,
                    totals=None,
                    counters=steps.counters(self.step_count, 0),
                    key=self.key,
                    masks={n: m for n, m in self.host.masks.items() if n in trainable},
                )
            )
            self.opt_states[frozen] = saved
            self._program, self.frozen = program, frozen
            self.host.attach()

    def _store(self, state: steps.TrainState) -> None:
        leaves, tree = jax.tree_util.tree_flatten(state)
        how = packing.packing_of(tree, leaves)
        self.held = Held(how, packing.pack(how, leaves, host=True))

    def reload(self) -> None:
        """Take parameter values ``set`` on the host since the last step."""
        with self.guard:
            values = self.host.device_values()
            state = self.host_state()  # packed again on the host: no put
            self._store(
                state._replace(
                    trainable={n: values[n] for n in state.trainable},
                    fixed={n: values[n] for n in state.fixed},
                )
            )

    def begin_pass(self, pass_id: int, feeds: Feeds) -> None:
        """Zero the pass totals (shaped from a batch's ``feeds``) and set the pass id."""
        with self.guard:
            state = self.host_state()  # packed again on the host: no put
            totals = self.zeros({**state.fixed, **state.trainable}, feeds)
            layout = pass_totals.layout(totals)
            if self.saved_totals is not None:
                totals = to_host(fill(totals, self.saved_totals, "pass totals"))
            step, _, bad = state.counters
            self._store(
                state._replace(
                    totals=pass_totals.pack(totals), counters=steps.counters(step, pass_id, bad)
                )
            )
            self.totals_layout, self.saved_totals = layout, None

    def dispatch(self, chunk: Chunk) -> steps.Outputs:
        """Run the steps of ``chunk`` (one device call); returns each batch's
        ``(cost_sum, stats, finite)``, on the device. Call it inside ``with self.guard``,
        with what must change with the state."""
        if self.host.changed():
            self.reload()
        held = self._holding()
        run = held.run or self.program.run_for(held.packing)
        # A run that has returned before is compiled: a Ctrl-C waits until its new state is
        # stored. One still to compile may be stopped while its donated inputs are whole.
        self.guard.donating = None if self.ran.run is run else held.leaves
        try:
            leaves, out = run(held.leaves, chunk.feeds)
        except BaseException:
            if not any(x.is_deleted() for x in held.leaves) and not self._warm(run, chunk):
                self.program.forget(held.packing)  # a compile cut short: build afresh
                self.held = held._replace(run=None)
            raise
        self.held = Held(held.packing, leaves, run)
        self.ran = Ran(run, chunk.feeds)
        return out

    def _warm(self, run: Run, chunk: Chunk) -> bool:
        """Whether ``run`` has returned on feeds of ``chunk``'s signature: a call cut
        short before it ran then compiled nothing, and its program is kept."""
        return self.ran.run is run and self.ran.signature() == chunks.signature(chunk.feeds)

    def end_pass(self) -> None:
        """v2's end-of-pass catch-up of lazily decayed sparse rows."""
        if self.program.lazy_decay:
            with self.guard:
                self._store(self.program.catch_up(self._device_state(self._holding())))

    def stop(self) -> None:
        """Hand the parameters back to the user's ``Parameters``; keep the optimizer state
        and step count for the next ``start`` (also after a ``start`` cut short)."""
        with self.guard:
            if self.held is not None:
                self.pull()
                state = self.host_state()
                self.opt_states[self.frozen] = state.opt_state
                step, pass_id, _ = state.counters
                self.step_count, self.pass_id = np.int32(step), np.int32(pass_id)
            self.host.detach()
            self.held, self.ran = None, self.ran.let_go()

    def restore(self, snapshot: Snapshot) -> None:
        """Take a checkpoint's state (between ``train`` calls; the parameters are the
        caller's)."""
        with self.guard:
            self.opt_states = dict(snapshot.opt_states)
            self.host.restore_masks(snapshot.masks)
            self.saved_totals = snapshot.totals
            self.key = np.asarray(snapshot.key)
            self.step_count = np.int32(snapshot.step)

    def check_fits(self, snapshot: Snapshot) -> None:
        """Refuse (``CheckpointError``) a snapshot whose optimizer states this trainer's
        optimizer would not take, before anything changes."""
        for frozen, saved in snapshot.opt_states.items():
            template = self.programs.optimizer_template(frozen)
            check_fit(template, saved, "optimizer state")

    # reads --------------------------------------------------------------------------
    def host_state(self) -> steps.TrainState:
        """The training state with its packed small leaves read to the host (the large
        ones stay device arrays: read them before the next step donates them)."""
        held = self._holding()
        leaves = packing.unpack(held.packing, held.leaves, host=True)
        return jax.tree_util.tree_unflatten(held.packing.tree, leaves)

    def on_device_state(self) -> steps.TrainState | None:
        """The training state on the device, to compute with (its small leaves read and
        put back: one host round trip); None when not training."""
        with self.guard.lock:
            return None if self.held is None else self._device_state(self.held)

    def running_state(self) -> steps.TrainState:
        """``on_device_state`` of a trainer known to train."""
        with self.guard.lock:
            return self._device_state(self._holding())

    @staticmethod
    def _device_state(held: Held) -> steps.TrainState:
        leaves = packing.unpack(held.packing, held.leaves, host=True)
        leaves = packing.on_device(held.packing, leaves)
        return jax.tree_util.tree_unflatten(held.packing.tree, leaves)

    def host_params(self) -> dict[str, np.ndarray] | None:
        """The parameters, copied to the host (None when not training)."""
        with self.guard.lock:
            if self.held is None:
                return None
            state = self.host_state()
            return to_host({**state.fixed, **state.trainable})

    def pull(self) -> None:
        """Copy the device parameters into the user's ``Parameters``."""
        with self.guard.lock:
            params = self.host_params()
            if params is not None:
                self.host.receive(params)

    def steps_run(self) -> int:
        """Steps this trainer has run (a host read while training)."""
        with self.guard.lock:
            if self.held is None:
                return int(self.step_count)
            return int(self.host_state().counters[0])

    def bad_step(self) -> int:
        """The first step whose cost, gradients or update were not finite, or -1 (a host read)."""
        with self.guard.lock:
            return int(self.host_state().counters[2])

    def pass_totals(self) -> tuple[Any, list[Any]]:
        """The pass's ``(cost_sum, stats)`` so far, on the host (a host read)."""
        with self.guard.lock:
            totals = to_host(self.host_state().totals)
        return self._unpacked(totals)

    def _unpacked(self, totals: tuple[np.ndarray, ...]) -> Any:
        """Host pass ``totals`` as the tree ``begin_pass`` packed."""
        if self.totals_layout is None:
            raise RuntimeError("no pass has begun: there are no pass totals")
        return pass_totals.unpack(totals, self.totals_layout)

    def snapshot(self) -> Snapshot:
        """Everything a checkpoint keeps besides the parameters, on the host, as of one
        step (a host read): the optimizer state of every frozen set, the pass totals of
        a pass in progress, the pruning masks, the PRNG key and the step count."""
        with self.guard.lock:
            opt_states, totals, step = dict(self.opt_states), self.saved_totals, self.step_count
            if self.held is not None:
                state = self.host_state()
                opt_states[self.frozen] = state.opt_state
                step = state.counters[0]
                if state.totals is not None:
                    totals = Saved.of(self._unpacked(to_host(state.totals)))
            saved = {
                f: s if isinstance(s, Saved) else Saved.of(to_host(s))
                for f, s in opt_states.items()
            }
            masks = dict(self.host.masks)
            return Snapshot(saved, totals, masks, np.asarray(self.key), int(step))

    def eval_params(self, averaged: bool, on_mesh: bool = True) -> dict[str, Any]:
        """Values to test (``averaged=False``) or save with: sparse rows' missed decay
        applied, and model-averaged when ``averaged`` and the optimizer averages (v2's
        ``apply()``, which only ``save_parameter_to_tar`` called). Computed from host
        copies (the training state is untouched, and a step that donates it later does
        not change them), on this process's device, and put on the mesh ``on_mesh``."""
        with self.guard.lock:
            params = self.host_params() or self.host.host_values()
            frozen, opt_state = self.frozen, None
            if self.held is not None:
                state = self.host_state()
                opt_state, pass_id = state.opt_state, state.pass_id
            else:
                ready = [(f, s) for f, s in self.opt_states.items() if not isinstance(s, Saved)]
                frozen, opt_state = ready[0] if ready else (frozen, None)
                pass_id = self.pass_id
            program = self.programs.of_frozen(frozen) if opt_state is not None else None
            if program is not None and program.changes_view(averaged):
                opt_state = to_host(opt_state)
        if program is not None and program.changes_view(averaged):
            params = to_host(program.eval_view(opt_state, params, np.int32(pass_id), averaged))
        return put_replicated(params) if on_mesh else params
