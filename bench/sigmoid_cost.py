"""What v2's sigmoid costs in a recurrent training step, against JAX's own sigmoid.

paddle_lite's ``Sigmoid`` (the activation, and the LSTM and GRU gates) is v2's: the
argument clipped to ``[-40, 13]``, the derivative ``o (1 - o)`` of the clipped output
(``activations.v2_sigmoid``, a custom JVP). This trains one two-layer LSTM classifier
twice in one process, once as built and once with the activation replaced by
``jax.nn.sigmoid`` while its program is traced, and times whole passes of both,
alternating, so that machine noise hits them alike.

Prints each side's median and best ms per step and the ratio (as built / JAX's).

Run: python -m bench.sigmoid_cost [--rounds 8] [--batches 12]
"""

from __future__ import annotations

import argparse
import functools
import statistics
from typing import Any

import jax
import numpy as np

import paddle_lite as paddle
from bench import harness
from paddle_lite._src import activations

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
BATCH, VOCAB, HIDDEN = 32, 5000, 64


def build() -> Any:
    """An embedding, two LSTMs (the second reversed) and a max-pooled softmax, Adam."""
    words = L.data(name="w", type=DT.integer_value_sequence(VOCAB))
    label = L.data(name="y", type=DT.integer_value(2))
    proj = L.fc(input=L.embedding(input=words, size=32), size=HIDDEN * 4)
    first = L.lstmemory(input=proj)
    second = L.lstmemory(input=L.fc(input=[proj, first], size=HIDDEN * 4), reverse=True)
    pooled = L.pooling(input=second, pooling_type=paddle.pooling.Max())
    prob = L.fc(input=pooled, size=2, act=A.Softmax())
    cost = L.classification_cost(input=prob, label=label)
    params = paddle.parameters.create(cost)
    return paddle.trainer.SGD(cost, params, paddle.optimizer.Adam(learning_rate=1e-3))


def main(rounds: int, batches: int) -> None:
    rng = np.random.default_rng(0)
    samples = [
        (rng.integers(0, VOCAB, size=int(rng.integers(50, 100))).tolist(), int(rng.integers(2)))
        for _ in range(BATCH * batches)
    ]
    reader = paddle.batch(lambda: iter(samples), BATCH)
    as_built = activations.Sigmoid._fn
    trainers = {}
    for name, fn in [("v2 sigmoid", as_built), ("jax.nn.sigmoid", lambda _, z: jax.nn.sigmoid(z))]:
        activations.Sigmoid._fn = fn  # read while the first pass traces the program
        try:
            trainers[name] = build()
            trainers[name].train(reader, num_passes=1)
        finally:
            activations.Sigmoid._fn = as_built
    passes = {n: functools.partial(t.train, reader, num_passes=1) for n, t in trainers.items()}
    times = harness.interleaved(passes, rounds)
    for name, t in times.items():
        median, best = 1e3 * statistics.median(t) / batches, 1e3 * min(t) / batches
        print(f"{name:15s}: median {median:7.2f}, best {best:7.2f} ms/step")
    built, plain = times["v2 sigmoid"], times["jax.nn.sigmoid"]
    print(f"ratio v2 / jax: median {statistics.median(built) / statistics.median(plain):.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--batches", type=int, default=12)
    args = parser.parse_args()
    main(args.rounds, args.batches)
