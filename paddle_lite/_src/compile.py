"""Lower layers to pure jax functions of ``(params, feeds, key)``.

``forward`` interprets the sub-graph the requested outputs depend on; under
``jax.jit`` it traces once per input signature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import optax

from paddle_lite._src.config import enable_compilation_cache
from paddle_lite._src.errors import DataError
from paddle_lite._src.graph import Layer
from paddle_lite._src.initializers import name_key
from paddle_lite._src.kinds import run
from paddle_lite._src.topology import traverse
from paddle_lite._src.typing import data_of


def layer_key(key: Any, layer: Layer) -> Any:
    """A per-layer PRNG key, stable under graph edits elsewhere."""
    return None if key is None else name_key(key, layer.name)


def forward(
    outputs: Sequence[Layer],
    params: Mapping[str, Any],
    feeds: Mapping[str, Any],
    key: Any = None,
    mode: str = "test",
) -> tuple[list[Any], dict[str, Any]]:
    """Compute ``outputs`` from ``feeds`` (``{data layer name: value}``).

    Returns:
        ``(values, state_updates)``: one value per output, and the new values of
        static state parameters (batch-norm moving statistics) in training mode.
    """
    values: dict[int, Any] = {}
    updates: dict[str, Any] = {}
    for node in traverse(outputs):
        if node.kind == "data":
            if node.name not in feeds:
                raise DataError(
                    f"data layer '{node.name}' is needed for {[o.name for o in outputs]} but was "
                    f"not fed; fed: {sorted(feeds)}."
                )
            values[id(node)] = feeds[node.name]
            continue
        inputs = [values[id(i)] for i in node.inputs]
        out, state = run(node, params, inputs, key=layer_key(key, node), mode=mode)
        values[id(node)] = out
        updates.update(state)
    return [values[id(o)] for o in outputs], updates


def per_sample_cost(value: Any) -> Any:
    """A cost layer's value as ``[batch]`` (cost layers output ``[batch, 1]``)."""
    data = data_of(value)
    return data.reshape(data.shape[0], -1).sum(axis=1)


def _cost_sum(values: Sequence[Any], n_costs: int) -> Any:
    """The summed cost of the first ``n_costs`` values (the cost layers)."""
    return sum(per_sample_cost(v).sum() for v in values[:n_costs])


def _outputs(
    costs: Sequence[Layer], evaluators: Sequence[Any]
) -> tuple[list[Layer], list[list[int]]]:
    """The layers to compute (costs first) and, per evaluator, the indices of its inputs."""
    outputs = list(costs)
    index = {id(layer): i for i, layer in enumerate(outputs)}
    slots = []
    for ev in evaluators:
        for layer in ev.inputs:
            if id(layer) not in index:
                index[id(layer)] = len(outputs)
                outputs.append(layer)
        slots.append([index[id(layer)] for layer in ev.inputs])
    return outputs, slots


def _evaluate(values: Sequence[Any], slots, evaluators) -> list[Any]:
    return [ev.batch_stats([values[i] for i in s]) for ev, s in zip(evaluators, slots, strict=True)]


def make_train_step(costs: Sequence[Layer], evaluators: Sequence[Any], tx: Any):
    """One jitted training step: cost, gradients of the summed cost, update, metrics.

    ``step(trainable, opt_state, fixed, feeds, key, step_id, batch_size, pass_id, masks)``
    returns ``(trainable, opt_state, fixed, cost_sum, stats)``; the step's PRNG key is
    ``key`` folded with ``step_id``, and each updated parameter named in ``masks`` is
    multiplied by its 0/1 mask (pruning hooks). Only ``trainable`` is
    differentiated; ``fixed`` (static and frozen parameters) only receives the
    batch-norm moving statistics. The parameter and optimizer buffers are donated.
    """
    enable_compilation_cache()
    outputs, slots = _outputs(costs, evaluators)
    n_costs = len(costs)

    def loss(trainable, fixed, feeds, key):
        values, updates = forward(outputs, {**fixed, **trainable}, feeds, key, "train")
        return _cost_sum(values, n_costs), (values, updates)

    def step(trainable, opt_state, fixed, feeds, key, step_id, batch_size, pass_id, masks):
        (total, (values, state)), grads = jax.value_and_grad(loss, has_aux=True)(
            trainable, fixed, feeds, jax.random.fold_in(key, step_id)
        )
        updates, opt_state = tx.update(
            grads, opt_state, trainable, batch_size=batch_size, pass_id=pass_id
        )
        trainable = optax.apply_updates(trainable, updates)
        trainable = {n: v * masks[n] if n in masks else v for n, v in trainable.items()}
        fixed = {name: state.get(name, value) for name, value in fixed.items()}
        return trainable, opt_state, fixed, total, _evaluate(values, slots, evaluators)

    return jax.jit(step, donate_argnums=(0, 1, 2))


def make_test_step(costs: Sequence[Layer], evaluators: Sequence[Any]):
    """Jitted ``(params, feeds) -> (cost_sum, stats)`` in test mode."""
    enable_compilation_cache()
    outputs, slots = _outputs(costs, evaluators)

    def step(params, feeds):
        values, _ = forward(outputs, params, feeds, None, "test")
        return _cost_sum(values, len(costs)), _evaluate(values, slots, evaluators)

    return jax.jit(step)


def make_infer(outputs: Sequence[Layer]):
    """Jitted ``(params, feeds) -> [value per output]`` in test mode."""
    enable_compilation_cache()
    outputs = list(outputs)
    return jax.jit(lambda params, feeds: forward(outputs, params, feeds, None, "test")[0])
