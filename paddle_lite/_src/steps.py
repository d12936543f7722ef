"""The jitted training and test steps: all of a step's device work in one call.

A training step maps ``(TrainState, feeds)`` to ``(TrainState, (cost_sum, stats))``:
forward, gradients of the summed cost, the optimizer update, pruning masks, the
batch-norm statistics, the batch's evaluator statistics and their running totals
over the pass, and the step counter that positions the PRNG stream. The state lives
on the device and its buffers are donated, so a step passes no Python scalar and
reads nothing back; the batch size is the feeds' leading dimension (static).

``make_train_steps`` runs ``K`` such steps over ``K`` stacked batches in one
``lax.scan`` (``trainer.train(steps_per_dispatch=K)``): the same updates in the same
order, one dispatch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from paddle_lite._src import precision as precision_mod
from paddle_lite._src.compile import cost_sum, evaluate, forward, outputs_for
from paddle_lite._src.config import enable_compilation_cache
from paddle_lite._src.distributed import row_shardings
from paddle_lite._src.graph import Layer
from paddle_lite._src.topology import collect_params, traverse
from paddle_lite._src.typing import VALID


class TrainState(NamedTuple):
    """What a training step reads and writes on the device (a jax pytree)."""

    trainable: dict[str, Any]  # differentiated and updated parameters
    fixed: dict[str, Any]  # static and frozen parameters (batch-norm statistics change)
    opt_state: Any
    totals: tuple[Any, list[Any]]  # (cost_sum, evaluator statistics) summed over the pass
    step: Any  # int32: steps run by this trainer (folds into the PRNG key)
    pass_id: Any  # int32
    key: Any  # the trainer's PRNG key
    masks: dict[str, Any]  # 0/1 pruning masks of trainable parameters
    bad: Any  # int32: the first step whose cost, gradients or update were not finite, or -1


def batch_size(feeds: Any) -> Any:
    """The number of samples in ``feeds``: the leading dimension of its arrays (static),
    or the sum of the row weights of a batch padded for several devices."""
    if VALID in feeds:
        return jnp.sum(feeds[VALID]).astype(jnp.int32)
    return jax.tree_util.tree_leaves(feeds)[0].shape[0]


ON_NAN = ("raise", "skip")


def _all_finite(*trees: Any) -> Any:
    """Whether every element of ``trees`` is finite: ``x * 0`` is 0 for finite ``x`` and
    NaN otherwise, so a sum (which cannot overflow) tells. Leaves of one shape and
    dtype (a parameter, its gradient, its optimizer slots) are summed element by
    element first, so each shape costs one reduction that reads them all at once."""
    groups: dict[tuple[Any, ...], Any] = {}
    for x in jax.tree_util.tree_leaves(trees):
        if jnp.issubdtype(x.dtype, jnp.inexact):
            sig = (x.shape, x.dtype)
            groups[sig] = x * 0 if sig not in groups else groups[sig] + x * 0
    zeros = [jnp.sum(z) for z in groups.values()]
    return jnp.isfinite(sum(zeros)) if zeros else jnp.bool_(True)


def _apply_if(apply: Any, update: Any, state: TrainState) -> tuple[Any, ...]:
    """``update(state)`` where ``apply``, else the state's own values, bit for bit.

    The update is computed and selects keep the old values, on every backend: the
    check needs every new value before anything is kept, so the update cannot write
    the donated buffers in place before it anyway, and a branch would make an
    accelerator's host wait for the predicate. (On a CPU a ``lax.cond`` that computes
    the update a second time, in place, was measured slower: see docs/reliability.md.)
    """
    changed = update(state)
    kept = state.trainable, state.fixed, state.opt_state, state.totals
    return jax.tree_util.tree_map(lambda n, o: jnp.where(apply, n, o), changed, kept)


def _made(changed: tuple[Any, ...], updates: dict[str, Any]) -> tuple[Any, ...]:
    """The values a step writes that the check covers: the new trainable parameters,
    the new optimizer state and the fixed parameters the forward updated."""
    trainable, fixed, opt_state, _ = changed
    return trainable, opt_state, {n: fixed[n] for n in updates if n in fixed}


def optimized(tx: Any, state: TrainState, grads: dict[str, Any], feeds: Any) -> tuple[Any, Any]:
    """``(trainable, opt_state)`` after the optimizer's update of ``state`` by ``grads``
    (the gradients of the trainable parameters; others are ignored), pruning masks
    applied."""
    grads = {n: grads[n] for n in state.trainable}
    deltas, opt_state = tx.update(
        grads,
        state.opt_state,
        state.trainable,
        batch_size=batch_size(feeds),
        pass_id=state.pass_id,
    )
    trainable = optax.apply_updates(state.trainable, deltas)
    trainable = {n: v * state.masks[n] if n in state.masks else v for n, v in trainable.items()}
    return trainable, opt_state


def _update(tx, rows, state: TrainState, grads, feeds, updates, batch_totals) -> tuple:  # noqa: ANN001
    """The state a good step leaves: ``(trainable, fixed, opt_state, totals)``.

    ``updates`` are the forward's new values of fixed parameters (batch-norm
    statistics); ``batch_totals`` is the batch's ``(cost_sum, stats)``.
    """
    trainable, opt_state = optimized(tx, state, grads, feeds)
    trainable = {  # row-split parameters stay split (see distributed.row_shardings)
        n: jax.lax.with_sharding_constraint(v, rows[n]) if n in rows else v
        for n, v in trainable.items()
    }
    fixed = {n: updates.get(n, v).astype(v.dtype) for n, v in state.fixed.items()}
    totals = jax.tree_util.tree_map(jnp.add, state.totals, batch_totals)
    return trainable, fixed, opt_state, totals


def _train_body(costs, evaluators, tx, precision: str, on_nan: str, aux_costs=()):  # noqa: ANN001
    """The un-jitted ``(state, feeds) -> (state, (cost_sum, stats, finite))`` of one step.

    ``aux_costs`` (cost layers among the trainer's ``extra_layers``) add their gradient
    but not their value: v2 ran every cost layer's backward, and reported the sum of
    the output (cost) layers only.

    A step whose cost, gradients or update (the new trainable parameters, optimizer
    state and batch-norm statistics) are not all finite changes nothing but the step
    counter and ``bad`` (the first such step): the state it leaves is, bit for bit,
    the state it started from. With ``on_nan="raise"`` every later
    step changes nothing either, so the state holds the last good parameters until
    the trainer notices ``bad`` and raises; with ``"skip"`` training goes on.
    """
    every = [*costs, *aux_costs]
    outputs, slots = outputs_for(every, evaluators)
    dtype = precision_mod.compute_dtype(precision)
    matmul = precision_mod.matmul_precision(precision)
    cost_names = frozenset(c.name for c in every)
    rows = row_shardings(collect_params(traverse(every)))
    taps = {name: tap for ev in evaluators for name, tap in ev.grad_taps().items()}

    def loss(trainable, fixed, feeds, key):
        params = precision_mod.cast_floats({**fixed, **trainable}, dtype)
        feeds = precision_mod.cast_floats(feeds, dtype)
        values, updates = forward(outputs, params, feeds, key, "train", cost_names, taps)
        total = cost_sum(values, len(costs), feeds.get(VALID))
        if aux_costs:
            aux = cost_sum(values[len(costs) :], len(aux_costs), feeds.get(VALID))
            total = total + (aux - jax.lax.stop_gradient(aux))  # gradient only
        return total, (values, updates)

    def body(state: TrainState, feeds: Any):
        key = jax.random.fold_in(state.key, state.step)
        with jax.default_matmul_precision(matmul):
            (total, (values, updates)), grads = jax.value_and_grad(loss, has_aux=True)(
                state.trainable, state.fixed, feeds, key
            )
            stats = evaluate(precision_mod.to_float32(values), slots, evaluators, feeds.get(VALID))

        def update(state: TrainState) -> tuple[Any, ...]:
            return _update(tx, rows, state, grads, feeds, updates, (total, stats))

        # The update is checked before it is kept (XLA computes it once: ``_apply_if``
        # traces it again, and the two are the same expression).
        made = _made(update(state), updates)
        finite = jnp.isfinite(total) & _all_finite(grads, made)
        apply = finite if on_nan == "skip" else finite & (state.bad < 0)
        trainable, fixed, opt_state, totals = _apply_if(apply, update, state)
        new = state._replace(
            trainable=trainable,
            fixed=fixed,
            opt_state=opt_state,
            totals=totals,
            step=state.step + 1,
            bad=jnp.where(finite | (state.bad >= 0), state.bad, state.step),
        )
        return new, (total, stats, finite)

    return body


def make_train_step(costs, evaluators, tx, precision: str, on_nan: str = "raise", aux_costs=()):  # noqa: ANN001
    """Jitted ``step(state, feeds) -> (state, (cost_sum, stats, finite))``; ``state`` is
    donated."""
    enable_compilation_cache()
    body = _train_body(costs, evaluators, tx, precision, on_nan, aux_costs)
    return jax.jit(body, donate_argnums=(0,))


def make_train_steps(costs, evaluators, tx, precision: str, on_nan: str = "raise", aux_costs=()):  # noqa: ANN001
    """Jitted ``steps(state, stacked) -> (state, (cost_sums [K], stats [K, ...], finite [K]))``.

    ``stacked`` holds ``K`` batches of one signature stacked on a new leading axis;
    the ``K`` steps run in order inside one ``lax.scan``.
    """
    enable_compilation_cache()
    body = _train_body(costs, evaluators, tx, precision, on_nan, aux_costs)
    return jax.jit(lambda state, stacked: jax.lax.scan(body, state, stacked), donate_argnums=(0,))


def make_zeros(costs: Sequence[Layer], evaluators: Sequence[Any]):
    """``zeros(params, feeds)``: host zeros shaped like one batch's ``(cost_sum, stats)``.

    Their shapes are found by tracing the test forward on ``feeds`` (no compilation),
    once per feeds signature.
    """
    outputs, slots = outputs_for(costs, evaluators)

    def stats(params, feeds):
        values, _ = forward(outputs, params, feeds, None, "test")
        return cost_sum(values, len(costs)), evaluate(values, slots, evaluators)

    cache: dict[Any, Any] = {}

    def zeros(params: Any, feeds: Any) -> tuple[Any, list[Any]]:
        leaves, tree = jax.tree_util.tree_flatten(feeds)
        sig = (tree, tuple((x.shape, x.dtype) for x in leaves))
        if sig not in cache:
            cache[sig] = jax.eval_shape(stats, params, feeds)
        return jax.tree_util.tree_map(lambda s: np.zeros(s.shape, s.dtype), cache[sig])

    return zeros


def make_test_step(costs: Sequence[Layer], evaluators: Sequence[Any], precision: str):
    """Jitted ``step(params, feeds, totals) -> totals`` in test mode; ``totals`` is
    ``(cost_sum, stats)`` summed over the batches so far, and is donated."""
    enable_compilation_cache()
    outputs, slots = outputs_for(costs, evaluators)
    dtype = precision_mod.compute_dtype(precision)
    matmul = precision_mod.matmul_precision(precision)
    cost_names = frozenset(c.name for c in costs)

    def step(params, feeds, totals):
        params = precision_mod.cast_floats(params, dtype)
        feeds = precision_mod.cast_floats(feeds, dtype)
        weights = feeds.get(VALID)
        with jax.default_matmul_precision(matmul):
            values, _ = forward(outputs, params, feeds, None, "test", cost_names)
            stats = evaluate(precision_mod.to_float32(values), slots, evaluators, weights)
        batch = (cost_sum(values, len(costs), weights), stats)
        return jax.tree_util.tree_map(jnp.add, totals, batch)

    return jax.jit(step, donate_argnums=(2,))
