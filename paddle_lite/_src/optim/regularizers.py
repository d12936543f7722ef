"""The optax pieces around a v2 update rule: regularization, clipping, averaging, freezing.

``L2Regularization(rate)`` / ``L1Regularization(rate)`` set the *global default*
``decay_rate`` / ``decay_rate_l1`` of every parameter whose own ``l2_rate`` /
``l1_rate`` is unset (``None`` or 0). ``ModelAverage`` keeps v2's running average of
every trained parameter over a window of recent updates; the averaged values are
what ``save_parameter_to_tar`` writes (``trainer.test`` tests the current values, as v2's
did).

v2 applies decay on the parameter, never through the cost. Without L1 the L2 decay
is part of the update rule (``g + decay*w``, see ``optimizers``). With L1 (v2's
``OptimizerWithRegularizer``) the rule runs without decay and then, with
``eta = lr * lr_param`` (times the rule's per-element rate for AdaGrad, AdaDelta,
RMSProp and DecayedAdaGrad):

    w = sign(w) * max(|w| - eta*l1, 0)     # apply_l1
    w = w / (1 + eta*l2)                   # apply_l2

``clip_gradients`` is v2's per-parameter elementwise gradient clip (first in the
chain) and ``only_trainable`` keeps static and frozen parameters out of it all.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import jax.numpy as jnp
import optax

from paddle_lite._src.errors import OptimizerWarning, PaddleLiteError, ParameterError
from paddle_lite._src.optim.schedules import OptimizerConfigError
from paddle_lite._src.optim.wide_ints import int_times_double
from paddle_lite._src.specs import ParamSpec

INT32_MAX = 2**31 - 1
MIN_AVERAGE_WINDOW = 10000


class OptimizerArgumentError(PaddleLiteError, TypeError):
    """An optimizer received an argument of the wrong type or an unknown keyword."""


def number(owner: str, name: str, value: Any, minimum: float | None = None) -> float:
    """``value`` as a float: a finite number (a Python or numpy scalar, as v2's protobuf
    fields took), at least ``minimum`` when given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise OptimizerArgumentError(f"{owner}: {name} must be a number; received {value!r}.")
    if not math.isfinite(value) or (minimum is not None and value < minimum):
        bound = "" if minimum is None else f" and >= {minimum:g}"
        raise OptimizerConfigError(f"{owner}: {name} must be finite{bound}; received {value!r}.")
    return float(value)


def usual(
    owner: str, name: str, value: float, low: float, high: float, why: str, stacklevel: int = 3
) -> float:
    """``value``; an ``OptimizerWarning`` when it is outside ``[low, high)`` (v2
    accepted any number; ``why`` says what such a value does)."""
    if not low <= value < high:
        warnings.warn(
            f"{owner}: {name}={value!r} is outside [{low:g}, {high:g}); it is used as v2 "
            f"used it, but {why}.",
            OptimizerWarning,
            stacklevel=stacklevel + 1,
        )
    return value


class L2Regularization:
    """Global default L2 decay rate (v2 ``decay_rate``).

    Maths (one step, sum-of-batch gradient ``g``): ``g + rate*w`` in the update rule,
    i.e. a decay of ``lr * rate * w`` per batch. A parameter's own non-zero
    ``l2_rate`` overrides ``rate``.

    Args:
        rate: decay per batch relative to the learning rate (``>= 0``).

    Pass it to an optimizer as ``regularization=``.

    Example:
        >>> reg = L2Regularization(rate=8e-4)
        >>> reg.decay_rate
        0.0008
    """

    def __init__(self, rate: float) -> None:
        self.rate = number("L2Regularization", "rate", rate, 0.0)
        self.decay_rate = self.rate

    def __repr__(self) -> str:
        return f"L2Regularization(rate={self.rate!r})"


class L1Regularization:
    """Global default L1 decay rate (v2 ``decay_rate_l1``).

    Maths: after the update rule, soft thresholding
    ``w = sign(w) * max(|w| - lr*lr_param*rate, 0)``. A parameter's own non-zero
    ``l1_rate`` overrides ``rate``.

    Args:
        rate: threshold per batch relative to the learning rate (``>= 0``).

    Pass it to an optimizer as ``regularization=``.

    Example:
        >>> L1Regularization(rate=1e-5).decay_rate_l1
        1e-05
    """

    def __init__(self, rate: float) -> None:
        self.rate = number("L1Regularization", "rate", rate, 0.0)
        self.decay_rate_l1 = self.rate

    def __repr__(self) -> str:
        return f"L1Regularization(rate={self.rate!r})"


def parse_regularization(owner: str, regularization: Any) -> tuple[float, float]:
    """The global ``(l2, l1)`` rates of v1's ``regularization=`` (one object or a list)."""
    items = regularization if isinstance(regularization, (list, tuple)) else [regularization]
    l2 = l1 = 0.0
    for item in items:
        if isinstance(item, L2Regularization):
            l2 = item.rate
        elif isinstance(item, L1Regularization):
            l1 = item.rate
        elif item is not None:
            raise OptimizerArgumentError(
                f"{owner}: regularization must be L2Regularization, L1Regularization or a list "
                f"of them; received {item!r}."
            )
    return l2, l1


