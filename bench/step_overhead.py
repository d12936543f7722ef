"""Per-step overhead of the training loop against bare loops over the same compiled step.

All rows run the trainer's own compiled step on the same batches, in rounds that
alternate so machine noise hits them alike:

- ``trainer.train``: the full loop (reader, conversion, device puts, events, metrics);
- ``bare, device_put``: a hand-written loop that converts each batch with the same
  feeder, puts it on the device with ``jax.device_put`` and calls the step;
- ``bare, numpy into the step``: the same, passing the numpy feeds to the jitted step
  (JAX copies them inside the call);
- ``bare, pre-converted``: the step alone over batches already on the device (a
  lower bound: no data work at all).

Prints the median of the rounds for each and the ratios of ``trainer.train`` to each.

Run: python bench/step_overhead.py [--steps 300] [--rounds 7] [--hidden 256] [--batch 128]
"""

import argparse
import statistics
import time

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.training.chunks import single
from paddle_lite._src.training.steps import OnNan


def build(hidden):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(784))
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(10))
    h = paddle.layer.fc(input=x, size=hidden, act=paddle.activation.Relu())
    p = paddle.layer.fc(input=h, size=10, act=paddle.activation.Softmax())
    return paddle.layer.classification_cost(input=p, label=y)


def bare_loop(trainer, batches, convert):
    """Run the trainer's step over ``batches``, each made ready by ``convert``."""
    device = trainer._device
    device.start(frozenset(), OnNan.RAISE)
    try:
        for i, batch in enumerate(batches):
            chunk = single(convert(batch))
            if i == 0:
                device.begin_pass(0, chunk.feeds[0])
            device.dispatch(chunk)
        jax.block_until_ready(device.state)
    finally:
        device.stop()


def main(steps, rounds, hidden, batch):
    rng = np.random.default_rng(0)
    samples = [
        (rng.random(784, dtype=np.float32), int(rng.integers(10))) for _ in range(batch * steps)
    ]
    cost = build(hidden)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost, params, paddle.optimizer.Momentum(momentum=0.9, learning_rate=1e-4)
    )
    reader = paddle.batch(lambda: iter(samples), batch)
    feeder = DataFeeder(trainer.__topology__.data_type())
    device_batches = [jax.device_put(feeder(b)) for b in reader()]
    runs = {
        "trainer.train": lambda: trainer.train(reader, num_passes=1),
        "bare, device_put": lambda: bare_loop(
            trainer, reader(), lambda b: jax.device_put(feeder(b))
        ),
        "bare, numpy into the step": lambda: bare_loop(trainer, reader(), feeder),
        "bare, pre-converted": lambda: bare_loop(trainer, device_batches, lambda b: b),
    }
    for run in runs.values():  # compile, and warm every path
        run()
    times = {name: [] for name in runs}
    for r in range(rounds):
        names = list(runs)[r % len(runs) :] + list(runs)[: r % len(runs)]
        for name in names:
            start = time.perf_counter()
            runs[name]()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"device: {jax.devices()[0].platform}, steps: {steps}, batch: {batch}, hidden: {hidden}")
    for name, t in median.items():
        print(f"{name:26s}: {1e3 * t / steps:.3f} ms/step (median of {rounds})")
    for name in list(runs)[1:]:
        print(f"ratio trainer / {name}: {median['trainer.train'] / median[name]:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    main(args.steps, args.rounds, args.hidden, args.batch)
