"""How much host work per step a plain JAX training loop hides behind XLA's compute.

A loop fed from Python rows does host work between dispatches (reading the samples,
building the batch's arrays). XLA:CPU runs each step asynchronously, so that work can
overlap the step, but on a machine with few cores the two compete for them. This runs
the bench's plain JAX step over device batches, with ``X`` microseconds of Python busy
work after each dispatch, for several ``X``, in rotating rounds, and prints how much
wall time each ``X`` adds per step: ``+X`` means none of the host work is hidden, ``+0``
all of it.

Run: python -m bench.host_overlap [--model mlp] [--steps 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax

from bench import harness, models, sides

WORK_US = (0, 100, 200, 400, 800)


def _spin(us: float) -> None:
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def main(model_key: str, steps: int, rounds: int) -> None:
    harness.warm_up()
    model = models.registry("cpu")[model_key]
    plain = sides.JaxSide(model, "highest")
    plain.setup(harness.pass_groups(model, steps))

    def run(us: float) -> None:
        carry = plain.carry
        for batch in plain.batches:
            carry, _ = plain.step(carry, batch)
            _spin(us)
        plain.carry = jax.block_until_ready(carry)

    runs = {x: (lambda x=x: run(x)) for x in WORK_US}
    for r in runs.values():  # compile and warm
        r()
    times = harness.interleaved(runs, rounds)
    per_step = {x: 1e6 * statistics.median(t) / steps for x, t in times.items()}
    print(f"{model.title}: plain JAX step {per_step[0]:.0f} us (median of {rounds} rounds)")
    for x in WORK_US[1:]:
        extra = per_step[x] - per_step[0]
        print(f"  {x:4d} us of host work per step adds {extra:5.0f} us ({extra / x:.0%} of it)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    main(args.model, args.steps, args.rounds)
