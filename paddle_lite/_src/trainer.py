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
import jax.numpy as jnp
import numpy as np

from paddle_lite._src import compile as compile_mod
from paddle_lite._src import config, events
from paddle_lite._src.errors import ConfigError, ParameterError
from paddle_lite._src.evaluators import auto_evaluators
from paddle_lite._src.graph import Layer, current_scope
from paddle_lite._src.input_checks import checked, feeder_for
from paddle_lite._src.optimizer_rules import Momentum
from paddle_lite._src.optimizers import Optimizer, as_optax
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.prefetch import prefetch
from paddle_lite._src.regularizers import trainable_names
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
        masks[name] = jax.device_put(mask.reshape(spec.shape))
    return masks


@jax.jit
def _add_stats(total: Any, stats: Any) -> Any:
    """Running sums of evaluator statistics: one dispatch per batch, not one per array."""
    return jax.tree_util.tree_map(jnp.add, total, stats)


class _Metrics:
    """Evaluator statistics summed over batches; results computed on demand."""

    def __init__(self, evaluators: list[Any]) -> None:
        self.evaluators = evaluators
        self.total: list[Any] | None = None

    def add(self, stats: list[Any]) -> None:
        self.total = stats if self.total is None else _add_stats(self.total, stats)

    def results(self, stats: list[Any] | None = None) -> dict[str, float]:
        stats = self.total if stats is None else stats
        out: dict[str, float] = {}
        if stats is None:
            return out
        for ev, s in zip(self.evaluators, stats, strict=True):
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
        as_optax(update_equation, {})  # type check only
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
        self._steps: dict[frozenset[str], tuple[Any, Any, tuple[str, ...]]] = {}
        self._opt_states: dict[frozenset[str], Any] = {}
        self._test_step = None
        self._device: dict[str, Any] | None = None  # parameters while training
        self._masks: dict[str, Any] | None = None  # pruning hooks, fixed at first load
        self._version = -1
        self._step_id = 0
        self._key = jax.random.PRNGKey(config.default_seed())

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
        return {n: jax.device_put(host._values[n]) for n in self._specs}

    def _load(self) -> None:
        self._device = self._host_values()
        self._version = self._parameters._version
        if self._masks is None:
            self._masks = pruning_masks(self._specs, self._device)
        for name, mask in self._masks.items():
            self._device[name] = self._device[name] * mask

    def _pull(self) -> None:
        if self._device is not None:
            for name, value in self._device.items():
                # A copy: the device buffer is donated to the next step.
                self._parameters._values[name] = np.array(value)

    def _compiled(self, frozen: frozenset[str]):  # noqa: ANN202
        if frozen not in self._steps:
            names = trainable_names(self._specs, frozen)
            tx = as_optax(self._update_equation, {n: self._specs[n] for n in names})
            step = compile_mod.make_train_step(self._costs, self._evaluators, tx)
            self._steps[frozen] = (tx, step, names)
        return self._steps[frozen]

    def _run_step(self, frozen: frozenset[str], feeds: Any, batch_size: int, pass_id: int):  # noqa: ANN202
        if self._parameters._version != self._version:
            self._load()
        tx, step, names = self._compiled(frozen)
        trainable = {n: self._device[n] for n in names}
        fixed = {n: v for n, v in self._device.items() if n not in trainable}
        if frozen not in self._opt_states:
            # Distinct buffers: the step donates the state, and an init may share arrays.
            self._opt_states[frozen] = jax.tree_util.tree_map(jnp.array, tx.init(trainable))
        masks = {n: m for n, m in self._masks.items() if n in trainable}
        trainable, opt_state, fixed, total, stats = step(
            trainable,
            self._opt_states[frozen],
            fixed,
            feeds,
            self._key,
            self._step_id,
            batch_size,
            pass_id,
            masks,
        )
        self._opt_states[frozen] = opt_state
        self._device = {**fixed, **trainable}
        self._step_id += 1
        return total, stats

    # training ---------------------------------------------------------------------
    def train(
        self,
        reader: Callable[[], Iterable[Any]],
        num_passes: int = 1,
        event_handler: Callable[[Any], None] | None = None,
        feeding: Any = None,
        immutable_parameters: Iterable[str] | None = None,
    ) -> None:
        """Train for ``num_passes`` over ``reader`` (a reader of minibatches).

        Args:
            reader: a no-argument callable returning an iterable of batches (lists of
                samples), e.g. ``paddle.batch(paddle.reader.shuffle(r, 500), 32)``.
            num_passes: passes over the data.
            event_handler: called with each ``paddle.event`` event.
            feeding: ``{data layer name: field index}`` or a list of names.
            immutable_parameters: parameter names or name prefixes left unchanged
                (not differentiated at all).
        """
        if not callable(reader):
            raise TypeError(
                f"train() reader must be callable (a reader creator's result); received {reader!r}."
            )
        handler = event_handler or (lambda event: None)
        if not callable(handler):
            raise TypeError(f"event_handler must be callable; received {event_handler!r}.")
        frozen = frozen_names(immutable_parameters, self._specs)
        feeder = feeder_for(self.__topology__, feeding)
        self._load()
        self._parameters._pull = self._pull
        try:
            handler(events.BeginTraining())
            for pass_id in range(num_passes):
                self._train_pass(reader, feeder, handler, frozen, pass_id)
            handler(events.EndTraining())
        finally:
            self._pull()
            self._parameters._pull = None
            self._parameters._changed()
            self._device = None

    def _train_pass(self, reader, feeder, handler, frozen, pass_id) -> None:  # noqa: ANN001
        handler(events.BeginPass(pass_id))
        metrics = _Metrics(self._evaluators)
        batches, convert = checked(reader, feeder.convert, f"train() pass {pass_id}")
        for batch_id, (feeds, size) in enumerate(prefetch(batches, convert)):
            handler(events.BeginIteration(pass_id, batch_id))
            total, stats = self._run_step(frozen, feeds, size, pass_id)
            handler(events.EndForwardBackward(pass_id, batch_id))
            metrics.add(stats)
            handler(
                events.EndIteration(
                    pass_id,
                    batch_id,
                    cost=lambda t=total, n=size: float(t) / n,
                    evaluator=lambda s=stats, m=metrics: m.results(s),
                )
            )
        handler(events.EndPass(pass_id, evaluator=metrics.results))

    # evaluation -------------------------------------------------------------------
    def _eval_params(self) -> dict[str, Any]:
        """Current values (model-averaged when the optimizer averages)."""
        params = self._host_values() if self._device is None else dict(self._device)
        if isinstance(self._update_equation, Optimizer) and self._opt_states:
            frozen, state = next(iter(self._opt_states.items()))
            trainable = {n: params[n] for n in self._steps[frozen][2]}
            params.update(self._update_equation.average_params(state, trainable))
        return params

    def test(self, reader: Callable[[], Iterable[Any]], feeding: Any = None) -> events.TestResult:
        """Cost (total / samples) and metrics of the topology over ``reader``, in test mode."""
        if self._test_step is None:
            self._test_step = compile_mod.make_test_step(self._costs, self._evaluators)
        params = self._eval_params()
        feeder = feeder_for(self.__topology__, feeding)
        metrics = _Metrics(self._evaluators)
        total, count = 0.0, 0
        batches, convert = checked(reader, feeder.convert, "test()", on_empty="raise")
        for feeds, size in prefetch(batches, convert):
            cost, stats = self._test_step(params, feeds)
            total += cost
            count += size
            metrics.add(stats)
        cost = float(total) / count if count else 0.0
        return events.TestResult(evaluator=metrics.results(), cost=cost)

    def save_parameter_to_tar(self, f: Any) -> None:
        """Write the parameters (model-averaged when configured) as a v2 tar."""
        values = self._eval_params()
        snapshot = Parameters()
        for spec in self._parameters.specs():
            value = values.get(spec.name)
            snapshot.append_spec(
                spec, self._parameters.get(spec.name) if value is None else np.asarray(value)
            )
        snapshot.to_tar(f)


