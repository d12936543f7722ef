"""paddle_lite's CPU choices for convolution nets, each measured against leaving it out.

``python -m bench.cpu_conv_variants [--model lenet|resnet] [--reps 6] [--steps 10]
[--cpu-time] [--no-torch]`` times ``trainer.train`` over a model of ``python -m bench``
(chapter 2's LeNet-5 or chapter 3's ResNet-32) in one process, the sides interleaved in
a rotating order:

- ``as built``: paddle_lite as it is;
- ``YNNPACK convolutions``: its programs compiled with XLA:CPU's default options, which
  hand convolutions to YNNPACK (``xla_options``);
- ``residual stream fused``: each residual ``addto`` of a channels-last chain left to
  XLA's fusion, which recomputes the stream from the stage's first block inside every
  consumer (``channels_last.settled`` replaced by the identity);
- plain JAX (NCHW) with XLA's default options, the baseline of ``python -m bench``, and
  the same with paddle_lite's options (``plain JAX, its options``);
- PyTorch ``channels_last`` on the CPU, where torch is installed.

Prints the median time per step of each side and each side's speed relative to plain
JAX, taken per repetition (median, min..max). ``--cpu-time`` measures the process's CPU
time instead of wall-clock time: on a shared machine it moves less with other load.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator

from bench import harness, models, sides
from paddle_lite._src.lowering import channels_last, xla_options


@contextlib.contextmanager
def _left_out(variant: str) -> Iterator[None]:
    """paddle_lite with one of its choices undone while a side compiles."""
    settled, chosen = channels_last.settled, xla_options.options
    if variant == "residual stream fused":
        channels_last.settled = lambda out, inputs: out
    elif variant == "YNNPACK convolutions":
        xla_options.options = dict
    try:
        yield
    finally:
        channels_last.settled, xla_options.options = settled, chosen


def _sides(model, groups, torch: bool) -> list:
    built = []
    for variant in ("as built", "YNNPACK convolutions", "residual stream fused"):
        if variant == "residual stream fused" and model.key != "resnet":
            continue
        with _left_out(variant):  # the programs compile on the first run
            side = sides.LiteSide(model, variant)
            side.setup(groups)
            side.run()
        built.append(side)
    plain = sides.JaxSide(model, "highest")
    tuned = sides.JaxSide(model, "highest", compiler_options=xla_options.options())
    tuned.name = "plain JAX, its options"
    others = [plain, tuned]
    if torch:
        from bench import torch_nets

        others.append(sides.TorchSide(model, torch_nets, "cpu", channels_last=True))
        others[-1].name = "PyTorch channels_last"
    for side in others:
        side.setup(groups)
        side.run()
    built += others
    return built


def main(key: str, reps: int, steps: int, cpu_time: bool, torch: bool) -> None:
    clock = time.process_time if cpu_time else time.perf_counter
    model = models.registry("cpu")[key]
    harness.warm_up()
    all_sides = _sides(model, harness.pass_groups(model, steps), torch)
    times = harness.interleaved({s.name: s.run for s in all_sides}, reps, clock)
    plain = times["plain JAX"]
    print(f"{model.title}, {steps} steps of batch {model.batch}, {reps} repetitions")
    for name, ts in times.items():
        ratios = [p / t for t, p in zip(ts, plain, strict=True)]
        print(
            f"{name:24s} {1e3 * statistics.median(ts) / steps:9.1f} ms/step  x plain JAX "
            f"{statistics.median(ratios):.2f} ({min(ratios):.2f}..{max(ratios):.2f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["lenet", "resnet"], default="resnet")
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    main(args.model, args.reps, args.steps, args.cpu_time, not args.no_torch)
