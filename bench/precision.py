"""Chapter 2 at each ``paddle.init(precision=...)``: test accuracy and seconds per pass.

The three networks train with the book's hyper-parameters on the same MNIST images in
the same order from the same initial values (``bench/mnist_reference.py``'s setup), once
per precision, side by side. ``bfloat16`` is mixed precision: float32 parameters,
optimizer state and costs, layers computing in bfloat16.

Run (needs the MNIST files in the data home, e.g. PADDLE_LITE_DATA_HOME=../shared/datasets):
python bench/precision.py [--passes 5] [--nets softmax,mlp,lenet]
[--precisions float32,bfloat16]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import mnist_reference as ref  # noqa: E402

import paddle_lite as paddle  # noqa: E402


def main(passes: int, nets: list[str], precisions: list[str]) -> None:
    rng = np.random.default_rng(0)
    train = list(paddle.dataset.mnist.train()())
    train = [train[i] for i in rng.permutation(len(train))]
    test = list(paddle.dataset.mnist.test()())
    n = len(train) // ref.BATCH * ref.BATCH
    print(f"MNIST: {n} training images, {len(test)} test images, {passes} passes")
    print("| net | " + " | ".join(f"{p} acc | {p} s/pass" for p in precisions) + " |")
    print("| --- |" + " ---: | ---: |" * len(precisions))
    for net in nets:
        cells = []
        for precision in precisions:
            paddle.init(precision=precision)
            acc, seconds, _ = ref.lite_train(net, train[:n], test, passes)
            cells += [f"{100 * acc:.2f}%", f"{seconds:.2f}"]
        print(f"| {net} | " + " | ".join(cells) + " |", flush=True)
    paddle.init()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--nets", default="softmax,mlp,lenet")
    parser.add_argument("--precisions", default="float32,bfloat16")
    args = parser.parse_args()
    main(args.passes, args.nets.split(","), args.precisions.split(","))
