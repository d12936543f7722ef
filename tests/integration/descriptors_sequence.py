"""Descriptors of the sequence layers (aggregation, concatenation, expansion,
reshaping, the context projection) for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.layers import mixed as MX
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.sequence import aggregate as AG
from paddle_lite._src.layers.sequence import pooling as S
from paddle_lite._src.layers.sequence import reshape as R
from paddle_lite._src.values import Seq

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(17)
LENGTHS = np.array([4, 1, 3], np.int32)


def _seq(name, dim, t=4, lengths=LENGTHS):
    layer = L.data(name=name, type=DT.dense_vector_sequence(dim))
    return layer, Seq(RNG.normal(size=(3, t, dim)).astype(np.float32), lengths)


def _nested(name, dim):
    layer = L.data(name=name, type=DT.dense_vector_sub_sequence(dim))
    data = RNG.normal(size=(3, 2, 4, dim)).astype(np.float32)
    sub = np.array([[4, 2], [1, 0], [3, 3]], np.int32)
    return layer, Seq(data, np.array([2, 1, 2], np.int32), sub)


def _pooling():
    n, fn = _nested("n", 5)
    out = S.pooling(
        input=n,
        pooling_type=paddle.pooling.Avg(),
        agg_level=AG.AggregateLevel.TO_SEQUENCE,
        bias_attr=True,
    )
    return out, {"n": fn}


def _last_seq():
    x, fx = _seq("x", 5)
    return S.last_seq(input=x), {"x": fx}


def _first_seq():
    x, fx = _seq("x", 5, t=8, lengths=np.array([8, 3, 5], np.int32))
    return S.first_seq(input=x, stride=3), {"x": fx}


def _seq_concat():
    (a, fa), (b, fb) = _seq("a", 4), _seq("b", 4, t=2, lengths=np.array([2, 0, 1], np.int32))
    return R.seq_concat(a=a, b=b, bias_attr=True), {"a": fa, "b": fb}


def _expand():
    v = L.data(name="v", type=DT.dense_vector(3))
    n, fn = _nested("n", 2)
    fv = RNG.normal(size=(3, 3)).astype(np.float32)
    return R.expand(input=v, expand_as=n), {"v": fv, "n": fn}


def _seq_reshape():
    x, fx = _seq("x", 6, lengths=np.array([4, 2, 2], np.int32))
    return R.seq_reshape(input=x, reshape_size=4, bias_attr=True), {"x": fx}


def _context_projection():
    x, fx = _seq("x", 3)
    proj = PR.context_projection(input=x, context_len=4, padding_attr=paddle.attr.Param())
    return MX.mixed(input=[proj]), {"x": fx}


DESCRIPTORS = [
    {"name": "pooling", "build": _pooling, "shape": (3, 2, 5)},
    {"name": "last_seq", "build": _last_seq, "shape": (3, 5)},
    {"name": "first_seq", "build": _first_seq, "shape": (3, 4, 5)},
    {"name": "seq_concat", "build": _seq_concat, "shape": (3, 8, 4)},
    {"name": "expand", "build": _expand, "shape": (3, 2, 4, 3)},
    {"name": "seq_reshape", "build": _seq_reshape, "shape": (3, 8, 4)},
    {"name": "context_projection", "build": _context_projection, "shape": (3, 4, 12)},
]
