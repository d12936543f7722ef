"""What chapter 2's MLP step program costs beyond plain JAX's, part by part.

Times the trainer's own compiled training step over batches already on the device
(no reader, no conversion, no events) against ``bench/jax_nets.py``'s plain JAX +
optax step over the same batches, with parts of the step left out:

- ``as built``: cost, gradients, update, the non-finite check and v2's
  ``classification_error`` evaluator with its pass totals;
- ``no evaluator``: ``classification_cost(..., evaluator=[])``;
- ``no finite check``: the update applied unconditionally (``on_nan`` disabled);
- ``neither``: both left out.

Each variant is its own trainer; every round runs all sides in a rotating order and
the ratio is taken per round against the plain JAX pass run in that round (median of
the rounds). The parts left out here are not optional in ``trainer.train``; this
shows where the step's time goes.

Run: python bench/step_program.py [--steps 300] [--rounds 9]
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
import jax_nets  # noqa: E402
import mnist_reference as ref  # noqa: E402

import paddle_lite as paddle  # noqa: E402
from paddle_lite._src.training import steps  # noqa: E402
from paddle_lite._src.training.chunks import single  # noqa: E402


@contextlib.contextmanager
def no_finite_check() -> Iterator[None]:
    """Build steps whose update is unconditional (no finite check, no branch)."""
    saved = steps._apply_if, steps._all_finite
    steps._apply_if = lambda apply, update, state: update(state)
    steps._all_finite = lambda *trees: jnp.bool_(True)
    try:
        yield
    finally:
        steps._apply_if, steps._all_finite = saved


def compiled_pass(cost, opt, batches: list[dict], building) -> Callable[[], None]:  # noqa: ANN001
    """A pass of the trainer's compiled step for ``cost`` over ``batches`` (feeds
    ``pixel``, ``label``), its programs built inside the context ``building``."""
    device = paddle.trainer.SGD(cost, paddle.parameters.create(cost), opt)._device
    with building:
        device.start(frozenset(), steps.OnNan.RAISE)
        device.begin_pass(0, batches[0])
        device.dispatch(single(batches[0]))  # compile now
    chunks = [single(feeds) for feeds in batches]

    def run() -> None:
        for chunk in chunks:
            device.dispatch(chunk)
        jax.block_until_ready(device.state)

    return run


def lite_side(batches: list[dict], evaluator: bool, finite: bool) -> Callable[[], None]:
    """A pass of the trainer's compiled step over ``batches`` (feeds ``pixel``, ``label``)."""
    cost, opt = ref.lite_model("mlp", evaluator=None if evaluator else [])
    return compiled_pass(
        cost, opt, batches, contextlib.nullcontext() if finite else no_finite_check()
    )


def jax_side(batches: list[dict]) -> Callable[[], None]:
    net = jax_nets.mlp()
    step = jax_nets.make_step(net)
    carry = [jax_nets.init_carry(net)]
    batches = [{"x": b["pixel"], "y": b["label"]} for b in batches]

    def run() -> None:
        c = carry[0]
        for batch in batches:
            c, _ = step(c, batch)
        carry[0] = jax.block_until_ready(c)

    return run


def main(steps_per_pass: int, rounds: int) -> None:
    rng = np.random.default_rng(0)
    batches = [
        jax.device_put(
            {
                "pixel": rng.random((ref.BATCH, 784), dtype=np.float32),
                "label": rng.integers(0, 10, ref.BATCH).astype(np.int32),
            }
        )
        for _ in range(steps_per_pass)
    ]
    sides = {
        "plain JAX": jax_side(batches),
        "as built": lite_side(batches, evaluator=True, finite=True),
        "no evaluator": lite_side(batches, evaluator=False, finite=True),
        "no finite check": lite_side(batches, evaluator=True, finite=False),
        "neither": lite_side(batches, evaluator=False, finite=False),
    }
    for run in sides.values():  # warm every side
        run()
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - start)
    print(f"device: {jax.devices()[0].platform}, {steps_per_pass} steps of batch {ref.BATCH}")
    print("| step | ms/step | × plain JAX |")
    print("| --- | ---: | ---: |")
    jax_times = times["plain JAX"]
    for name in names:
        ratio = statistics.median(j / t for j, t in zip(jax_times, times[name], strict=True))
        ms = 1e3 * statistics.median(times[name]) / steps_per_pass
        print(f"| {name} | {ms:.3f} | {ratio:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    main(args.steps, args.rounds)
