"""Training (v2 ``paddle.trainer.SGD``): a loop around one jitted step per batch.

The trainer keeps the parameters on the device while it trains (``device_state``);
the user's ``Parameters`` object is refreshed from the device whenever it is read
(inside an event handler too) and when ``train`` returns. Values ``set`` on it are
picked up at the next step. Checkpoints (``save_checkpoint`` / ``load_checkpoint``,
or ``train(checkpoint_dir=...)``) hold all a run needs to resume exactly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from paddle_lite._src.arg_checks import (
    frozen_names,
    renamed,
    require_parameters,
    warn_unless_costs,
)
from paddle_lite._src.distributed.parallel import is_writer, multi_process
from paddle_lite._src.errors import ConfigError
from paddle_lite._src.evaluators.classification import topology_evaluators
from paddle_lite._src.feeding.checks import feeder_for
from paddle_lite._src.optim.optimizers import Optimizer, as_optax
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.topology import Topology
from paddle_lite._src.tracebacks import api_boundary
from paddle_lite._src.training import (
    checkpoints,
    early_sgd,
    events,
    folder_lock,
    snapshot,
    steps,
    testing,
)
from paddle_lite._src.training.device_state import DeviceState
from paddle_lite._src.training.emitter import CompileWatch, Emitter, combined_handler
from paddle_lite._src.training.gradient_machine import LayerForwards
from paddle_lite._src.training.history import History
from paddle_lite._src.training.loop import (
    Reader,
    Settings,
    TrainCall,
    check_batch_reader,
    check_not_training,
    checkpointing,
    pass_count,
    positive,
)
from paddle_lite._src.training.programs import Model
from paddle_lite._src.training.resume import (
    Loaded,
    Position,
    Resume,
    checkpoint_files,
    pass_range,
)
from paddle_lite._src.training.signals import Preemption
from paddle_lite._src.training.trained_set import (
    extra_costs,
    merged_values,
    own_parameters,
    warn_if_costs_need,
)


class SGD:
    """Trains ``cost`` (a cost layer or a list, summed) with ``update_equation``.

    Args:
        cost: a cost layer or a list of them.
        parameters: a ``Parameters`` of the topology's parameters; any it lacks (e.g. those
            of ``extra_layers`` when it was created from ``cost``) the trainer initialises
            and keeps itself, as v2 did.
        update_equation: a ``paddle.optimizer`` optimizer or an optax transformation.
        extra_layers: layers kept in the topology though no cost depends on them.
        is_local: True (the default) trains in this process. v2's ``False`` (training
            through parameter servers) is a ``ConfigError``: for several devices or
            machines use ``paddle.init(trainer_count=N)`` or ``paddle_lite.launch``.
        pserver_spec: v2: the parameter servers' addresses (``"host:port,..."``) for
            ``is_local=False``. Accepted for v2 compatibility; anything but None is a
            ``ConfigError``, since there are no parameter servers here.
        use_etcd: v2: find the parameter servers through etcd. Accepted for v2
            compatibility and ignored.

    Example:
        ```python
        trainer = paddle.trainer.SGD(cost=cost, parameters=params,
                                     update_equation=paddle.optimizer.Momentum(momentum=0))
        trainer.train(paddle.batch(reader, 32), num_passes=2, event_handler=handler)
        ```
    """

    @api_boundary
    def __init__(
        self,
        cost: Any = None,
        parameters: Parameters | None = None,
        update_equation: Any = None,
        extra_layers: Any = None,
        is_local: bool = True,
        pserver_spec: Any = None,
        use_etcd: bool = True,
    ) -> None:
        if cost is None and parameters is None:  # Feb 2017's SGD(update_equation=...)
            early_sgd.defer(self, update_equation)
            return
        parameters = require_parameters(parameters, "paddle.trainer.SGD")
        if not is_local or pserver_spec is not None:
            raise ConfigError("parameter servers are not supported: use is_local=True.")
        self._costs = list(cost) if isinstance(cost, (list, tuple)) else [cost]
        warn_unless_costs(self._costs)
        self.__topology__ = Topology(self._costs, extra_layers)
        self._parameters = parameters
        self._own = own_parameters(self.__topology__, parameters)
        warn_if_costs_need(self._own, self._costs, self.__topology__, parameters)
        self._update_equation = update_equation
        self._evaluators = topology_evaluators(self.__topology__)
        self._specs = dict(self.__topology__.params)
        as_optax(update_equation, self._specs)  # checks the equation against the parameters
        aux_costs = extra_costs(self.__topology__, self._costs)
        model = Model(self._costs, self._evaluators, update_equation, self._specs, aux_costs)
        self._device = DeviceState(model, parameters, self._own)
        self._test_steps: dict[str, testing.Step] = {}  # compiled, per precision
        # for event.gm and parameters.get_grad
        self._forwards = LayerForwards(self.__topology__, self._costs, aux_costs)
        self._position = Position()  # where the next step trains (for checkpoints)
        self._claim_lock = threading.Lock()
        self._claimed_by: object = None  # the running train() call (see _claim)
        self._training_in: threading.Thread | None = None  # and its thread
        self._resume: Loaded | None = None  # where load_checkpoint left off
        self._compiles = CompileWatch()  # signatures compiled: a new one fires Compiling
        self._history: History | None = None  # the running train() call's, for test()
        self._reader: Reader | None = None  # the latest train() call's
        self._call_end = 0  # the pass the latest train() call ends before

    __getattr__ = early_sgd.missing  # only a trainer waiting for train()'s cost and parameters

    def get_topology_proto(self) -> Any:
        """The topology's ModelConfig with each parameter's update settings as the
        optimizer fills them in (v2: an ``l2_rate`` of 0 takes the global rate)."""
        specs = self._specs
        if isinstance(self._update_equation, Optimizer):
            specs = self._update_equation.with_global_defaults(specs)
        return self.__topology__.proto(specs)

    # training ---------------------------------------------------------------------
    @api_boundary
    def train(
        self,
        reader: Reader,
        num_passes: int = 1,
        event_handler: Callable[[Any], None] | list[Callable[[Any], None]] | None = None,
        feeding: Any = None,
        immutable_parameters: Iterable[str] | None = None,
        steps_per_dispatch: int = 1,
        on_nan: str = "raise",
        checkpoint_dir: str | None = None,
        checkpoint_every: int | None = None,
        checkpoints_kept: int = 3,
        reader_dict: Any = None,
        **early: Any,
    ) -> History:
        """Train for ``num_passes`` over ``reader`` (a reader of minibatches).

        Each batch is one jitted call that computes the cost, the gradients, the
        update and the evaluator statistics; nothing is read back from the device
        unless the event handler reads ``event.cost`` or ``event.metrics`` (and, every
        16 calls, one flag that says whether a step went non-finite).

        Args:
            reader: a no-argument callable returning an iterable of batches (lists of
                samples), e.g. ``paddle.batch(paddle.reader.shuffle(r, 500), 32)``; a
                batch may also be columns of whole arrays (see ``paddle.data_feeder``).
            num_passes: passes this call trains (v2: ``train(2); train(2)`` is 4); after
                ``load_checkpoint(d)``, a call with ``checkpoint_dir=d`` continues the
                checkpoint's run up to pass ``num_passes`` (see ``resume.pass_range``).
            event_handler: called with each ``paddle.event`` event; or a list of
                handlers, each called in order.
            feeding: ``{data layer name: field index}`` or a list of names.
            immutable_parameters: what to leave unchanged (not differentiated at all):
                parameter names (``"_D.w0"``), prefixes before a ``.`` (``"_D"``), layer
                names (``"D"``: every parameter the layer owns) or layer objects; an
                entry matching nothing is an error listing the close matches.
            steps_per_dispatch: run this many consecutive batches of one shape as one
                device call (a ``lax.scan``: the same updates in the same order, bit for
                bit). The first batch's ``BeginIteration`` fires before the call, every
                other event of the batches after it, in order, each ``EndIteration`` with
                its own cost and metrics; parameters read in those handlers are the
                values after the call's last batch.
            on_nan: ``"raise"`` (default): the first batch whose cost, gradients or
                update (new parameters, optimizer state) are not all finite raises
                [`NonFiniteError`][paddle_lite.errors.NonFiniteError] naming the pass, the batch and
                where it went non-finite, and the parameters and optimizer state keep their values
                from before it; ``"skip"``: such a batch's update is dropped and its
                ``EndIteration`` event has ``skipped == True``.
            checkpoint_dir: write checkpoints there (``ckpt-<steps>`` folders) at each
                pass end and every ``checkpoint_every`` batches, keeping the newest
                ``checkpoints_kept``.
            checkpoint_every: also checkpoint every this many batches (``None``: at
                pass ends only).
            checkpoints_kept: how many checkpoints stay on disk.
            reader_dict: ``feeding``'s name in the v2 of early 2017.
            **early: ``cost``, ``parameters``, ``batch_size``: Feb 2017's (``early_sgd``).

        Returns:
            A ``History``: per pass the mean cost, the metrics and the results of any
            ``trainer.test`` the handler ran (``history.cost``, ``history[-1].test``).
            v2 returned None; a program that ignores the result is unaffected.
        """
        early_sgd.complete(self, early)
        call = object()  # this call's claim on the trainer (see _claim)
        try:
            self._claim(call)
            check_batch_reader(reader, "train()")
            feeding = renamed(feeding, reader_dict, ("feeding", "reader_dict"), "train()")
            settings = Settings(
                feeder=feeder_for(self.__topology__, feeding),
                k=positive("steps_per_dispatch", steps_per_dispatch),
                on_nan=steps.OnNan.parse(on_nan),
                frozen=frozen_names(immutable_parameters, self._specs, self.__topology__.nodes),
                checkpoints=checkpointing(checkpoint_dir, checkpoint_every, checkpoints_kept),
                handler=combined_handler(event_handler),
            )
            return self._run(reader, pass_count(num_passes), checkpoint_dir, settings)
        finally:  # no Python call before the claim is let go: a Ctrl-C would skip it
            with self._claim_lock:
                if self._claimed_by is call:
                    self._claimed_by, self._training_in, self._history = None, None, None

    def _claim(self, call: object) -> None:
        """Mark this trainer as trained by ``call`` in this thread; a second ``train``
        (from a handler, or from another thread) is a ``TrainerBusyError``."""
        with self._claim_lock:
            check_not_training(self._training_in, "train()")
            self._claimed_by, self._training_in = call, threading.current_thread()

    def _run(
        self,
        reader: Reader,
        num_passes: int,
        folder: str | None,
        settings: Settings,
    ) -> History:
        """A claimed ``train`` call: hold the checkpoint folder and the signals, start the
        device state, run the passes, and let go of all of it whatever happens (a Ctrl-C
        waits while each is taken or let go, so none is kept by half)."""
        loaded, call = self._resume, None
        with self._device.guard.installed() as guard, contextlib.ExitStack() as held:
            try:
                with guard:
                    preemption = None
                    if settings.checkpoints is not None:
                        held.enter_context(self._folder_lock(settings.checkpoints.folder))
                        preemption = held.enter_context(Preemption(multi_process()).installed())
                    passes, resume = self._planned_passes(reader, num_passes, folder)
                    self._device.start(settings.frozen, settings.on_nan)
                emitter = Emitter(
                    settings.handler, self._evaluators, self._forwards, self._device,
                    self._compiles,
                )  # fmt: skip
                call = TrainCall(
                    self._device, self._costs, self._evaluators, emitter, settings,
                    self._position, self.save_checkpoint, preemption,
                )  # fmt: skip
                self._history = call.history
                return call.run(reader, passes, resume)
            finally:
                with guard:
                    self._device.stop()
                    held.close()
                    if loaded is not None and (call is None or not call.progressed):
                        self._resume = loaded  # nothing trained: the next call resumes it

    def _folder_lock(self, folder: str) -> contextlib.AbstractContextManager[object]:
        """The lock of ``folder`` (``folder_lock``), held by the process that writes."""
        if not is_writer():
            return contextlib.nullcontext()
        return folder_lock.holding(folder, self, "train(checkpoint_dir=...)")

    def _planned_passes(
        self, reader: Reader, num_passes: int, folder: str | None
    ) -> tuple[range, Resume]:
        """The passes a train() call runs (``resume.pass_range``) and where the first
        resumes; a checkpoint's random states and reader state are restored."""
        self._reader = reader
        loaded, self._resume = self._resume, None
        if loaded is not None:
            loaded.restore(reader)
        passes = pass_range(loaded, num_passes, folder)
        self._call_end = passes.stop
        return passes, Resume() if loaded is None else loaded.resume()

    # checkpoints --------------------------------------------------------------------
    @api_boundary
    def save_checkpoint(self, dirname: str) -> None:
        """Write everything a resume needs into the folder ``dirname`` (atomically).

        The folder holds the parameters as a v2 tar (``parameters.tar``, readable alone
        by ``Parameters.from_tar``), the optimizer state of every frozen set (momenta,
        Adam moments, ModelAverage buffers, schedule counters), the pass and batch to
        continue from with the samples the pass trained before it, the random states
        readers shuffle with and the state of the reader itself (``state()`` /
        ``restore()``, e.g. a seeded shuffle's pass count; see *Reader state* in the
        ``paddle.reader`` reference), the PRNG key, a fingerprint of the topology and
        the library version. All of it is taken at one step: call it in any event
        handler (it records the batch that trains next), between ``train`` calls, or
        from another thread while ``train`` runs. The folder it is written into is
        locked while it is written (``CheckpointLockedError`` when another trainer
        writes there).
        """
        with self._device.guard.lock:  # the state, the position and the values of one step
            where = dataclasses.replace(self._position)
            state = self._device.snapshot()
            values = merged_values(self._parameters, self._own)
            reader = self._reader
        shapes = {n: list(s.shape) for n, s in self._specs.items()}
        arrays, meta = checkpoint_files(state, where, reader, self.__topology__, shapes)
        meta["call_end"] = self._call_end
        checkpoints.save(dirname, values, arrays, meta, owner=self)

    @api_boundary
    def load_checkpoint(self, dirname: str, missing_ok: bool = False) -> bool:
        """Restore a checkpoint: ``dirname`` itself, or the newest one inside it.

        The parameters, optimizer state, step count and PRNG key are restored, and the
        next ``train`` call continues from the saved pass and batch (skipping the
        batches already trained, with the readers' random states as they were, and
        checking that they hold the samples the checkpoint trained), so the run ends as
        an uninterrupted one would. Returns False when ``missing_ok`` and no checkpoint
        was ever completed there. Everything is checked before anything changes: a
        checkpoint of another topology is an error that names the parameters that
        differ, one of another optimizer a ``CheckpointError`` saying so, and a damaged
        one (a file whose size or sha256 differs from the manifest) a ``CheckpointError``
        naming the file; a refused checkpoint leaves the trainer and its parameters as
        they were.
        """
        if self._device.training:
            raise checkpoints.CheckpointError(
                "load_checkpoint cannot run while this trainer trains (inside train() or from "
                "another thread during it)."
            )
        path = checkpoints.latest(dirname)
        if path is None:
            if missing_ok:
                return False
            raise checkpoints.CheckpointError(f"no checkpoint in {dirname!r}.")
        params, arrays, meta = checkpoints.load_for(path, self._specs, self.__topology__)
        with checkpoints.restoring(path):
            state = snapshot.from_files(arrays, meta)
            self._device.check_fits(state)
        loaded = Loaded.from_meta(meta, dirname, path)
        with self._device.guard.installed() as guard, guard:  # whole, or not at all
            for held in (self._parameters, self._own):
                held.update({n: params.get(n) for n in self._specs if n in held})
            self._device.restore(state)
            self._resume, self._position = loaded, dataclasses.replace(loaded.position)
        return True

    # evaluation -------------------------------------------------------------------
    @api_boundary
    def test(
        self, reader: Reader, feeding: Any = None, reader_dict: Any = None
    ) -> events.TestResult:
        """Cost (total / samples) and metrics of the topology over ``reader``, in test mode.

        ``reader_dict`` is ``feeding``'s name in the v2 of early 2017.

        As v2's, it tests the current parameters, not their model average (v2 applied
        the average only to save them). One jitted call per batch sums the cost and the
        evaluator statistics on the device; they are read back once, at the end.
        """
        step = testing.step_for(self._test_steps, self._costs, self._evaluators)
        params = self._device.eval_params(averaged=False)  # copies: a step cannot delete them
        feeding = renamed(feeding, reader_dict, ("feeding", "reader_dict"), "test()")
        feeder = feeder_for(self.__topology__, feeding)
        result = testing.run(reader, feeder, step, self._device.zeros, self._evaluators, params)
        if self._history is not None and self._training_in is threading.current_thread():
            self._history.tested(result)
        return result

    @api_boundary
    def save_parameter_to_tar(self, f: Any) -> None:
        """Write the parameters (model-averaged when configured) as a v2 tar."""
        values = self._device.eval_params(averaged=True, on_mesh=False)
        saved = Parameters()
        for spec in self._parameters.specs():
            value = values.get(spec.name)
            saved.append_spec(
                spec, self._parameters.get(spec.name) if value is None else np.asarray(value)
            )
        saved.to_tar(f)
