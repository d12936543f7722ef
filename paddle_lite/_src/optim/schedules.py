"""v2 learning-rate schedules: the global learning rate as a function of progress.

A schedule maps ``(n, pass_id)`` to a learning rate, where ``n`` is the number of
samples processed *including* the current batch (v2's updaters add the batch size
before they ask the schedule) and ``pass_id`` counts passes from 0. With
``a = learning_rate_decay_a`` and ``b = learning_rate_decay_b``:

====================  ==============================================================
``constant``          ``lr``
``poly`` (default)    ``lr * (1 + a*n) ** -b`` (``a = b = 0``: constant)
``caffe_poly``        ``lr * (1 - n/a) ** b``, and 0 once ``n > a``
``exp``               ``lr * a ** (n/b)``
``discexp``           ``lr * a ** floor(n/b)``
``linear``            ``max(lr - a*n, b)``
``manual``            ``lr * r_i`` for the first ``seg_i >= n`` in
                      ``learning_rate_args="seg_0:r_0,seg_1:r_1,..."``; the last
                      rate after the last segment
``pass_manual``       as ``manual``, keyed by ``pass_id``
====================  ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp

from paddle_lite._src.errors import PaddleLiteError, did_you_mean

Schedule = Callable[[jnp.ndarray, jnp.ndarray], jnp.ndarray]
_INT32_MAX = 2**31 - 1

SCHEDULES = (
    "caffe_poly",
    "constant",
    "discexp",
    "exp",
    "linear",
    "manual",
    "pass_manual",
    "poly",
)


class OptimizerConfigError(PaddleLiteError, ValueError):
    """An optimizer setting has a bad value (schedule, rate, window)."""


def parse_manual_args(args: str) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Parse v2's ``learning_rate_args="seg0:r0,seg1:r1,..."``.

    Args:
        args: comma-separated ``segment:rate`` pairs; segments are sample counts
            (``manual``) or pass numbers (``pass_manual``).

    Returns:
        ``(segments, rates)``, two tuples of equal, non-zero length.

    Example:
        >>> parse_manual_args("1000:1.0,2000:0.5")
        ((1000, 2000), (1.0, 0.5))
    """
    pieces = [p.strip() for p in str(args).split(",") if p.strip()]
    if not pieces:
        raise OptimizerConfigError(
            "learning_rate_args must list 'segment:rate' pairs for the manual schedules, "
            f"e.g. '1000:1.0,2000:0.5'; received {args!r}."
        )
    segments, rates = [], []
    for piece in pieces:
        seg, sep, rate = piece.partition(":")
        try:
            if not sep:
                raise ValueError(piece)
            segments.append(int(seg))
            rates.append(float(rate))
        except ValueError:
            raise OptimizerConfigError(
                f"learning_rate_args entry {piece!r} is not 'segment:rate' (an int and a float); "
                f"received learning_rate_args={args!r}."
            ) from None
    return tuple(segments), tuple(rates)


def _manual(lr: float, args: str, by_pass: bool) -> Schedule:
    segments, rates = parse_manual_args(args)
    # v2 compares the int64 count with each segment exactly; float32 would merge counts
    # past 2**24 (the counts here are int32, so larger segments are never reached)
    segs = jnp.asarray([max(min(s, _INT32_MAX), -_INT32_MAX - 1) for s in segments], jnp.int32)
    scaled = jnp.asarray([lr * r for r in rates], jnp.float32)

    def schedule(n, pass_id):
        key = jnp.asarray(pass_id if by_pass else n, jnp.int32)
        inside = key <= segs
        index = jnp.where(jnp.any(inside), jnp.argmax(inside), len(rates) - 1)
        return scaled[index]

    return schedule


def _check_b_positive(name: str, b: float) -> None:
    if not b > 0:
        raise OptimizerConfigError(
            f"learning_rate_schedule={name!r} divides by learning_rate_decay_b, which must be > 0; "
            f"received {b!r}."
        )


def make_schedule(name: str, lr: float, a: float, b: float, args: str = "") -> Schedule:
    """Build the v2 schedule ``name`` as a pure jax function ``(n, pass_id) -> lr``.

    Args:
        name: one of ``SCHEDULES``.
        lr: the base (global) learning rate.
        a, b: ``learning_rate_decay_a`` and ``learning_rate_decay_b``.
        args: ``learning_rate_args`` for ``manual`` / ``pass_manual``.

    Returns:
        A function of two integer scalars (samples processed including the current
        batch, pass id) returning a float32 scalar; jit-able.

    Example:
        >>> f = make_schedule("discexp", 0.1, 0.5, 100.0)
        >>> round(float(f(250, 0)), 6)
        0.025
    """
    if name not in SCHEDULES:
        raise OptimizerConfigError(
            f"unknown learning_rate_schedule {name!r}; expected one of {list(SCHEDULES)}."
            + did_you_mean(str(name), SCHEDULES)
        )
    if name in ("manual", "pass_manual"):
        return _manual(lr, args, by_pass=name == "pass_manual")
    if name in ("exp", "discexp"):
        _check_b_positive(name, b)
    formulas: dict[str, Callable[[jnp.ndarray], jnp.ndarray]] = {
        "constant": lambda n: jnp.full((), lr, jnp.float32),
        "poly": lambda n: lr * jnp.power(1.0 + a * n, -b),
        "caffe_poly": lambda n: jnp.where(
            n > a, 0.0, lr * jnp.power(jnp.maximum(1.0 - n / (a or 1.0), 0.0), b)
        ),
        "exp": lambda n: lr * jnp.power(a, n / b),
        "discexp": lambda n: lr * jnp.power(a, jnp.floor(n / b)),
        "linear": lambda n: jnp.maximum(lr - a * n, b),
    }
    if name == "poly" and (a == 0 or b == 0):
        name = "constant"  # (1 + 0 n)^-b and x^-0 are 1 exactly: no power in every step
    formula = formulas[name]

    def schedule(n, pass_id):
        del pass_id
        return formula(jnp.asarray(n, jnp.float32)).astype(jnp.float32)

    return schedule
