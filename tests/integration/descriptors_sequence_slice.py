"""Descriptors of the sequence selection layers (kmax_seq_score, sub_nested_seq,
seq_slice, sub_seq) and the beam cost (cross_entropy_over_beam, BeamInput)."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(29)
B, LENGTHS = 3, np.array([4, 1, 3], np.int32)


def _seq(name, dim):
    layer = L.data(name=name, type=DT.dense_vector_sequence(dim))
    return layer, Seq(RNG.normal(size=(B, 4, dim)).astype("f4"), LENGTHS)


def _nested(name, dim):
    layer = L.data(name=name, type=DT.dense_vector_sub_sequence(dim))
    data = RNG.normal(size=(B, 2, 4, dim)).astype("f4")
    sub = np.array([[4, 2], [1, 0], [3, 3]], np.int32)
    return layer, Seq(data, np.array([2, 1, 2], np.int32), sub)


def _rows(name, rows):
    rows = np.array(rows, "f4")
    return L.data(name=name, type=DT.dense_vector(rows.shape[1])), rows


def _kmax():
    s, fs = _seq("s", 1)
    return L.kmax_seq_score(input=s, beam_size=2), {"s": fs}


def _sub_nested_seq():
    (n, fn), (i, fi) = _nested("n", 3), _rows("i", [[1, 0], [0, -1], [1, 1]])
    return L.sub_nested_seq(input=n, selected_indices=i), {"n": fn, "i": fi}


def _seq_slice():
    (x, fx), (s, fs) = _seq("x", 3), _rows("s", [[0, 2], [0, -1], [1, 0]])
    e = _rows("e", [[1, 3], [0, -1], [2, 1]])
    return L.seq_slice(input=x, starts=s, ends=e[0]), {"x": fx, "s": fs, "e": e[1]}


def _sub_seq():
    x, fx = _seq("x", 3)
    off = L.data(name="off", type=DT.integer_value(4))
    size = L.data(name="size", type=DT.integer_value(4))
    feeds = {"x": fx, "off": np.array([1, 0, 2], np.int32), "size": np.array([3, 1, 1], np.int32)}
    out = L.sub_seq(input=x, offsets=off, sizes=size, bias_attr=paddle.attr.Param())
    return out, feeds


def _beam():
    (s0, fs0), (s1, fs1) = _seq("s0", 1), _nested("s1", 1)
    top0 = L.kmax_seq_score(input=s0, beam_size=2)
    c1 = L.data(name="c1", type=DT.dense_vector_sequence(2))
    fc1 = Seq(
        np.array([[[0, 1], [1, 0]], [[0, -1], [0, 0]], [[2, 1], [0, 2]]], "f4"),
        np.array([2, 1, 2], np.int32),
    )
    g0 = L.data(name="g0", type=DT.integer_value(4))
    g1 = L.data(name="g1", type=DT.integer_value(4))
    cost = L.cross_entropy_over_beam(
        input=[
            L.BeamInput(candidate_scores=s0, selected_candidates=top0, gold=g0),
            L.BeamInput(candidate_scores=s1, selected_candidates=c1, gold=g1),
        ]
    )
    gold = np.array([0, 0, 2], np.int32)
    return cost, {"s0": fs0, "s1": fs1, "c1": fc1, "g0": gold, "g1": gold[::-1].copy()}


DESCRIPTORS = [
    {"name": "kmax_seq_score", "build": _kmax, "shape": (B, 2)},
    {"name": "sub_nested_seq", "build": _sub_nested_seq, "shape": (B, 2, 4, 3)},
    {"name": "seq_slice", "build": _seq_slice, "shape": (B, 2, 4, 3)},
    {"name": "sub_seq", "build": _sub_seq, "shape": (B, 4, 3)},
    {"name": "cross_entropy_over_beam", "build": _beam, "shape": (B, 1)},
    {"name": "BeamInput", "build": _beam, "shape": (B, 1)},
]
