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

``--net tiny`` times a 16 -> 1 linear regression (square error, SGD) instead,
where the step's fixed costs (arguments, scalars, small fusions) dominate.

Run: python bench/step_program.py [--steps 300] [--rounds 9] [--net mlp|tiny]
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
import optax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import jax_nets
import mnist_reference as ref

import paddle_lite as paddle
from paddle_lite._src.training import steps
from paddle_lite._src.training.chunks import single


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


def compiled_pass(cost, opt, batches: list[dict], building) -> Callable[[], None]:
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


def tiny_model() -> tuple:
    """``fc(16 -> 1)``, square error, SGD at lr 1e-3: ``(cost, optimizer)``."""
    paddle.layer.reset_names()
    x = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(16))
    y = paddle.layer.data(name="label", type=paddle.data_type.dense_vector(1))
    pred = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    cost = paddle.layer.square_error_cost(input=pred, label=y)
    return cost, paddle.optimizer.Momentum(momentum=0, learning_rate=1e-3)


def tiny_net() -> jax_nets.JaxNet:
    """The plain JAX side of :func:`tiny_model`."""

    def loss(p, s, b, key):
        return jnp.sum(jnp.square(b["x"] @ p["w"] + p["b"] - b["y"])), s

    init = lambda key: (jax_nets.dense(key, 16, 1), {})  # noqa: E731
    return jax_nets.JaxNet(init, loss, optax.sgd(1e-3))


def lite_side(
    batches: list[dict], evaluator: bool, finite: bool, net: str = "mlp"
) -> Callable[[], None]:
    """A pass of the trainer's compiled step over ``batches`` (feeds ``pixel``, ``label``)."""
    if net == "tiny":
        cost, opt = tiny_model()
    else:
        cost, opt = ref.lite_model("mlp", evaluator=None if evaluator else [])
    return compiled_pass(
        cost, opt, batches, contextlib.nullcontext() if finite else no_finite_check()
    )


def jax_side(batches: list[dict], net: str = "mlp") -> Callable[[], None]:
    net = tiny_net() if net == "tiny" else jax_nets.mlp()
    step = jax_nets.make_step(net)
    carry = [jax_nets.init_carry(net)]
    batches = [{"x": b["pixel"], "y": b["label"]} for b in batches]

    def run() -> None:
        c = carry[0]
        for batch in batches:
            c, _ = step(c, batch)
        carry[0] = jax.block_until_ready(c)

    return run


def _batch(rng: np.random.Generator, net: str) -> dict:
    if net == "tiny":
        x, y = rng.random((ref.BATCH, 16), np.float32), rng.random((ref.BATCH, 1), np.float32)
    else:
        x = rng.random((ref.BATCH, 784), dtype=np.float32)
        y = rng.integers(0, 10, ref.BATCH).astype(np.int32)
    return jax.device_put({"pixel": x, "label": y})


def main(steps_per_pass: int, rounds: int, net: str = "mlp") -> None:
    rng = np.random.default_rng(0)
    batches = [_batch(rng, net) for _ in range(steps_per_pass)]
    sides = {"plain JAX": jax_side(batches, net)}
    for name, evaluator, finite in (
        ("as built", True, True),
        ("no evaluator", False, True),
        ("no finite check", True, False),
        ("neither", False, False),
    ):
        if net == "mlp" or evaluator:  # the tiny model has no evaluator
            sides[name] = lite_side(batches, evaluator, finite, net)
    for run in sides.values():  # warm every side
        run()
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            sides[name]()
            times[name].append(time.perf_counter() - start)
    platform = jax.devices()[0].platform
    print(f"device: {platform}, {net}, {steps_per_pass} steps of batch {ref.BATCH}")
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
    parser.add_argument("--net", choices=["mlp", "tiny"], default="mlp")
    args = parser.parse_args()
    main(args.steps, args.rounds, args.net)
