"""Plain-JAX LeNet-5 steps run K at a time: a jitted call per step, a rolled
``lax.scan`` over K stacked batches, and the same scan unrolled.

``python -m bench.scan_conv [--k 8] [--reps 5]`` times ``bench/jax_nets.py``'s LeNet-5
step (batch 128, Momentum) in the three ways, interleaved in a rotating order, and
prints the median milliseconds per step and each way's ratio to one call per step,
taken within a repetition. It is why ``steps_per_dispatch=K`` unrolls the scan of a
convolving step on a CPU (``paddle_lite/_src/training/steps.py``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp

from bench import harness, jax_nets, models


def ways(k: int) -> dict:
    """The three loops over ``k`` batches, each ``carry -> carry``."""
    model = models.registry("cpu")["lenet"]
    net = model.jax()
    step = jax_nets.make_step(net, "highest")
    body = step.__wrapped__
    batches = [jax.device_put(model.columns(g, None)) for g in harness.pass_groups(model, k)]
    stacked = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *batches)
    rolled = jax.jit(lambda c, b: jax.lax.scan(body, c, b)[0], donate_argnums=(0,))
    unrolled = jax.jit(lambda c, b: jax.lax.scan(body, c, b, unroll=True)[0], donate_argnums=(0,))

    def per_step(carry):
        for batch in batches:
            carry, _ = step(carry, batch)
        return carry

    return {
        "one call per step": per_step,
        "rolled scan": lambda carry: rolled(carry, stacked),
        "unrolled scan": lambda carry: unrolled(carry, stacked),
    }, jax_nets.init_carry(net)


def main(k: int, reps: int) -> None:
    runs, carry = ways(k)
    for run in runs.values():  # compile
        carry = jax.block_until_ready(run(carry))
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(reps):
        names = list(runs)[r % len(runs) :] + list(runs)[: r % len(runs)]
        for name in names:
            start = time.perf_counter()
            carry = jax.block_until_ready(runs[name](carry))
            times[name].append((time.perf_counter() - start) / k)
    base = times["one call per step"]
    print(f"device: {jax.devices()[0].platform}, LeNet-5 batch 128, K = {k}, {reps} reps")
    for name, t in times.items():
        ratio = statistics.median(b / x for b, x in zip(base, t, strict=True))
        ms = 1e3 * statistics.median(t)
        print(f"{name:18s} {ms:8.1f} ms/step  speed x one call: {ratio:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    main(args.k, args.reps)
