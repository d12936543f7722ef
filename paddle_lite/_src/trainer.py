"""Training (v2 ``paddle.trainer.SGD``): a loop around one jitted step per batch.

The trainer keeps the parameters on the device while it trains; the user's
``Parameters`` object is refreshed from the device whenever it is read (inside an
event handler too) and when ``train`` returns. Values ``set`` on it are picked up
at the next step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jax
import numpy as np

from paddle_lite._src import config, events, steps
from paddle_lite._src.errors import ConfigError, ParameterError
from paddle_lite._src.evaluators import auto_evaluators
from paddle_lite._src.feeder import DataFeeder
from paddle_lite._src.graph import current_scope
from paddle_lite._src.optimizers import Optimizer, as_optax
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.prefetch import device_batches
from paddle_lite._src.programs import TrainProgram
from paddle_lite._src.topology import Topology


def frozen_names(immutable: Iterable[str] | None, names: Iterable[str]) -> frozenset[str]:
    """Parameter names matched by ``immutable``: a name, or a prefix before a ``.``.

    ``{"D"}`` freezes ``D``, ``D.w0`` and ``D.wbias``; an entry matching nothing is an error.
    """
    if immutable is None:
        return frozenset()
    if isinstance(immutable, str):
        immutable = [immutable]
    names = list(names)
    frozen = set()
    for entry in immutable:
        hits = {n for n in names if n == entry or n.startswith(entry + ".")}
        if not hits:
            raise ParameterError(
                f"immutable_parameters entry {entry!r} matches no parameter of this topology; "
                f"parameters: {names}."
            )
        frozen |= hits
    return frozenset(frozen)


def topology_evaluators(topology: Topology) -> list[Any]:
    """The automatic evaluators of its costs plus the declared ones it can compute."""
    found = [ev for layer in topology.nodes for ev in auto_evaluators(layer)]
    present = {id(n) for n in topology.nodes}
    for ev in current_scope().evaluators:
        if all(id(layer) in present for layer in ev.inputs) and ev not in found:
            found.append(ev)
    return found


def pruning_masks(specs: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """0/1 masks keeping, per pruned parameter, its largest ``(1 - ratio) * size``
    values by magnitude (v2's static pruning hook, computed when training starts)."""
    masks = {}
    for name, spec in specs.items():
        if spec.sparsity_ratio is None or spec.is_static:
            continue
        flat = np.abs(np.asarray(values[name])).ravel()
        keep = int(flat.size * (1.0 - spec.sparsity_ratio))
        mask = np.zeros(flat.size, np.float32)
        mask[np.argsort(-flat, kind="stable")[:keep]] = 1.0
        masks[name] = mask.reshape(spec.shape)
    return masks


class _Fetched:
    """Outputs of one dispatch, copied to the host once, when an event handler reads them."""

    def __init__(self, value: Any) -> None:
        self._value, self._host = value, None

    def get(self) -> Any:
        if self._host is None:
            self._host = jax.device_get(self._value)
        return self._host


def _results(evaluators: list[Any], stats: Any) -> dict[str, float]:
    """Metrics of ``evaluators`` from their (host or device) summed statistics."""
    out: dict[str, float] = {}
    for ev, s in zip(evaluators, stats, strict=True):
        out.update(ev.result(jax.tree_util.tree_map(np.asarray, s)))
    return out


class SGD:
    """Trains ``cost`` (a cost layer or a list, summed) with ``update_equation``.

    Args:
        cost: a cost layer or a list of them.
        parameters: a ``Parameters`` holding every parameter of the topology.
        update_equation: a ``paddle.optimizer`` optimizer or an optax transformation.
        extra_layers: layers kept in the topology though no cost depends on them.
        is_local: only local training is supported.

    Example::

        trainer = paddle.trainer.SGD(cost=cost, parameters=params,
                                     update_equation=paddle.optimizer.Momentum(momentum=0))
        trainer.train(paddle.batch(reader, 32), num_passes=2, event_handler=handler)
    """

    def __init__(
        self,
        cost: Any,
        parameters: Parameters,
        update_equation: Any,
        extra_layers: Any = None,
        is_local: bool = True,
        pserver_spec: Any = None,
        use_etcd: bool = True,
    ) -> None:
        if not isinstance(parameters, Parameters):
            raise TypeError("parameters should be parameters")
        if not is_local or pserver_spec is not None:
            raise ConfigError("parameter servers are not supported: use is_local=True.")
        self._costs = list(cost) if isinstance(cost, (list, tuple)) else [cost]
        self.__topology__ = Topology(self._costs, extra_layers)
        missing = [n for n in self.__topology__.params if n not in parameters]
        if missing:
            raise ParameterError(
                f"parameters lacks {missing}, needed by this topology; create them with "
                "paddle.parameters.create(cost)."
            )
        self._parameters = parameters
        self._update_equation = update_equation
        self._evaluators = topology_evaluators(self.__topology__)
        self._specs = dict(self.__topology__.params)
        as_optax(update_equation, self._specs)  # checks the equation against the parameters
        self._programs: dict[tuple[frozenset[str], str], TrainProgram] = {}
        self._opt_states: dict[frozenset[str], Any] = {}
        self._zeros = steps.make_zeros(self._costs, self._evaluators)
        self._test_steps: dict[str, Any] = {}
        self._state: steps.TrainState | None = None  # the device state while training
        self._program: TrainProgram | None = None
        self._frozen: frozenset[str] = frozenset()
        self._masks: dict[str, Any] | None = None  # pruning hooks, fixed at first load
        self._version = -1
        self._step_count: Any = np.int32(0)  # steps run, carried across train() calls
        self._pass_id: Any = np.int32(0)  # the last pass trained
        # On the host: each train() puts a fresh copy in the (donated) device state.
        self._key = np.asarray(jax.random.PRNGKey(config.default_seed()))

    def get_topology_proto(self) -> Any:
        """The topology's ModelConfig with each parameter's update settings as the
        optimizer fills them in (v2: an ``l2_rate`` of 0 takes the global rate)."""
        specs = self._specs
        if isinstance(self._update_equation, Optimizer):
            specs = self._update_equation.with_global_defaults(specs)
        return self.__topology__.proto(specs)

    # device state -----------------------------------------------------------------
    def _host_values(self) -> dict[str, Any]:
        """The topology's parameters as the user's ``Parameters`` holds them, on the device."""
        host = self._parameters
        if host._pull != self._pull:  # another trainer may hold newer values
            host._refresh()
        values = {n: np.array(host._values[n]) for n in self._specs}
        if self._masks is None:
            self._masks = pruning_masks(self._specs, values)
        for name, mask in self._masks.items():
            values[name] = values[name] * mask
        return jax.device_put(values)

    def _start(self, frozen: frozenset[str]) -> None:
        """Put the parameters and the optimizer state of ``frozen`` on the device."""
        precision = config.get("precision", "float32")
        key = (frozen, precision)
        if key not in self._programs:
            self._programs[key] = TrainProgram(
                self._costs, self._evaluators, self._update_equation, self._specs, frozen, precision
            )
        self._program, self._frozen = self._programs[key], frozen
        values = self._host_values()
        self._version = self._parameters._version
        trainable = {n: values[n] for n in self._program.names}
        if frozen not in self._opt_states:
            self._opt_states[frozen] = self._program.init(trainable)
        self._state = steps.TrainState(
            trainable=trainable,
            fixed={n: v for n, v in values.items() if n not in trainable},
            opt_state=self._opt_states[frozen],
            totals=None,
            step=jax.device_put(np.int32(self._step_count)),
            pass_id=jax.device_put(np.int32(0)),
            key=jax.device_put(self._key),
            masks=jax.device_put({n: m for n, m in self._masks.items() if n in trainable}),
        )

    def _reload(self) -> None:
        """Take parameter values ``set`` on the host since the last step."""
        values = self._host_values()
        self._version = self._parameters._version
        state = self._state
        self._state = state._replace(
            trainable={n: values[n] for n in state.trainable},
            fixed={n: values[n] for n in state.fixed},
        )

    def _stop(self) -> None:
        """Keep the optimizer state and step count; let go of the device parameters."""
        state = self._state
        if state is not None:
            self._opt_states[self._frozen] = state.opt_state
            self._step_count = state.step
            self._pass_id = state.pass_id
        self._state = None

    def _device_params(self) -> dict[str, Any] | None:
        state = self._state
        return None if state is None else {**state.fixed, **state.trainable}

    def _pull(self) -> None:
        params = self._device_params()
        if params is not None:
            host = jax.device_get(params)
            for name, value in host.items():
                # A copy: the device buffer is donated to the next step.
                self._parameters._values[name] = np.array(value)

    def _begin_pass(self, pass_id: int, feeds: Any, stacked: bool) -> None:
        """Zero the pass totals (shaped from the first batch) and set the pass id."""
        if stacked:
            feeds = jax.tree_util.tree_map(
                lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), feeds
            )
        self._state = self._state._replace(
            totals=self._zeros(self._device_params(), feeds),
            pass_id=jax.device_put(np.int32(pass_id)),
        )

    def _dispatch(self, chunk: Any) -> Any:
        """Run the steps of ``chunk`` (one device call); returns ``(costs, stats)``."""
        if self._parameters._version != self._version:
            self._reload()
        run = self._program.steps if chunk.stacked else self._program.step
        self._state, out = run(self._state, chunk.feeds)
        return out

    # training ---------------------------------------------------------------------
    def train(
        self,
        reader: Callable[[], Iterable[Any]],
        num_passes: int = 1,
        event_handler: Callable[[Any], None] | None = None,
        feeding: Any = None,
        immutable_parameters: Iterable[str] | None = None,
        steps_per_dispatch: int = 1,
    ) -> None:
        """Train for ``num_passes`` over ``reader`` (a reader of minibatches).

        Each batch is one jitted call that computes the cost, the gradients, the
        update and the evaluator statistics; nothing is read back from the device
        unless the event handler reads ``event.cost`` or ``event.metrics``.

        Args:
            reader: a no-argument callable returning an iterable of batches (lists of
                samples), e.g. ``paddle.batch(paddle.reader.shuffle(r, 500), 32)``; a
                batch may also be columns of whole arrays (see ``paddle.data_feeder``).
            num_passes: passes over the data.
            event_handler: called with each ``paddle.event`` event.
            feeding: ``{data layer name: field index}`` or a list of names.
            immutable_parameters: parameter names or name prefixes left unchanged
                (not differentiated at all).
            steps_per_dispatch: run this many consecutive batches of one shape as one
                device call (a ``lax.scan``: the same updates in the same order). Their
                ``BeginIteration``, ``EndForwardBackward`` and ``EndIteration`` events
                then fire after the call, in order, each with its own cost and metrics.
        """
        if not callable(reader):
            raise TypeError(
                f"train() reader must be callable (a reader creator's result); received {reader!r}."
            )
        handler = event_handler or (lambda event: None)
        if not callable(handler):
            raise TypeError(f"event_handler must be callable; received {event_handler!r}.")
        k = _steps_per_dispatch(steps_per_dispatch)
        frozen = frozen_names(immutable_parameters, self._specs)
        feeder = DataFeeder(self.__topology__.data_type(), feeding)
        self._start(frozen)
        self._parameters._pull = self._pull
        try:
            handler(events.BeginTraining())
            for pass_id in range(num_passes):
                self._train_pass(reader, feeder, handler, pass_id, k)
            handler(events.EndTraining())
        finally:
            self._pull()
            self._stop()
            self._parameters._pull = None
            self._parameters._changed()

    def _train_pass(self, reader, feeder, handler, pass_id, k) -> None:  # noqa: ANN001
        handler(events.BeginPass(pass_id))
        batch_id = 0
        for chunk in device_batches(reader(), feeder.convert, k):
            if batch_id == 0:
                self._begin_pass(pass_id, chunk.feeds, chunk.stacked)
            if not chunk.stacked:
                handler(events.BeginIteration(pass_id, batch_id))
            out = _Fetched(self._dispatch(chunk))
            for i, size in enumerate(chunk.sizes):
                pick = _pick(out, i if chunk.stacked else None)
                if chunk.stacked:
                    handler(events.BeginIteration(pass_id, batch_id))
                handler(events.EndForwardBackward(pass_id, batch_id))
                handler(
                    events.EndIteration(
                        pass_id,
                        batch_id,
                        cost=lambda p=pick, n=size: float(p()[0]) / n,
                        evaluator=lambda p=pick: _results(self._evaluators, p()[1]),
                    )
                )
                batch_id += 1
        if self._program.lazy_decay:
            self._state = self._program.catch_up(self._state)
        totals = None if batch_id == 0 else self._state.totals[1]

        def metrics() -> dict[str, float]:
            return {} if totals is None else _results(self._evaluators, totals)

        handler(events.EndPass(pass_id, evaluator=metrics))

    # evaluation -------------------------------------------------------------------
    def _eval_params(self) -> dict[str, Any]:
        """Current values to test and save with: sparse rows' missed decay applied and
        model-averaged when the optimizer averages (the training state is untouched)."""
        state = self._state
        params = self._device_params() or self._host_values()
        if state is not None:
            return self._program.eval_view(state.opt_state, params, state.pass_id)
        if not self._opt_states:
            return params
        frozen, opt_state = next(iter(self._opt_states.items()))
        program = next(p for (f, _), p in self._programs.items() if f == frozen)
        return program.eval_view(opt_state, params, jax.device_put(np.int32(self._pass_id)))

    def test(self, reader: Callable[[], Iterable[Any]], feeding: Any = None) -> events.TestResult:
        """Cost (total / samples) and metrics of the topology over ``reader``, in test mode.

        One jitted call per batch sums the cost and the evaluator statistics on the
        device; they are read back once, at the end.
        """
        precision = config.get("precision", "float32")
        if precision not in self._test_steps:
            self._test_steps[precision] = steps.make_test_step(
                self._costs, self._evaluators, precision
            )
        step = self._test_steps[precision]
        params = self._eval_params()
        feeder = DataFeeder(self.__topology__.data_type(), feeding)
        totals, count = None, 0
        for chunk in device_batches(reader(), feeder.convert):
            if totals is None:
                totals = self._zeros(params, chunk.feeds)
            totals = step(params, chunk.feeds, totals)
            count += chunk.sizes[0]
        if totals is None:
            return events.TestResult(evaluator={}, cost=0.0)
        cost, stats = jax.device_get(totals)
        return events.TestResult(
            evaluator=_results(self._evaluators, stats), cost=float(cost) / count
        )

    def save_parameter_to_tar(self, f: Any) -> None:
        """Write the parameters (model-averaged when configured) as a v2 tar."""
        values = jax.device_get(self._eval_params())
        snapshot = Parameters()
        for spec in self._parameters.specs():
            value = values.get(spec.name)
            snapshot.append_spec(
                spec, self._parameters.get(spec.name) if value is None else np.asarray(value)
            )
        snapshot.to_tar(f)


def _pick(out: _Fetched, i: int | None) -> Callable[[], Any]:
    """The ``(cost_sum, stats)`` of batch ``i`` of a stacked dispatch (all when None)."""
    if i is None:
        return out.get
    return lambda: jax.tree_util.tree_map(lambda x: x[i], out.get())


def _steps_per_dispatch(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"train(): steps_per_dispatch must be an int >= 1; received {k!r}.")
    return k
