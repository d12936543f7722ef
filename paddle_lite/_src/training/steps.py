"""The jitted training step: all of a step's device work in one call.

A training step maps ``(TrainState, feeds)`` to ``(TrainState, (cost_sum, stats))``:
forward, gradients of the summed cost, the optimizer update, pruning masks, the
batch-norm statistics, the batch's evaluator statistics and their running totals
over the pass, and the step counter that positions the PRNG stream. The state lives
on the device and its buffers are donated, so a step passes no Python scalar and
reads nothing back; the batch size is the feeds' leading dimension (static).

``make_train_run`` compiles the one program a training call dispatches: ``K >= 1``
such steps over ``K`` batches of one signature (``trainer.train(steps_per_dispatch=K)``),
the step body for ``K = 1`` and a ``lax.scan`` over the stacked batches for ``K > 1``:
the same updates in the same order (bit for bit), one dispatch.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.extend import core as jax_core

from paddle_lite._src.compile import cost_sum, evaluate, forward, outputs_for
from paddle_lite._src.config import enable_compilation_cache
from paddle_lite._src.distributed.parallel import row_shardings
from paddle_lite._src.errors import ConfigError
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.graph import Layer
from paddle_lite._src.lowering import precision as precision_mod
from paddle_lite._src.topology import collect_params, traverse
from paddle_lite._src.training import packing as packing_mod
from paddle_lite._src.training import pass_totals
from paddle_lite._src.training.chunks import Feeds
from paddle_lite._src.values import VALID

# One batch's (cost_sum, evaluator stats, finite), and those of one dispatch, in order.
BatchOutput = tuple[Any, list[Any], Any]
Outputs = tuple[BatchOutput, ...]
# A step's loss: (trainable, fixed, feeds, key) -> (cost_sum, (layer values, updates)).
Loss = Callable[
    [dict[str, Any], dict[str, Any], Feeds, Any], tuple[Any, tuple[list[Any], dict[str, Any]]]
]


class TrainState(NamedTuple):
    """What a training step reads and writes on the device (a jax pytree). Its leaves
    are device arrays, tracers inside the step, or, read by ``DeviceState.host_state``,
    numpy arrays for the small ones."""

    trainable: dict[str, Any]  # differentiated and updated parameters
    fixed: dict[str, Any]  # static and frozen parameters (batch-norm statistics change)
    opt_state: optax.OptState
    totals: tuple[Any, ...] | None  # (cost_sum, evaluator stats) over the pass, packed
    counters: Any  # int32[3]: (step, pass_id, bad) in one array, one argument
    key: Any  # the trainer's PRNG key
    masks: dict[str, Any]  # 0/1 pruning masks of trainable parameters

    @property
    def step(self) -> Any:
        """int32: steps run by this trainer (folds into the PRNG key)."""
        return self.counters[0]

    @property
    def pass_id(self) -> Any:
        return self.counters[1]

    @property
    def bad(self) -> Any:
        """int32: the first step whose cost, gradients or update were not finite, or -1."""
        return self.counters[2]


def counters(step: int, pass_id: int, bad: int = -1) -> np.ndarray:
    """Host ``TrainState.counters``."""
    return np.array([step, pass_id, bad], np.int32)


def batch_size(feeds: Any) -> Any:
    """The number of samples in ``feeds``: the leading dimension of its arrays (static),
    or the sum of the row weights of a batch padded for several devices."""
    if VALID in feeds:
        return jnp.sum(feeds[VALID]).astype(jnp.int32)
    return jax.tree_util.tree_leaves(feeds)[0].shape[0]


class OnNan(str, enum.Enum):
    """What a step whose cost, gradients or update are not all finite does
    (``train(on_nan=...)``); it changes nothing but the step counter either way."""

    RAISE = "raise"  # later steps change nothing either; the host raises NonFiniteError
    SKIP = "skip"  # training goes on; the step's EndIteration has ``skipped == True``

    @classmethod
    def parse(cls, value: Any) -> OnNan:
        """The policy named ``value``; a ``ConfigError`` listing the choices otherwise."""
        try:
            return cls(value)
        except ValueError:
            choices = [m.value for m in cls]
            raise ConfigError(
                f"train(): on_nan must be one of {choices}; received {value!r}."
            ) from None


def _all_finite(*trees: Any) -> Any:
    """Whether every element of ``trees`` is finite. Leaves of one shape and dtype (a
    parameter, its gradient, its optimizer slots) are checked element by element
    together, so each shape costs one reduction that reads them all at once; an
    ``isfinite`` reduction (unlike a sum of ``x * 0``) fuses with the elementwise
    work that makes its operands, so new values are checked without being stored."""
    groups: dict[tuple[Any, ...], Any] = {}
    for x in jax.tree_util.tree_leaves(trees):
        if jnp.issubdtype(x.dtype, jnp.inexact):
            sig = (x.shape, x.dtype)
            ok = jnp.isfinite(x)
            groups[sig] = ok if sig not in groups else groups[sig] & ok
    result = jnp.bool_(True)
    for ok in groups.values():
        result = result & jnp.all(ok)
    return result


def _apply_if(apply: Any, update: Any, state: TrainState) -> tuple[Any, ...]:
    """``update(state)`` where ``apply``, else the state's own values, bit for bit.

    On a CPU a ``lax.cond``: the check has read the update without storing it (see
    ``_all_finite``), and the branch then writes it in place into the donated
    buffers, so a step stores no second copy of the parameters (measured as fast as
    an unchecked step on chapter 2's MLP). On an accelerator a branch would make the
    host wait for the predicate, so selects keep the old values there.
    """

    def keep(state: TrainState) -> tuple[Any, ...]:
        return state.trainable, state.fixed, state.opt_state, state.totals

    if jax.default_backend() == "cpu":
        return jax.lax.cond(apply, update, keep, state)
    changed = update(state)
    return jax.tree_util.tree_map(lambda n, o: jnp.where(apply, n, o), changed, keep(state))


def _made(changed: tuple[Any, ...], updates: dict[str, Any]) -> tuple[Any, ...]:
    """The values a step writes that the check covers: the new trainable parameters,
    the new optimizer state and the fixed parameters the forward updated."""
    trainable, fixed, opt_state, _ = changed
    return trainable, opt_state, {n: fixed[n] for n in updates if n in fixed}


def optimized(
    tx: optax.GradientTransformationExtraArgs, state: TrainState, grads: dict[str, Any], feeds: Any
) -> tuple[Any, Any]:
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


def _update(
    tx: optax.GradientTransformationExtraArgs,
    rows: Mapping[str, Any],
    state: TrainState,
    grads: dict[str, Any],
    feeds: Feeds,
    updates: dict[str, Any],
    batch_totals: tuple[Any, list[Any]],
) -> tuple[Any, ...]:
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
    if state.totals is None:  # DeviceState.begin_pass sets them before a pass's first step
        raise RuntimeError("a training step ran before its pass began: no pass totals")
    totals = pass_totals.add(state.totals, batch_totals)
    return trainable, fixed, opt_state, totals


def _loss(
    costs: Sequence[Layer],
    aux_costs: Sequence[Layer],
    outputs: Sequence[Layer],
    dtype: Any,
    taps: dict[str, Any],
) -> Loss:
    """``loss(trainable, fixed, feeds, key) -> (cost_sum, (values, updates))`` of a step.

    ``aux_costs`` (cost layers among the trainer's ``extra_layers``) add their gradient
    but not their value: v2 ran every cost layer's backward, and reported the sum of
    the output (cost) layers only.
    """
    cost_names = frozenset(c.name for c in [*costs, *aux_costs])

    def loss(
        trainable: dict[str, Any], fixed: dict[str, Any], feeds: Feeds, key: Any
    ) -> tuple[Any, tuple[list[Any], dict[str, Any]]]:
        params = precision_mod.cast_floats({**fixed, **trainable}, dtype)
        feeds = precision_mod.cast_floats(feeds, dtype)
        values, updates = forward(outputs, params, feeds, key, "train", cost_names, taps)
        total = cost_sum(values, len(costs), feeds.get(VALID))
        if aux_costs:
            aux = cost_sum(values[len(costs) :], len(aux_costs), feeds.get(VALID))
            total = total + (aux - jax.lax.stop_gradient(aux))  # gradient only
        return total, (values, updates)

    return loss


def _train_body(
    costs: Sequence[Layer],
    evaluators: Sequence[Evaluator],
    tx: optax.GradientTransformationExtraArgs,
    precision: str,
    on_nan: OnNan,
    aux_costs: Sequence[Layer] = (),
) -> Callable[[TrainState, Feeds], tuple[TrainState, BatchOutput]]:
    """The un-jitted ``(state, feeds) -> (state, (cost_sum, stats, finite))`` of one step.

    A step whose cost, gradients or update (the new trainable parameters, optimizer
    state and batch-norm statistics) are not all finite changes nothing but the step
    counter and ``bad`` (the first such step): the state it leaves is, bit for bit,
    the state it started from. With ``on_nan="raise"`` every later
    step changes nothing either, so the state holds the last good parameters until
    the trainer notices ``bad`` and raises; with ``"skip"`` training goes on.
    """
    every = [*costs, *aux_costs]
    outputs, slots = outputs_for(every, evaluators)
    matmul = precision_mod.matmul_precision(precision)
    rows = row_shardings(collect_params(traverse(every)))
    taps = {name: tap for ev in evaluators for name, tap in ev.grad_taps().items()}
    loss = _loss(costs, aux_costs, outputs, precision_mod.compute_dtype(precision), taps)

    def body(state: TrainState, feeds: Feeds) -> tuple[TrainState, BatchOutput]:
        key = jax.random.fold_in(state.key, state.step)
        with jax.default_matmul_precision(matmul):
            (total, (values, updates)), grads = jax.value_and_grad(loss, has_aux=True)(
                state.trainable, state.fixed, feeds, key
            )
            stats = evaluate(precision_mod.to_float32(values), slots, evaluators, feeds.get(VALID))

        def update(state: TrainState) -> tuple[Any, ...]:
            return _update(tx, rows, state, grads, feeds, updates, (total, stats))

        # The update is checked before it is kept: ``_apply_if`` traces it again (one
        # expression with this one under selects; computed again in place in a branch).
        made = _made(update(state), updates)
        finite = jnp.isfinite(total) & _all_finite(grads, made)
        step, bad = state.step, state.bad
        apply = finite if on_nan is OnNan.SKIP else finite & (bad < 0)
        trainable, fixed, opt_state, totals = _apply_if(apply, update, state)
        bad = jnp.where(finite | (bad >= 0), bad, step)
        new = state._replace(
            trainable=trainable,
            fixed=fixed,
            opt_state=opt_state,
            totals=totals,
            counters=jnp.stack([step + 1, state.pass_id, bad]),
        )
        return new, (total, stats, finite)

    return body


def _unrolled(body: Any, state: TrainState, feeds: Any) -> bool:
    """Whether the ``K > 1`` scan runs its steps unrolled: on a CPU when a step
    convolves. XLA:CPU runs a convolution inside a loop's body several times slower
    than the same convolution outside one (LeNet-5, K = 8: 6 x the time per step, in
    plain JAX + optax as in paddle_lite); unrolled, the steps are again as fast as
    ``K = 1``'s (``docs/performance.md``). Other steps keep the rolled loop, which
    compiles faster and ran the tiny model's steps faster."""
    if jax.default_backend() != "cpu":
        return False
    return _uses(jax.make_jaxpr(body)(state, feeds).jaxpr, "conv_general_dilated")


def _uses(jaxpr: Any, primitive: str) -> bool:
    """Whether ``jaxpr`` or a jaxpr nested in it applies ``primitive``."""
    if any(eqn.primitive.name == primitive for eqn in jaxpr.eqns):
        return True
    return any(_uses(sub, primitive) for sub in jax_core.subjaxprs(jaxpr))


TrainRun = Callable[[TrainState, tuple[Feeds, ...]], tuple[TrainState, Outputs]]


def make_train_run(
    costs: Sequence[Layer],
    evaluators: Sequence[Evaluator],
    tx: optax.GradientTransformationExtraArgs,
    precision: str,
    on_nan: OnNan,
    aux_costs: Sequence[Layer] = (),
) -> TrainRun:
    """``run(state, batches) -> (state, outs)`` (to be jitted, ``state`` donated):
    ``batches`` is a tuple of ``K >= 1`` feeds of one signature, ``outs`` a tuple of each
    batch's ``(cost_sum, stats, finite)``.

    The ``K`` steps run in order, in a ``lax.scan`` over the batches stacked when
    ``K > 1``. (For ``K = 1`` the body's outputs are returned as
    they are: reshaping them changed XLA's fusion of the step, and with it the last bit
    of some updates, so ``K = 1`` and ``K > 1`` would no longer agree bit for bit.)
    """
    enable_compilation_cache()
    body = _train_body(costs, evaluators, tx, precision, on_nan, aux_costs)

    def run(state: TrainState, batches: tuple[Feeds, ...]) -> tuple[TrainState, Outputs]:
        if len(batches) == 1:
            state, out = body(state, batches[0])
            return state, (out,)
        stacked = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *batches)
        unroll = _unrolled(body, state, batches[0])
        state, outs = jax.lax.scan(body, state, stacked, unroll=unroll)
        return state, tuple(
            jax.tree_util.tree_map(lambda x, i=i: x[i], outs) for i in range(len(batches))
        )

    return run


def over_packed(
    train_run: TrainRun, packing: packing_mod.Packing
) -> Callable[[list[Any], tuple[Feeds, ...]], tuple[list[Any], Outputs]]:
    """``train_run`` over a ``TrainState``'s leaves as ``packing`` carries them:
    ``(leaves, batches) -> (leaves, outs)`` (named ``run`` in JAX's logs)."""

    def run(leaves: list[Any], batches: tuple[Feeds, ...]) -> tuple[list[Any], Outputs]:
        state = jax.tree_util.tree_unflatten(packing.tree, packing_mod.unpack(packing, leaves))
        state, outs = train_run(state, batches)
        leaves, tree = jax.tree_util.tree_flatten(state)
        if packing_mod.packing_of(tree, leaves) != packing:  # a bug, not a user's error
            raise AssertionError("the training step changed its state's structure")
        return packing_mod.pack(packing, leaves), outs

    return run


Zeros = Callable[[dict[str, Any], Feeds], tuple[Any, list[Any]]]


def make_zeros(costs: Sequence[Layer], evaluators: Sequence[Evaluator]) -> Zeros:
    """``zeros(params, feeds)``: host zeros shaped like one batch's ``(cost_sum, stats)``.

    Their shapes are found by tracing the test forward on ``feeds`` (no compilation),
    once per feeds signature.
    """
    outputs, slots = outputs_for(costs, evaluators)

    def stats(params: dict[str, Any], feeds: Feeds) -> tuple[Any, list[Any]]:
        values, _ = forward(outputs, params, feeds, None, "test")
        return cost_sum(values, len(costs)), evaluate(values, slots, evaluators)

    cache: dict[Any, Any] = {}

    def zeros(params: dict[str, Any], feeds: Feeds) -> tuple[Any, list[Any]]:
        leaves, tree = jax.tree_util.tree_flatten(feeds)
        sig = (tree, tuple((x.shape, x.dtype) for x in leaves))
        if sig not in cache:
            cache[sig] = jax.eval_shape(stats, params, feeds)
        return jax.tree_util.tree_map(lambda s: np.zeros(s.shape, s.dtype), cache[sig])

    return zeros
