"""Shared helpers of the evaluator tests: data layers, padded sequences, pass metrics."""

from __future__ import annotations

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.evaluators.base import total_stats
from paddle_lite._src.values import Seq

RTOL = 1e-5
dt = paddle.data_type


def data(name, tp):
    return paddle.layer.data(name=name, type=tp)


def metrics(ev, *batches, jit=True):
    """The evaluator's metrics over several batches (value lists), stats summed."""
    fn = jax.jit(ev.batch_stats) if jit else ev.batch_stats
    return ev.result(total_stats([fn(list(b)) for b in batches]))


def padded(seqs, width=None, fill=0.0, dtype=np.float32):
    """A padded Seq from a list of arrays (padding filled with ``fill``)."""
    t = max(len(s) for s in seqs) + 2
    tail = () if width is None else (width,)
    out = np.full((len(seqs), t) + tail, fill, dtype)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = s
    return Seq(out, np.asarray([len(s) for s in seqs], np.int32))
