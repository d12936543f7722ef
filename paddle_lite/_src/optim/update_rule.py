"""One optimizer's update rule applied to every trainable parameter, as an optax transform.

``Optimizer.resolve`` gives each parameter its ``ParamHyper`` (its own settings with the
optimizer's defaults filled in); ``rule_transform`` then builds the transformation whose
state is a ``RuleState``: the number of updates, the samples seen (the learning-rate
schedule's ``n``) and each parameter's slot arrays. A parameter's step is the optimizer's
``param_update``, or ``sparse_rows.update`` for a row-sparse one.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax.numpy as jnp
import optax

from paddle_lite._src.optim import regularizers, sparse_rows
from paddle_lite._src.optim.regularizers import OptimizerArgumentError


@dataclasses.dataclass(frozen=True)
class ParamHyper:
    """Resolved update settings of one parameter (global defaults filled in)."""

    lr_scale: float
    momentum: float
    l2: float
    l1: float
    clip: float
    sparse: bool = False  # row-sparse updates (``sparse_update``; see ``sparse_rows``)


class RuleState(NamedTuple):
    """State of the v2 update rule: updates done, samples seen, slots[slot][param]."""

    step: jnp.ndarray
    samples: jnp.ndarray
    slots: dict[str, dict[str, jnp.ndarray]]


def rule_transform(
    opt: Any, hypers: dict[str, ParamHyper]
) -> optax.GradientTransformationExtraArgs:
    """The v2 update rule of ``opt`` with per-parameter settings ``hypers``.

    Args:
        opt: the ``Optimizer`` whose rule (``param_update``) and schedule apply.
        hypers: ``{name: ParamHyper}`` of the trainable parameters.

    Returns:
        An ``optax.GradientTransformationExtraArgs`` over ``{name: array}``; its
        ``update`` needs ``params`` and ``batch_size=`` (and takes ``pass_id=``).

    Example:
        >>> from paddle_lite.optimizer import Momentum
        >>> tx = rule_transform(Momentum(learning_rate=0.1), {})
        >>> tx.init({}).step
        Array(0, dtype=int32)
    """
    constant_lr = jnp.float32(opt.learning_rate)

    def init(params):
        names = opt.slot_names + ("velocity",) + sparse_rows.CLOCKS
        slots = {s: {} for s in names}
        for k, h in hypers.items():
            for s in opt.slots_for(h):
                slots[s][k] = jnp.zeros_like(params[k])
            if h.sparse:
                for s, clock in sparse_rows.init_slots(opt, params[k], h).items():
                    slots[s][k] = clock
        return RuleState(jnp.int32(0), jnp.int32(0), {s: v for s, v in slots.items() if v})

    def update(grads, state, params=None, *, batch_size=None, pass_id=0, **extra):
        del extra
        if batch_size is None or params is None:
            raise OptimizerArgumentError(
                f"{type(opt).__name__} update needs params and batch_size= (the number of "
                f"samples in this batch); received params={'set' if params is not None else None}"
                f", batch_size={batch_size!r}."
            )
        room = regularizers.INT32_MAX - state.samples  # v2 counted in int64: saturate, never wrap
        samples = state.samples + jnp.minimum(jnp.asarray(batch_size, jnp.int32), room)
        lr = opt.schedule(samples, pass_id) if opt.scheduled else constant_lr
        deltas, slots = {}, {s: {} for s in state.slots}
        for k, h in hypers.items():
            own = {s: tree[k] for s, tree in state.slots.items() if k in tree}
            if h.sparse:
                deltas[k], new = sparse_rows.update(
                    opt, grads[k], params[k], own, lr * h.lr_scale, h, state.step
                )
            else:
                deltas[k], new = opt.param_update(
                    grads[k], params[k], own, lr * h.lr_scale, h, state.step
                )
            for s, value in new.items():
                slots[s][k] = value
        return deltas, RuleState(state.step + 1, samples, slots)

    return optax.GradientTransformationExtraArgs(init, update)