def train_fn(
    topology: Any,
    parameters: Parameters,
    reader: Callable[[], Iterable[Any]],
    update_equation: Any = None,
    event_handler: Any = None,
    feeding: Any = None,
    num_passes: int = 1,
    immutable_parameters: Any = None,
) -> None:
    """The design doc's ``paddle.train``: train ``topology`` (cost layers) in place.

    A trainer is kept per (topology outputs, update equation) on the parameters, so a
    second call compiles nothing new. With no ``update_equation``, plain SGD
    (``Momentum(momentum=0)``, learning rate 1e-3) is used.
    """
    trainer = _cached_trainer(topology, parameters, update_equation)
    trainer.train(
        reader,
        num_passes=num_passes,
        event_handler=event_handler,
        feeding=feeding,
        immutable_parameters=immutable_parameters,
    )


def test_fn(
    topology: Any, parameters: Parameters, reader: Callable[[], Iterable[Any]], feeding: Any = None
) -> events.TestResult:
    """The design doc's ``paddle.test``: cost and metrics of ``topology`` over ``reader``."""
    return _cached_trainer(topology, parameters, None).test(reader, feeding=feeding)


test_fn.__test__ = False  # not a pytest test


def _outputs_of(topology: Any) -> list[Layer]:
    if isinstance(topology, Topology):
        return list(topology.layers)
    return list(topology) if isinstance(topology, (list, tuple)) else [topology]


def _cached_trainer(topology: Any, parameters: Parameters, update_equation: Any) -> SGD:
    if not isinstance(parameters, Parameters):
        raise TypeError("parameters should be parameters")
    outputs = _outputs_of(topology)
    cache: Mapping[Any, SGD] = parameters.__dict__.setdefault("_trainers", {})
    key = (tuple(id(o) for o in outputs), id(update_equation))
    if key not in cache:
        equation = Momentum(momentum=0.0) if update_equation is None else update_equation
        cache[key] = SGD(outputs, parameters, equation)  # type: ignore[index]
    return cache[key]
