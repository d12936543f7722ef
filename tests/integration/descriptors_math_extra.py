"""Descriptors of the later v2 math layers (math.pairs, math.rows, math.learned,
selective_fc) for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq, Sparse

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(17)


def _dense(name, dim, **kw):
    value = RNG.normal(size=(3, dim)).astype(np.float32)
    return L.data(name=name, type=DT.dense_vector(dim), **kw), value


def _seq(name, dim):
    data = RNG.normal(size=(3, 5, dim)).astype(np.float32)
    layer = L.data(name=name, type=DT.dense_vector_sequence(dim))
    return layer, Seq(data, np.array([5, 2, 3], np.int32))


def _multiplex():
    (a, fa), (b, fb) = _dense("a", 4), _dense("b", 4)
    k = L.data(name="k", type=DT.integer_value(2))
    feeds = {"a": fa, "b": fb, "k": np.array([1, 0, 1], np.int32)}
    return L.multiplex(input=[k, a, b]), feeds


def _pair(fn, size_b=4):
    def build():
        (a, fa), (b, fb) = _dense("a", 4), _dense("b", size_b)
        return fn(a, b), {"a": fa, "b": fb}

    return build


def _single(fn, **kw):
    def build():
        x, fx = _dense("x", 12, **kw)
        return fn(x), {"x": fx}

    return build


def _factorization_machine():
    s = L.data(name="s", type=DT.sparse_float_vector(6))
    ids = np.array([[1, 5], [0, 0], [3, 2]], np.int32)
    vals = np.array([[0.5, -1.0], [2.0, 0.0], [1.0, 1.0]], np.float32)
    return L.factorization_machine(input=s, factor_size=3), {"s": Sparse(ids, vals)}


def _row_conv():
    s, fs = _seq("s", 4)
    return L.row_conv(input=s, context_len=3, act=paddle.activation.Relu()), {"s": fs}


def _gated_unit():
    x, fx = _dense("x", 4)
    return L.gated_unit(input=x, size=5, act=paddle.activation.Tanh()), {"x": fx}


def _slice_projection():
    x, fx = _dense("x", 12, height=2, width=2)
    proj = L.slice_projection(input=x, slices=[(0, 1), (2, 3)])
    return L.mixed(input=proj), {"x": fx}


def _selective_fc():
    x, fx = _dense("x", 4)
    cols = L.data(name="cols", type=DT.sparse_binary_vector(6))
    ids = np.array([[1, 4], [0, 5], [2, 3]], np.int32)
    select = Sparse(ids, np.ones((3, 2), np.float32))
    out = L.selective_fc(input=x, size=6, select=cols, act=paddle.activation.Softmax())
    return out, {"x": fx, "cols": select}


DESCRIPTORS = [
    {"name": "multiplex", "build": _multiplex, "shape": (3, 4)},
    {
        "name": "dot_prod",
        "build": _pair(lambda a, b: L.dot_prod(input1=a, input2=b)),
        "shape": (3, 1),
    },
    {"name": "l2_distance", "build": _pair(lambda a, b: L.l2_distance(x=a, y=b)), "shape": (3, 1)},
    {
        "name": "out_prod",
        "build": _pair(lambda a, b: L.out_prod(input1=a, input2=b), size_b=3),
        "shape": (3, 12),
    },
    {"name": "row_l2_norm", "build": _single(lambda x: L.row_l2_norm(input=x)), "shape": (3, 12)},
    {
        "name": "clip",
        "build": _single(lambda x: L.clip(input=x, min=-0.5, max=0.5)),
        "shape": (3, 12),
    },
    {"name": "scale_shift", "build": _single(lambda x: L.scale_shift(input=x)), "shape": (3, 12)},
    {
        "name": "prelu",
        "build": _single(lambda x: L.prelu(input=x, channel_shared=False), height=2, width=2),
        "shape": (3, 12),
    },
    {"name": "factorization_machine", "build": _factorization_machine, "shape": (3, 1)},
    {"name": "row_conv", "build": _row_conv, "shape": (3, 5, 4)},
    {"name": "gated_unit", "build": _gated_unit, "shape": (3, 5)},
    {"name": "slice_projection", "build": _slice_projection, "shape": (3, 8)},
    {"name": "selective_fc", "build": _selective_fc, "shape": (3, 6)},
]
