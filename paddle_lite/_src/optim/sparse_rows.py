"""Row-sparse updates of ``sparse_update=True`` parameters (v2's sparse updater).

v2 updates a 2-D parameter marked ``sparse_update`` (an embedding table, or an
``fc`` weight over sparse input) row by row:

- in each batch only the rows the batch touched change, their values and their
  optimizer slots alike (``SgdThreadUpdater::threadUpdateSparse``);
- the L1/L2 decay a row missed while untouched is applied at once when it is next
  touched, ``w = applyL1/L2(w, lr * decay * k)`` over the ``k`` batches since its last
  decay (``OptimizerWithRegularizerSparse``; the optimizer's own step then carries no
  decay), and every row catches up at the end of each pass (``catchUpWith``); rules
  with a per-element rate (AdaGrad, RMSProp ...) decay at ``lr * rate`` with the rate
  of the row's last update, so a row never touched does not decay;
- the decayed sums of ``RMSProp`` and ``DecayedAdaGrad`` decay by ``rho ** k`` over
  the ``k`` updates a row missed, and a row's first update takes its gradient whole;
- ``Momentum(sparse=True)`` (v2 ``sparse_momentum``) is dense momentum evaluated
  lazily, so it updates every row exactly as dense momentum does.

A row counts as touched when its gradient is not all zeros: the rows a batch looked
up, padding excluded. The combinations v2 refuses are refused here too: Adam, Adamax
and AdaDelta on sparse rows, and momentum together with L1/L2 decay.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax.numpy as jnp

from paddle_lite._src.errors import ConfigError
from paddle_lite._src.optim.regularizers import apply_l1, apply_l2

SEEN, DECAYED = "t0", "decay_t0"  # slots: step+1 of the last touch; step of the last decay
RATE = "rate"  # the per-element rate of a row's last update (0 before its first)
CLOCKS = (SEEN, DECAYED, RATE)


def is_sparse(opt: Any, spec: Any) -> bool:
    """Whether ``spec`` gets row-sparse updates from ``opt`` (checked as v2 does)."""
    if not spec.sparse_update or len(spec.shape) != 2 or getattr(opt, "sparse", False):
        return False
    name = type(opt).__name__
    if not opt.sparse_rows:
        raise ConfigError(
            f"parameter '{spec.name}' has sparse_update=True, which v2's {name} does not "
            "support (its updater aborts: 'Sparse update is not supported'). Use Momentum, "
            "AdaGrad, DecayedAdaGrad or RMSProp, or drop sparse_update for a dense update."
        )
    return True


def is_lazy_momentum(opt: Any, spec: Any) -> bool:
    """Whether ``spec`` is a row of v2's ``sparse_momentum`` (``Momentum(sparse=True)``
    on a 2-D ``sparse_update`` parameter): updated as dense momentum here, but held to
    v2's checks for sparse parameters."""
    return bool(spec.sparse_update and len(spec.shape) == 2 and getattr(opt, "sparse", False))


def check_decay(name: str, momentum: float, l1: float, l2: float) -> None:
    """v2's rule: a sparse parameter cannot have both momentum and L1/L2 decay."""
    if momentum and (l1 or l2):
        raise ConfigError(
            f"parameter '{name}' has sparse_update=True, momentum {momentum} and decay "
            f"(l1 {l1}, l2 {l2}); v2 refuses this ('Parameter cannot support momentum if "
            "it's sparse'). Set momentum=0 for it (ParamAttr(momentum=...) or the optimizer's) "
            "or drop the decay (l2_rate / l1_rate)."
        )


def init_slots(opt: Any, param: Any, h: Any) -> dict[str, Any]:
    """The per-row clocks a sparse parameter needs."""
    rows = param.shape[0]
    slots = {}
    if opt.decayed_slots:
        slots[SEEN] = jnp.zeros(rows, jnp.int32)
    if h.l1 or h.l2:
        slots[DECAYED] = jnp.zeros(rows, jnp.int32)
        if opt.rate_vector:
            slots[RATE] = jnp.zeros_like(param)
    return slots


def _decay(w: Any, eta: Any, h: Any, steps: Any) -> Any:
    """``steps`` batches' worth of L1 then L2 decay at rate ``eta``."""
    steps = steps.astype(jnp.float32)[:, None]
    if h.l1:
        w = apply_l1(w, eta * h.l1 * steps)
    if h.l2:
        w = apply_l2(w, eta * h.l2 * steps)
    return w


def update(opt: Any, g: Any, w: Any, own: dict[str, Any], lr: Any, h: Any, step: Any):
    """One batch's update of a sparse parameter: ``(delta, new slots)``."""
    touched = jnp.any(g != 0, axis=1)
    slots = {s: v for s, v in own.items() if s not in CLOCKS}
    first = step
    if SEEN in own:
        missed = jnp.where(own[SEEN] > 0, step - own[SEEN], 0)  # updates the row sat out
        scale = (opt.rho ** missed.astype(jnp.float32))[:, None]
        slots = {s: v * scale if s in opt.decayed_slots else v for s, v in slots.items()}
        first = jnp.where(own[SEEN] == 0, 0, 1)[:, None]  # per row: its first update?
    plain = dataclasses.replace(h, l1=0.0, l2=0.0)
    delta, new = opt.param_update(g, w, slots, lr, plain, first)
    value = w + delta
    if DECAYED in own:
        eta = lr
        if RATE in own:
            new[RATE] = opt.current_rate(new)
            eta = lr * new[RATE]
        value = _decay(value, eta, h, step + 1 - own[DECAYED])
        new[DECAYED] = jnp.where(touched, step + 1, own[DECAYED])
    if SEEN in own:
        new[SEEN] = jnp.where(touched, step + 1, own[SEEN])
    rows = touched[:, None]
    new = {s: jnp.where(rows if v.ndim == 2 else touched, v, own[s]) for s, v in new.items()}
    return jnp.where(rows, value - w, 0.0), new


def catch_up(opt: Any, w: Any, own: dict[str, Any], lr: Any, h: Any, step: Any):
    """Every row's missed decay up to ``step`` (v2 ``catchUpWith``): ``(w, new clock)``."""
    eta = lr * own[RATE] if RATE in own else lr
    return _decay(w, eta, h, step - own[DECAYED]), jnp.full_like(own[DECAYED], step)
