"""What checking the update for non-finite values costs chapter 2's MLP step.

Times the trainer's compiled step over batches already on the device, in one
process, with the non-finite check in four forms:

- ``cost + gradients``: the earlier check (one sum of ``x * 0`` per gradient), which
  let an overflowing update through;
- ``as built``: cost, gradients, new parameters and new optimizer state, one
  ``isfinite`` reduction per shape, then (on a CPU) a ``lax.cond`` that computes the
  update again in place into the donated buffers;
- ``as built, branch``: the same check and branch on every backend;
- ``no check``: the update applied unconditionally.

Every round runs all sides in a rotating order; the ratio is taken per round against
the ``cost + gradients`` side (median of the rounds, and the ratio of the fastest
rounds).

Run from the repository root: PYTHONPATH=. python bench/finite_check.py [--steps 100]
[--rounds 61] [--optimizer adam]
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import mnist_reference as ref
import step_program

import paddle_lite as paddle
from paddle_lite._src.training import steps


def _per_leaf(*trees):
    leaves = jax.tree_util.tree_leaves(trees)
    zeros = [jnp.sum(x * 0) for x in leaves if jnp.issubdtype(x.dtype, jnp.inexact)]
    return jnp.isfinite(sum(zeros)) if zeros else jnp.bool_(True)


def _branch(apply, update, state):
    def keep(state):
        return state.trainable, state.fixed, state.opt_state, state.totals

    return jax.lax.cond(apply, update, keep, state)


SIDES = {
    "cost + gradients": {"_made": lambda changed, updates: (), "_all_finite": _per_leaf},
    "as built": {},
    "as built, branch": {"_apply_if": _branch},
    "no check": {
        "_made": lambda changed, updates: (),
        "_all_finite": lambda *trees: jnp.bool_(True),
        "_apply_if": lambda apply, update, state: update(state),
    },
}


@contextlib.contextmanager
def patched(names: dict) -> Iterator[None]:
    saved = {k: getattr(steps, k) for k in names}
    for k, v in names.items():
        setattr(steps, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(steps, k, v)


def side(batches: list[dict], names: dict, optimizer: str) -> Callable[[], None]:
    """A pass of the trainer's compiled step over ``batches``, built with ``names``."""
    cost, opt = ref.lite_model("mlp")
    if optimizer == "adam":
        opt = paddle.optimizer.Adam(learning_rate=1e-3)
    return step_program.compiled_pass(cost, opt, batches, patched(names))


def main(steps_per_round: int, rounds: int, optimizer: str) -> None:
    rng = np.random.default_rng(0)
    batches = [
        jax.device_put(
            {
                "pixel": rng.random((ref.BATCH, 784), dtype=np.float32),
                "label": rng.integers(0, 10, ref.BATCH).astype(np.int32),
            }
        )
        for _ in range(steps_per_round)
    ]
    runs = {name: side(batches, names, optimizer) for name, names in SIDES.items()}
    for run in runs.values():
        run()
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            runs[name]()
            times[name].append(time.perf_counter() - start)
    base = times[names[0]]
    print(f"device: {jax.devices()[0].platform}, {optimizer}, {steps_per_round} steps × {rounds}")
    print("| check | ms/step (median) | × cost + gradients (median) | × (fastest rounds) |")
    print("| --- | ---: | ---: | ---: |")
    for name in names:
        ratio = statistics.median(t / b for t, b in zip(times[name], base, strict=True))
        ms = 1e3 * statistics.median(times[name]) / steps_per_round
        print(f"| {name} | {ms:.3f} | {ratio:.3f} | {min(times[name]) / min(base):.3f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=61)
    parser.add_argument("--optimizer", choices=["momentum", "adam"], default="momentum")
    args = parser.parse_args()
    main(args.steps, args.rounds, args.optimizer)
