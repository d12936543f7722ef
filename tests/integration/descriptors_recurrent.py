"""Descriptors of the recurrent layers for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.layers.recurrent import basic as R
from paddle_lite._src.values import Seq

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(17)
LENGTHS = np.array([4, 1, 3], np.int32)


def _seq(width):
    x = L.data(name="x", type=DT.dense_vector_sequence(width))
    data = RNG.normal(size=(3, 4, width)).astype(np.float32)
    return x, {"x": Seq(data, LENGTHS)}


def _recurrent():
    x, feeds = _seq(5)
    return R.recurrent(input=x, reverse=True), feeds


def _lstmemory():
    x, feeds = _seq(12)
    return R.lstmemory(input=x), feeds


def _grumemory():
    x, feeds = _seq(9)
    return R.grumemory(input=x, reverse=True), feeds


DESCRIPTORS = [
    {"name": "recurrent", "build": _recurrent, "shape": (3, 4, 5)},
    {"name": "lstmemory", "build": _lstmemory, "shape": (3, 4, 3)},
    {"name": "grumemory", "build": _grumemory, "shape": (3, 4, 3)},
]
