"""ResNet training step with and without the residual sums kept whole, on this machine.

``python -m bench.residual_chain [--reps 6] [--steps 10] [--cpu-time]`` times
``trainer.train`` over the chapter 3 ResNet-32 of ``python -m bench`` (CIFAR shape,
batch 32) three ways in one process, interleaved in a rotating order:

- ``settled``: paddle_lite as it is, each residual ``addto`` of a channels-last chain
  passed through ``channels_last.settled`` (a conditional XLA's fusion cannot cross);
- ``fused``: the same trainer built with ``settled`` replaced by the identity, so XLA:CPU
  fuses the residual stream into its consumers and recomputes it from the stage's first
  block in each (the transposed copies the filter gradients read);
- plain JAX (NCHW), the baseline row of ``python -m bench``.

Prints the median time per step of each side and, per repetition, each paddle_lite
side's speed relative to plain JAX. ``--cpu-time`` measures the process's CPU time
instead of wall-clock time: on a shared machine it moves less with other load.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench import harness, models, sides
from paddle_lite._src import channels_last


def _sides(model, groups):  # noqa: ANN001, ANN202
    settled = channels_last.settled
    built = []
    for fn, name in ((lambda out, inputs: out, "fused"), (settled, "settled")):
        channels_last.settled = fn  # read when the step is traced, on its first run
        try:
            side = sides.LiteSide(model, name)
            side.setup(groups)
            side.run()
        finally:
            channels_last.settled = settled
        built.append(side)
    plain = sides.JaxSide(model, "highest")
    plain.setup(groups)
    plain.run()
    return [*built, plain]


def main(reps: int, steps: int, cpu_time: bool) -> None:
    clock = time.process_time if cpu_time else time.perf_counter
    model = models.registry("cpu")["resnet"]
    harness.warm_up()
    all_sides = _sides(model, harness.pass_groups(model, steps))
    times = {s.name: [] for s in all_sides}
    for r in range(reps):
        k = r % len(all_sides)
        for side in all_sides[k:] + all_sides[:k]:
            start = clock()
            side.run()
            times[side.name].append(clock() - start)
    plain = all_sides[-1].name
    print(f"{model.title}, {steps} steps of batch {model.batch}, {reps} repetitions")
    for name, ts in times.items():
        print(f"{name:10s} {1e3 * statistics.median(ts) / steps:9.1f} ms/step")
    for name in ("fused", "settled"):
        ratios = [p / t for t, p in zip(times[name], times[plain], strict=True)]
        print(f"{name} x plain JAX: median {statistics.median(ratios):.2f}", end=" ")
        print(f"({min(ratios):.2f}..{max(ratios):.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--cpu-time", action="store_true")
    args = parser.parse_args()
    main(args.reps, args.steps, args.cpu_time)
