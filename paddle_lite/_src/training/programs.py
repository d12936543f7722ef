"""The compiled programs of a trainer for one (frozen set, precision).

A ``TrainProgram`` owns the optax transformation over the trainable
parameters and every jitted function a training run calls: the optimizer state's
init, the run of ``K >= 1`` batches per call (``steps.make_train_run``), the
end-of-pass catch-up of lazily decayed sparse rows, and the evaluation view of the
parameters (that catch-up and the model average, without touching the state).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias

import jax
import jax.numpy as jnp
import optax

from paddle_lite._src import config
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.graph import Layer
from paddle_lite._src.lowering import xla_options
from paddle_lite._src.optim.optimizers import Optimizer, as_optax
from paddle_lite._src.optim.regularizers import trainable_names
from paddle_lite._src.specs import ParamSpec
from paddle_lite._src.training import steps
from paddle_lite._src.training.chunks import Feeds
from paddle_lite._src.training.packing import Packing

# What a trainer's ``update_equation`` may be (``as_optax`` turns either into optax).
UpdateEquation: TypeAlias = Optimizer | optax.GradientTransformation

# The compiled run of ``K >= 1`` steps over a state's packed leaves (``run_for``).
Run = Callable[[list[Any], tuple[Feeds, ...]], tuple[list[Any], steps.Outputs]]


class Model(NamedTuple):
    """What a trainer trains, as its programs are built from it."""

    costs: Sequence[Layer]  # the cost layers, summed
    evaluators: Sequence[Evaluator]  # computed beside the cost
    equation: UpdateEquation  # the trainer's update equation
    specs: Mapping[str, ParamSpec]  # every parameter of the topology
    aux_costs: Sequence[Layer] = ()  # costs trained for their gradient only (see ``steps``)


def _lazy_decay(equation: UpdateEquation, specs: Mapping[str, ParamSpec]) -> bool:
    """Whether some sparse-row parameter decays lazily (and so must catch up)."""
    if not isinstance(equation, Optimizer):
        return False
    hypers = [equation.resolve(spec) for spec in specs.values() if not spec.is_static]
    return any(h.sparse and (h.l1 or h.l2) for h in hypers)


class Rejitted:
    """``jax.jit(fun, **kwargs)``, jitted afresh after a call that an interrupt (Ctrl-C,
    or the exit of a SIGTERM) cut short: JAX would compile a function whose compile was
    cut short again at every later call. A call cut short after its compile costs one
    compile more."""

    def __init__(self, fun: Callable[..., Any], **kwargs: Any) -> None:
        self.fun, self.kwargs = fun, kwargs
        self.jitted = jax.jit(fun, **kwargs)

    def __call__(self, *args: Any) -> Any:
        try:
            return self.jitted(*args)
        except (KeyboardInterrupt, SystemExit):
            self.jitted = jax.jit(self.fun, **self.kwargs)
            raise


class TrainProgram:
    """Jitted functions of one (frozen set, precision); see the module docstring.

    Args:
        model: what the trainer trains.
        frozen: names left unchanged.
        precision: a ``paddle.init(precision=...)`` value.
        on_nan: what a non-finite step does (a ``steps.OnNan``).
    """

    def __init__(
        self, model: Model, frozen: frozenset[str], precision: str, on_nan: steps.OnNan
    ) -> None:
        self.names = trainable_names(model.specs, frozen)
        self.specs = {n: model.specs[n] for n in self.names}
        self.equation = model.equation
        self.tx = as_optax(model.equation, self.specs)
        self.init = Rejitted(self.tx.init)
        self._run = steps.make_train_run(
            model.costs, model.evaluators, self.tx, precision, on_nan, model.aux_costs
        )
        self.runs: dict[Packing, Run] = {}  # jitted runs over the leaves each packs
        self.dropped = 0  # runs forgotten: their signatures compile again
        self.lazy_decay = _lazy_decay(model.equation, self.specs)
        self.catch_up = Rejitted(self._catch_up, donate_argnums=(0,))
        self.eval_view = Rejitted(self._eval_view, static_argnums=(3,))

    def run_for(self, packing: Packing) -> Run:
        """The jitted ``run(leaves, batches) -> (leaves, outs)`` of ``K >= 1`` steps
        (``steps.make_train_run``) over the leaves of a ``TrainState`` as ``packing``
        carries them (``packing.Packing``), donated: a short list of arrays is the
        cheapest argument for JAX's dispatch."""
        run = self.runs.get(packing)
        if run is None:
            run = xla_options.jit(steps.over_packed(self._run, packing), donate_argnums=(0,))
            self.runs[packing] = run
        return run

    def forget(self, packing: Packing) -> None:
        """Drop the run over ``packing``: an interrupt cut its compile short, and JAX
        would compile that jitted function again at every later call."""
        self.runs.pop(packing, None)
        self.dropped += 1

    def changes_view(self, averaged: bool) -> bool:
        """Whether ``eval_view`` differs from the parameters as they are."""
        if not isinstance(self.equation, Optimizer):
            return False
        return self.lazy_decay or (averaged and self.equation.averages)

    def _catch_up(self, state: steps.TrainState) -> steps.TrainState:
        trainable, opt_state = self.equation.catch_up(
            state.opt_state, state.trainable, self.specs, state.pass_id
        )
        return state._replace(trainable=trainable, opt_state=opt_state)

    def _eval_view(
        self, opt_state: Any, params: dict[str, Any], pass_id: Any, averaged: bool
    ) -> dict[str, Any]:
        if not isinstance(self.equation, Optimizer):
            return params
        trainable = {n: params[n] for n in self.names}
        if self.lazy_decay:
            trainable, opt_state = self.equation.catch_up(opt_state, trainable, self.specs, pass_id)
        if averaged:
            trainable = self.equation.average_params(opt_state, trainable)
        return {**params, **trainable}


class Programs(dict[tuple[frozenset[str], str, steps.OnNan], TrainProgram]):
    """A trainer's ``TrainProgram`` s, built when first asked for, keyed by
    ``(frozen set, precision, on_nan)``."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model

    def get_for(self, frozen: frozenset[str], on_nan: steps.OnNan) -> TrainProgram:
        """The program of ``frozen`` and ``on_nan`` at the configured precision."""
        key = (frozen, config.get("precision", "float32"), on_nan)
        if key not in self:
            self[key] = TrainProgram(self.model, frozen, key[1], on_nan)
        return self[key]

    def optimizer_template(self, frozen: frozenset[str]) -> Any:
        """The shapes of the optimizer state of ``frozen`` (``jax.eval_shape``: nothing
        is computed or compiled)."""
        equation, specs = self.model.equation, self.model.specs
        names = trainable_names(specs, frozen)
        shapes = {n: jax.ShapeDtypeStruct(specs[n].shape, jnp.float32) for n in names}
        return jax.eval_shape(as_optax(equation, {n: specs[n] for n in names}).init, shapes)

    def of_frozen(self, frozen: frozenset[str]) -> TrainProgram:
        """A program built for ``frozen`` (any precision and policy: they share the
        optimizer)."""
        return next(p for (f, *_), p in self.items() if f == frozen)
