"""Small v2 programs the v2-convention tests share: nets, readers, a trainer."""

from __future__ import annotations

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.evaluators.base import total_stats

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(3)


def binary_reader(n=40):
    x = RNG.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] + 0.3 * x[:, 1] > 0).astype(np.int64)

    def reader():
        yield from zip(x, y, strict=True)

    return reader


def binary_net():
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.integer_value(2))
    prob = L.fc(input=x, size=2, act=A.Softmax())
    return x, y, prob, L.classification_cost(input=prob, label=y)


def sgd(cost, extra_layers=None, lr=0.0, params=None):
    params = params or paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0, learning_rate=lr)
    return paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=optimizer, extra_layers=extra_layers
    ), params


def expected(evaluators, outputs_per_batch):
    """Metrics of ``evaluators`` from the layer values of each batch (a plain recount)."""
    out = {}
    for ev in evaluators:
        stats = [ev.batch_stats([b[layer.name] for layer in ev.inputs]) for b in outputs_per_batch]
        out.update(ev.result(total_stats(stats)))
    return out


def tagger():
    words = L.data(name="w", type=DT.integer_value_sequence(10))
    tags = L.data(name="t", type=DT.integer_value_sequence(5))
    emb = L.embedding(input=words, size=6)
    out = L.fc(input=emb, size=5, act=A.Softmax())
    return words, tags, out, L.classification_cost(input=out, label=tags)


def tag_reader():
    data = []
    for n in (3, 5, 2, 4, 6, 1):
        w = RNG.integers(0, 10, n).tolist()
        data.append((w, [(i * 3 + 1) % 5 for i in w]))

    def reader():
        yield from data

    return reader
