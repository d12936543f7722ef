"""The compiled programs of a trainer for one (frozen set, precision).

A :class:`TrainProgram` owns the optax transformation over the trainable
parameters and every jitted function a training run calls: the optimizer state's
init, the step (one batch per call), the stacked steps (``K`` batches per call), the
end-of-pass catch-up of lazily decayed sparse rows, and the evaluation view of the
parameters (that catch-up and the model average, without touching the state).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax

from paddle_lite._src import steps
from paddle_lite._src.optimizers import Optimizer, as_optax
from paddle_lite._src.regularizers import trainable_names
from paddle_lite._src.specs import ParamSpec


def _lazy_decay(equation: Any, specs: Mapping[str, ParamSpec]) -> bool:
    """Whether some sparse-row parameter decays lazily (and so must catch up)."""
    if not isinstance(equation, Optimizer):
        return False
    hypers = [equation.resolve(spec) for spec in specs.values()]
    return any(h.sparse and (h.l1 or h.l2) for h in hypers)


class TrainProgram:
    """Jitted functions of one (frozen set, precision); see the module docstring.

    Args:
        costs, evaluators: what the step computes.
        equation: the trainer's update equation.
        specs: ``{name: ParamSpec}`` of every parameter of the topology.
        frozen: names left unchanged.
        precision: a ``paddle.init(precision=...)`` value.
        on_nan: what a non-finite step does (``steps.ON_NAN``).
        aux_costs: cost layers trained for their gradient only (see ``steps``).
    """

    def __init__(  # noqa: ANN001
        self, costs, evaluators, equation, specs, frozen, precision, on_nan, aux_costs=()
    ) -> None:
        self.names = trainable_names(specs, frozen)
        self.specs = {n: specs[n] for n in self.names}
        self.equation = equation
        self.tx = as_optax(equation, self.specs)
        self.init = jax.jit(self.tx.init)
        self._args = (costs, evaluators, self.tx, precision, on_nan, aux_costs)
        self.step = steps.make_train_step(*self._args)
        self._steps = None
        self.lazy_decay = _lazy_decay(equation, self.specs)
        self.catch_up = jax.jit(self._catch_up, donate_argnums=(0,))
        self.set_pass = jax.jit(lambda counters, p: counters.at[1].set(p), donate_argnums=(0,))
        self.eval_view = jax.jit(self._eval_view)

    @property
    def steps(self) -> Any:
        """The ``K``-stacked steps, compiled on first use."""
        if self._steps is None:
            self._steps = steps.make_train_steps(*self._args)
        return self._steps

    def _catch_up(self, state: steps.TrainState) -> steps.TrainState:
        trainable, opt_state = self.equation.catch_up(
            state.opt_state, state.trainable, self.specs, state.pass_id
        )
        return state._replace(trainable=trainable, opt_state=opt_state)

    def _eval_view(self, opt_state: Any, params: dict[str, Any], pass_id: Any) -> dict[str, Any]:
        if not isinstance(self.equation, Optimizer):
            return params
        trainable = {n: params[n] for n in self.names}
        if self.lazy_decay:
            trainable, opt_state = self.equation.catch_up(opt_state, trainable, self.specs, pass_id)
        return {**params, **self.equation.average_params(opt_state, trainable)}
