"""Descriptors of the core layers for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq, Sparse

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(7)


def _dense(name, dim):
    return L.data(name=name, type=DT.dense_vector(dim)), RNG.normal(size=(3, dim)).astype(
        np.float32
    )


def _fc():
    (x, fx), (z, fz) = _dense("x", 5), _dense("z", 3)
    s = L.data(name="s", type=DT.sparse_binary_vector(7))
    ids = np.array([[1, 6], [0, 0], [3, 2]], np.int32)
    vals = np.array([[1, 1], [1, 0], [1, 1]], np.float32)
    return L.fc(input=[x, z, s], size=4), {"x": fx, "z": fz, "s": Sparse(ids, vals)}


def _embedding():
    w = L.data(name="w", type=DT.integer_value_sequence(11))
    ids = RNG.integers(0, 11, size=(3, 4)).astype(np.int32)
    return L.embedding(input=w, size=6), {"w": Seq(ids, np.array([4, 2, 1], np.int32))}


def _concat():
    (a, fa), (b, fb) = _dense("a", 2), _dense("b", 5)
    return L.concat(input=[a, b]), {"a": fa, "b": fb}


def _addto():
    (a, fa), (b, fb) = _dense("a", 4), _dense("b", 4)
    return L.addto(input=[a, b], bias_attr=True, act=paddle.activation.Relu()), {"a": fa, "b": fb}


def _dropout():
    a, fa = _dense("a", 6)
    return L.dropout(input=a, dropout_rate=0.5), {"a": fa}


DESCRIPTORS = [
    {"name": "fc", "build": _fc, "shape": (3, 4)},
    {"name": "embedding", "build": _embedding, "shape": (3, 4, 6)},
    {"name": "concat", "build": _concat, "shape": (3, 7)},
    {"name": "addto", "build": _addto, "shape": (3, 4)},
    {"name": "dropout", "build": _dropout, "shape": (3, 6)},
]
