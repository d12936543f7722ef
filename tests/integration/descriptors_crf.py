"""Descriptors of the linear-chain CRF layers (``crf``, ``crf_decoding``) for the
layer table test: a batch of 3 sequences of 4 tags, lengths 4, 1 and 3."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.layers.cost import crf as CRF
from paddle_lite._src.values import Seq

L, DT = paddle.layer, paddle.data_type
N = 4
LENGTHS = np.array([4, 1, 3], np.int32)


def _feeds(prefix):
    rng = np.random.default_rng(23)
    x = rng.normal(size=(3, 4, N)).astype(np.float32)
    y = rng.integers(0, N, size=(3, 4)).astype(np.int32)
    return {f"{prefix}_x": Seq(x, LENGTHS), f"{prefix}_y": Seq(y, LENGTHS)}


def _crf():
    x = L.data(name="crf_x", type=DT.dense_vector_sequence(N))
    y = L.data(name="crf_y", type=DT.integer_value_sequence(N))
    w = L.data(name="crf_w", type=DT.dense_vector(1))
    feeds = dict(_feeds("crf"), crf_w=np.array([[1.0], [0.5], [2.0]], np.float32))
    return CRF.crf(input=x, label=y, weight=w, coeff=0.5), feeds


def _crf_decoding():
    x = L.data(name="crfd_x", type=DT.dense_vector_sequence(N))
    return CRF.crf_decoding(input=x, size=N), _feeds("crfd")


DESCRIPTORS: list[dict] = [
    {"name": "crf", "build": _crf, "shape": (3, 1)},
    {"name": "crf_decoding", "build": _crf_decoding, "shape": (3, 4)},
]
