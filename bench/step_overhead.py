"""Per-step overhead of the training loop against bare loops over the same jitted step.

All sides run the same compiled step (the trainer's own) on the same batches,
alternating rounds so machine noise hits them alike:

- ``bare``: a plain Python loop that converts each batch of samples with the same
  feeder and calls the step — what a user would write by hand;
- ``bare, pre-converted``: the step alone, batches already converted and on the device
  (a lower bound: no data work at all);
- ``trainer.train``: the full loop (reader, background conversion, events, metrics).

Prints the best of the rounds for each (noise on a shared machine only adds time) and
the ratios of ``trainer.train`` to each.

Run: python bench/step_overhead.py [--steps 300] [--rounds 5]
"""

import argparse
import time

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.feeder import DataFeeder


def build(hidden):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(784))
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(10))
    h = paddle.layer.fc(input=x, size=hidden, act=paddle.activation.Relu())
    p = paddle.layer.fc(input=h, size=10, act=paddle.activation.Softmax())
    return paddle.layer.classification_cost(input=p, label=y)


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
    trainer.train(reader, num_passes=1)  # compile

    feeder = DataFeeder(trainer.__topology__.data_type())
    device_batches = [jax.device_put(feeder(b)) for b in reader()]

    def bare():
        trainer._load()
        for samples_batch in reader():
            total, _ = trainer._run_step(frozenset(), feeder(samples_batch), batch, 0)
        jax.block_until_ready(total)

    def preconverted():
        trainer._load()
        for feeds in device_batches:
            total, _ = trainer._run_step(frozenset(), feeds, batch, 0)
        jax.block_until_ready(total)

    def full():
        trainer.train(reader, num_passes=1)

    runs = {"bare": bare, "bare, pre-converted": preconverted, "trainer.train": full}
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    best = {name: min(t) for name, t in times.items()}  # noise only ever adds time
    print(f"device: {jax.devices()[0].platform}, steps: {steps}, batch: {batch}, hidden: {hidden}")
    for name, t in best.items():
        print(f"{name:20s}: {1e3 * t / steps:.3f} ms/step")
    train_t = best["trainer.train"]
    print(f"ratio trainer / bare: {train_t / best['bare']:.3f}")
    print(f"ratio trainer / bare, pre-converted: {train_t / best['bare, pre-converted']:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    main(args.steps, args.rounds, args.hidden, args.batch)