def apply_l1(w: jnp.ndarray, threshold: jnp.ndarray) -> jnp.ndarray:
    """Soft thresholding ``sign(w) * max(|w| - threshold, 0)`` (v2 ``applyL1``)."""
    return jnp.where(w > threshold, w - threshold, jnp.where(w < -threshold, w + threshold, 0.0))


def apply_l2(w: jnp.ndarray, shrink: jnp.ndarray) -> jnp.ndarray:
    """Multiplicative decay ``w / (1 + shrink)`` (v2 ``applyL2``)."""
    return w * (1.0 / (1.0 + shrink))


class ModelAverage:
    """v2 model averaging: save the mean of recent parameter values.

    After every update the new value of each trained parameter is added to a
    running sum. Once the current window holds at least
    ``min(max_average_window, floor(num_updates * average_window))`` updates (and at
    least ``min(10000, max_average_window)``), it becomes the "old" window and a new
    one starts, so the average covers between one and two windows of updates:
    ``average = (sum_old + sum_recent) / (count_old + count_recent)``. Without
    ``max_average_window``, the number of batches of the last finished pass is the
    maximum (v2's ``AverageOptimizer``).

    Args:
        average_window: fraction of all updates to average over (0 disables).
        max_average_window: largest window in batches (default: the last pass's).
        do_average_in_cpu: accepted for v2 compatibility; ignored.

    Pass it to an optimizer as ``model_average=``; read the averages with
    ``optimizer.average_params(state, params)``.

    Example:
        >>> ModelAverage(average_window=0.5, max_average_window=10000).average_window
        0.5
    """

    def __init__(
        self,
        average_window: float,
        max_average_window: int | None = None,
        do_average_in_cpu: bool = False,
    ) -> None:
        self.average_window = number("ModelAverage", "average_window", average_window, 0.0)
        if max_average_window is not None and (
            isinstance(max_average_window, bool)
            or not isinstance(max_average_window, int)
            or max_average_window < 1
        ):
            raise OptimizerConfigError(
                "ModelAverage: max_average_window must be None or an int >= 1; "
                f"received {max_average_window!r}."
            )
        self.max_average_window = max_average_window
        self.do_average_in_cpu = bool(do_average_in_cpu)

    def __repr__(self) -> str:
        return (
            f"ModelAverage(average_window={self.average_window!r}, "
            f"max_average_window={self.max_average_window!r})"
        )


class ModelAverageState(NamedTuple):
    """Counters (int32 scalars) and per-parameter sums of ``model_average``."""

    num_updates: jnp.ndarray
    num_accumulates: jnp.ndarray
    old_num_accumulates: jnp.ndarray
    min_window: jnp.ndarray
    max_window: jnp.ndarray
    prev_num_updates: jnp.ndarray
    last_pass: jnp.ndarray
    sum_recent: dict[str, jnp.ndarray]
    sum_old: dict[str, jnp.ndarray]


def _finish_pass(state: ModelAverageState, pass_id, fixed_max: bool) -> ModelAverageState:
    """v2 ``finishPass`` of the previous pass, run when ``pass_id`` moves on."""
    new_pass = (jnp.asarray(pass_id, jnp.int32) > state.last_pass) & (state.num_updates > 0)
    in_pass = state.num_updates - state.prev_num_updates
    grow = new_pass & (not fixed_max) & (in_pass > 0)
    return state._replace(
        max_window=jnp.where(grow, in_pass, state.max_window),
        prev_num_updates=jnp.where(grow, state.num_updates, state.prev_num_updates),
        min_window=jnp.where(
            new_pass, jnp.minimum(state.min_window, state.num_updates), state.min_window
        ),
        last_pass=jnp.maximum(state.last_pass, jnp.asarray(pass_id, jnp.int32)),
    )


def _window_full(state: ModelAverageState, average_window: float) -> jnp.ndarray:
    """v2 ``isAverageWindowTooLong``: ``num_updates * average_window`` as v2's float64
    product truncated to an int (``wide_ints``), not float32's rounding of it."""
    acc = state.num_accumulates
    target = jnp.minimum(state.max_window, int_times_double(state.num_updates, average_window))
    return (acc >= state.min_window) & (acc >= target)


