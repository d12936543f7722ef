"""Chapter 2 at each ``paddle.init(precision=...)``: test accuracy and seconds per pass.

The three networks train with the book's hyper-parameters on the same MNIST images in
the same order from the same initial values (``bench/mnist_reference.py``'s setup), once
per precision, side by side. ``bfloat16`` is mixed precision: float32 parameters,
optimizer state and costs, layers computing in bfloat16.

With ``--seeds N`` each network trains N times per precision: run ``s`` shuffles the
images with seed ``s`` and initialises the parameters with ``paddle.init(seed=s)``, the
same for every precision. A chaotic run (the MLP at the book's rate) then shows as the
spread over seeds, and the precisions are compared by the paired difference per seed:
its mean, its standard deviation and the largest. ``--lr-scale`` multiplies the book's
learning rate (0.1 / 128), to compare the precisions where training is stable.

Run (needs the MNIST files in the data home, e.g. PADDLE_LITE_DATA_HOME=../shared/datasets):
python bench/precision.py [--passes 5] [--nets softmax,mlp,lenet]
[--precisions float32,bfloat16] [--seeds 1] [--lr-scale 1]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import mnist_reference as ref

import paddle_lite as paddle


def accuracies(net, train, test, passes, precisions, seed, lr):
    """``{precision: (accuracy, seconds per pass)}`` of one seed's runs."""
    order = np.random.default_rng(seed).permutation(len(train))
    n = len(train) // ref.BATCH * ref.BATCH
    samples = [train[i] for i in order[:n]]
    out = {}
    for precision in precisions:
        paddle.init(precision=precision, seed=seed)
        acc, seconds, _ = ref.lite_train(net, samples, test, passes, lr)
        out[precision] = (100 * acc, seconds)
    return out


def _spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.2f}%"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}%"


def main(passes: int, nets: list[str], precisions: list[str], seeds: int, lr_scale: float) -> None:
    train = list(paddle.dataset.mnist.train()())
    test = list(paddle.dataset.mnist.test()())
    n = len(train) // ref.BATCH * ref.BATCH
    lr = ref.LR * lr_scale
    print(
        f"MNIST: {n} training images, {len(test)} test images, {passes} passes, {seeds} seeds, "
        f"learning rate {lr_scale:g} x 0.1/128"
    )
    first, *others = precisions
    head = [f"{p} acc | {p} s/pass" for p in precisions]
    head += [f"{p} − {first}: mean ± sd | worst" for p in others]
    print("| net | " + " | ".join(head) + " |")
    print("| --- |" + " ---: | ---: |" * len(precisions) + " ---: | ---: |" * len(others))
    for net in nets:
        runs = [accuracies(net, train, test, passes, precisions, s, lr) for s in range(seeds)]
        cells = []
        for p in precisions:
            cells += [_spread([r[p][0] for r in runs]), f"{np.median([r[p][1] for r in runs]):.2f}"]
        for p in others:
            diff = [r[p][0] - r[first][0] for r in runs]
            cells += [_spread(diff).rstrip("%") + " pts", f"{max(diff, key=abs):+.2f} pts"]
        print(f"| {net} | " + " | ".join(cells) + " |", flush=True)
    paddle.init()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--nets", default="softmax,mlp,lenet")
    parser.add_argument("--precisions", default="float32,bfloat16")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--lr-scale", type=float, default=1.0)
    args = parser.parse_args()
    nets, precisions = args.nets.split(","), args.precisions.split(",")
    main(args.passes, nets, precisions, args.seeds, args.lr_scale)
