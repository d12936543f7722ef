"""Shared inputs of the sequence-layer tests: padded sequences whose padding is junk
(huge values and NaN), their valid steps in float64, and a runner that checks jit == eager."""

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq

DT = paddle.data_type
RNG = np.random.default_rng(11)
D = 3
LENGTHS = [4, 1, 0, 6]
# nested: sub-sequence counts, and steps per sub-sequence (the 0 of sample 2 is a real
# empty sub-sequence; entries past a sample's count are junk)
SUB_COUNTS = [2, 3, 0, 1]
SUB_LENGTHS = [[3, 1, 9], [2, 0, 4], [5, 5, 5], [4, 7, 7]]


def junk(shape):
    junk = RNG.normal(size=shape) * 1e6
    junk.flat[::7] = np.nan
    return junk


def seq_value(lengths=LENGTHS, t=8, d=D):
    data = junk((len(lengths), t, d))
    for b, n in enumerate(lengths):
        data[b, :n] = RNG.normal(size=(n, d))
    return Seq(data.astype(np.float32), np.array(lengths, np.int32))


def nested_value(counts=SUB_COUNTS, subs=SUB_LENGTHS, s=4, t=8, d=D):
    data = junk((len(counts), s, t, d))
    sub = np.full((len(counts), s), 99, np.int32)
    for b, c in enumerate(counts):
        for j in range(c):
            sub[b, j] = subs[b][j]
            data[b, j, : subs[b][j]] = RNG.normal(size=(subs[b][j], d))
    return Seq(data.astype(np.float32), np.array(counts, np.int32), sub)


def valid_steps(seq, b):
    """The valid steps of sample b, float64 (nested: the list of sub-sequences)."""
    data = np.asarray(seq.data, np.float64)
    if seq.sub_lengths is None:
        return data[b, : seq.lengths[b]]
    return [data[b, j, : seq.sub_lengths[b, j]] for j in range(seq.lengths[b])]


def seq_data(name, size=D):
    return paddle.layer.data(name=name, type=DT.dense_vector_sequence(size))


def nested_data(name, size=D):
    return paddle.layer.data(name=name, type=DT.dense_vector_sub_sequence(size))


def dense_data(name, size=D):
    return paddle.layer.data(name=name, type=DT.dense_vector(size))


def run(out, feeds, seed=5):
    params = {s.name: initialize(s, seed) for s in Topology(out).param_specs()}
    (value,), _ = forward([out], params, feeds)
    jitted = jax.jit(lambda p, f: forward([out], p, f)[0][0])(params, feeds)
    for a, b in zip(jax.tree.leaves(value), jax.tree.leaves(jitted), strict=True):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-6)
    return value, {k: np.asarray(v, np.float64) for k, v in params.items()}


def out_steps(value, b):
    return np.asarray(value.data)[b, : int(value.lengths[b])]


def valid_mask(seq):
    """Bool mask of the valid steps, ``[B, T]`` or nested ``[B, S, T]``, in numpy."""
    lengths = np.asarray(seq.lengths)
    if seq.sub_lengths is None:
        return np.arange(seq.data.shape[1])[None, :] < lengths[:, None]
    outer = np.arange(seq.data.shape[1])[None, :, None] < lengths[:, None, None]
    inner = np.arange(seq.data.shape[2])[None, None, :] < np.asarray(seq.sub_lengths)[..., None]
    return outer & inner