def model_average(average: ModelAverage) -> optax.GradientTransformationExtraArgs:
    """The optax transformation behind ``ModelAverage``.

    It passes ``updates`` through unchanged and adds ``params + updates`` (the new
    values) to its sums; put it last in a chain. ``update`` takes the extra keyword
    ``pass_id`` (a traced int scalar) to follow v2's per-pass window limit.

    Args:
        average: the settings.

    Returns:
        An ``optax.GradientTransformationExtraArgs`` whose state is a
        ``ModelAverageState``.

    Example:
        >>> tx = model_average(ModelAverage(0.5))
        >>> state = tx.init({"w": jnp.zeros(3)})
        >>> int(state.num_updates)
        0
    """
    fixed_max = average.max_average_window is not None
    max_window = average.max_average_window if fixed_max else INT32_MAX
    max_window = min(max_window, INT32_MAX)

    def init(params):
        zeros = {k: jnp.zeros_like(v) for k, v in params.items()}
        count = jnp.int32(0)
        return ModelAverageState(
            num_updates=count,
            num_accumulates=count,
            old_num_accumulates=count,
            min_window=jnp.int32(min(MIN_AVERAGE_WINDOW, max_window)),
            max_window=jnp.int32(max_window),
            prev_num_updates=count,
            last_pass=count,
            sum_recent=zeros,
            sum_old=dict(zeros),
        )

    def update(updates, state, params=None, *, pass_id=0, **extra):
        del extra
        state = _finish_pass(state, pass_id, fixed_max)
        state = state._replace(
            num_updates=state.num_updates + 1, num_accumulates=state.num_accumulates + 1
        )
        recent = {k: state.sum_recent[k] + params[k] + updates[k] for k in state.sum_recent}
        full = _window_full(state, average.average_window)
        state = state._replace(
            sum_old={k: jnp.where(full, v, state.sum_old[k]) for k, v in recent.items()},
            sum_recent={k: jnp.where(full, jnp.zeros_like(v), v) for k, v in recent.items()},
            old_num_accumulates=jnp.where(full, state.num_accumulates, state.old_num_accumulates),
            num_accumulates=jnp.where(full, 0, state.num_accumulates),
        )
        return updates, state

    return optax.GradientTransformationExtraArgs(init, update)


def averaged_params(state: ModelAverageState, params: dict[str, Any]) -> dict[str, Any]:
    """The averaged values: ``(sum_old + sum_recent) / (count_old + count_recent)``.

    Parameters the average does not track, and all of them before the first
    update, keep their current values. Pure jax (jit-able).

    Args:
        state: a ``ModelAverageState``.
        params: the current parameters, ``{name: array}``.

    Returns:
        A new dict with the same keys as ``params``.

    Example:
        >>> tx = model_average(ModelAverage(0.5))
        >>> p = {"w": jnp.ones(2)}
        >>> averaged_params(tx.init(p), p)["w"].tolist()
        [1.0, 1.0]
    """
    count = state.num_accumulates + state.old_num_accumulates
    scale = 1.0 / jnp.maximum(count, 1).astype(jnp.float32)
    out = dict(params)
    for name, recent in state.sum_recent.items():
        mean = (recent + state.sum_old[name]) * scale
        out[name] = jnp.where(count > 0, mean, params[name]).astype(jnp.asarray(params[name]).dtype)
    return out


def trainable_names(specs: Mapping[str, ParamSpec], frozen: Iterable[str]) -> tuple[str, ...]:
    """Names of ``specs`` that training updates: not static and not in ``frozen``."""
    frozen = frozenset(frozen)
    unknown = sorted(frozen - set(specs))
    if unknown:
        raise ParameterError(
            f"frozen parameter(s) {unknown} are not among the parameters {list(specs)}."
        )
    return tuple(n for n, s in specs.items() if not s.is_static and n not in frozen)


def clip_gradients(thresholds: dict[str, float]) -> optax.GradientTransformation:
    """Elementwise clip of each named gradient to ``[-t, t]`` (v2 per-parameter clip)."""

    def update(grads, state, params=None):
        del params
        return {
            k: jnp.clip(g, -thresholds[k], thresholds[k]) if k in thresholds else g
            for k, g in grads.items()
        }, state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update)


def only_trainable(
    inner: optax.GradientTransformation, trainable: tuple[str, ...], names: tuple[str, ...]
) -> optax.GradientTransformationExtraArgs:
    """Run ``inner`` on the ``trainable`` entries of a parameter dict only.

    The other names get updates of ``-0.0`` (so ``w + update`` is ``w`` bit for bit)
    and no state; extra keyword arguments go to ``inner``.

    Args:
        inner: a transformation of dicts keyed by parameter name.
        trainable: the names ``inner`` sees.
        names: every parameter name, in order.

    Returns:
        An ``optax.GradientTransformationExtraArgs`` over the full dict.
    """
    inner = optax.with_extra_args_support(inner)

    def init(params):
        missing = [n for n in names if n not in params]
        extra = [n for n in params if n not in names]
        if missing or extra:
            raise ParameterError(
                f"optimizer init: the parameter dict does not match the specs; missing "
                f"{missing}, unexpected {extra}."
            )
        return inner.init({k: params[k] for k in trainable})

    def update(grads, state, params=None, **extra):
        def pick(tree):
            return None if tree is None else {k: tree[k] for k in trainable}

        updates, state = inner.update(pick(grads), state, pick(params), **extra)
        ref = grads if params is None else params
        return {
            k: updates[k] if k in updates else jnp.full_like(ref[k], -0.0) for k in names
        }, state

    return optax.GradientTransformationExtraArgs(init, update)
