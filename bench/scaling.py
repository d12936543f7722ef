"""Data-parallel scaling: samples/s on N devices against N x one device.

Each configuration runs in a fresh process (CPU host devices must exist before JAX
starts): the chapter-2 MLP and LeNet-5 train with ``paddle.init(trainer_count=N)`` on a
fixed global batch, timed over a pass after a warm-up pass, median of the repetitions.
Efficiency is ``samples/s with N devices / (N x samples/s with one)``. On a CPU the N
host devices share the machine's cores, so the figure measures what splitting a batch
costs there, not a speed-up; on a multi-GPU machine it measures scaling.

Run: python bench/scaling.py [--devices 1,2,4] [--models mlp,lenet] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

BATCH = 128
STEPS = {"mlp": 60, "lenet": 6}


def _network(paddle, model):
    images = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    relu = paddle.activation.Relu()
    if model == "mlp":
        h = paddle.layer.fc(input=images, size=128, act=relu)
        h = paddle.layer.fc(input=h, size=64, act=relu)
    else:
        h = images
        for channels, filters in ((1, 20), (20, 50)):
            h = paddle.networks.simple_img_conv_pool(
                input=h,
                filter_size=5,
                num_filters=filters,
                num_channel=channels,
                pool_size=2,
                pool_stride=2,
                act=relu,
            )
    predict = paddle.layer.fc(input=h, size=10, act=paddle.activation.Softmax())
    return paddle.layer.classification_cost(input=predict, label=label)


def child(model: str, devices: int, reps: int) -> None:
    """Measure one configuration; print its samples/s as JSON."""
    import paddle_lite as paddle

    paddle.init(trainer_count=devices, seed=1)
    cost = _network(paddle, model)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.1 / 128.0)
    trainer = paddle.trainer.SGD(cost, params, optimizer)
    rng = np.random.default_rng(0)
    n = BATCH * STEPS[model]
    x, y = rng.uniform(-1, 1, (n, 784)).astype(np.float32), rng.integers(0, 10, n)
    data = list(zip(x, y.tolist(), strict=True))
    reader = paddle.batch(lambda: iter(data), BATCH)
    trainer.train(reader, num_passes=1)  # compile and warm up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        trainer.train(reader, num_passes=1)
        times.append(time.perf_counter() - start)
    print(json.dumps({"samples_per_s": n / float(np.median(times))}))


def measure(model: str, devices: int, reps: int) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--child", model, str(devices), str(reps)],
        capture_output=True,
        check=True,
    )
    return json.loads(done.stdout.decode().strip().splitlines()[-1])["samples_per_s"]


def main(devices: list[int], models: list[str], reps: int) -> None:
    print(f"global batch {BATCH}; {reps} timed passes per configuration (median)")
    print("| model | devices | samples/s | efficiency |")
    print("| --- | ---: | ---: | ---: |")
    for model in models:
        one = None
        for n in devices:
            sps = measure(model, n, reps)
            one = sps if n == 1 else one
            efficiency = "" if one is None else f"{sps / (n * one):.2f}"
            print(f"| {model} | {n} | {sps:,.0f} | {efficiency} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--devices", default="1,2,4")
    parser.add_argument("--models", default="mlp,lenet")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    main([int(d) for d in args.devices.split(",")], args.models.split(","), args.reps)
