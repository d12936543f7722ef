"""``pooling(pooling_type=Max(output_max_index=True))`` against a numpy transcription of
v2's ``CpuMatrix::maxSequenceForward`` over the batch's packed instances."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.layers.sequence import aggregate as AG
from paddle_lite._src.layers.sequence import pooling as S
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError

try:
    from tests.unit import _sequence_fixtures as sf
except ImportError:
    import _sequence_fixtures as sf

P, AGG = paddle.pooling, AG.AggregateLevel


def _max_sequence_forward(packed, starts):
    """v2's loop: per (sub-)sequence and feature, the first instance holding the maximum
    (replaced only by a strictly greater value); an empty one keeps its start."""
    out = np.zeros((len(starts) - 1, packed.shape[1]), np.float32)
    for i in range(len(starts) - 1):
        for k in range(packed.shape[1]):
            best, where = packed[starts[i], k] if starts[i] < len(packed) else 0.0, starts[i]
            for ins in range(starts[i] + 1, starts[i + 1]):
                if packed[ins, k] > best:
                    best, where = packed[ins, k], ins
            out[i, k] = where
    return out


def _packed(seq):
    """v2's Argument of a padded value: the valid rows laid end to end, the sequence
    start positions and (nested) the sub-sequence start positions."""
    rows, seq_starts, sub_starts = [], [0], [0]
    for b in range(len(seq.lengths)):
        steps = sf.valid_steps(seq, b)
        subs = steps if seq.sub_lengths is not None else [steps]
        for sub in subs:
            rows.extend(sub)
            sub_starts.append(len(rows))
        seq_starts.append(len(rows))
    packed = np.array(rows, np.float32).reshape(-1, sf.D)
    return packed, seq_starts, sub_starts


def _with_ties(seq):
    """Round the values so that equal maxima occur (the first one must win)."""
    return seq._replace(data=np.round(np.asarray(seq.data) * 2) / 2)


@pytest.mark.parametrize("nested, agg", [(False, None), (True, "non-seq"), (True, "seq")])
def test_output_max_index_is_v2s_packed_instance_index(nested, agg):
    value = _with_ties(sf.nested_value() if nested else sf.seq_value())
    x = sf.nested_data("x") if nested else sf.seq_data("x")
    pool = S.pooling(
        input=x,
        pooling_type=P.Max(output_max_index=True),
        agg_level=agg or AGG.TO_NO_SEQUENCE,
        bias_attr=True,  # v2 creates the bias but does not add it
    )
    out, _ = sf.run(pool, {"x": value})
    packed, seq_starts, sub_starts = _packed(value)
    starts = sub_starts if agg == "seq" else seq_starts
    want = _max_sequence_forward(packed, starts)
    if agg == "seq":
        got = np.concatenate([sf.out_steps(out, b) for b in range(len(value.lengths))])
    else:
        got = np.asarray(out)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32


def _stride_starts(seq_starts, stride):
    """v2's poolSequenceWithStride (not reversed): windows of ``stride`` rows from each
    sequence's start."""
    starts = []
    for lo, hi in zip(seq_starts[:-1], seq_starts[1:], strict=True):
        starts.extend(range(lo, hi, stride))
    return starts + [seq_starts[-1]]


def _unpack(packed_grad, seq):
    """A gradient over the packed rows, back at the padded positions of ``seq``."""
    grad, row = np.zeros(np.shape(seq.data)), 0
    for b in range(len(seq.lengths)):
        subs = range(seq.lengths[b]) if seq.sub_lengths is not None else [None]
        for j in subs:
            n = seq.sub_lengths[b, j] if j is not None else seq.lengths[b]
            at = (b, j) if j is not None else (b,)
            grad[at][:n] = packed_grad[row : row + n]
            row += n
    return grad


@pytest.mark.parametrize(
    "nested, agg, stride",
    [(False, "non-seq", -1), (False, "non-seq", 2), (True, "non-seq", -1), (True, "seq", -1)],
)
def test_max_pooling_gradient_goes_to_the_first_maximum_as_in_v2(nested, agg, stride):
    """v2's maxSequenceBackward adds each output gradient to the one instance that
    maxSequenceForward recorded (the first maximum); tied steps after it get nothing."""
    value = _with_ties(sf.nested_value() if nested else sf.seq_value([4, 1, 0, 6]))
    data = np.round(np.asarray(value.data) * 0.6)  # many ties
    data[..., 1, :] = data[..., 0, :]  # and surely some: step 1 repeats step 0
    value = value._replace(data=data)
    x = sf.nested_data("x") if nested else sf.seq_data("x")
    pool = S.pooling(input=x, agg_level=agg, stride=stride)
    out, _ = sf.run(pool, {"x": value})
    w = np.random.default_rng(4).normal(size=np.shape(getattr(out, "data", out)))

    def loss(data):
        (v,), _ = forward([pool], {}, {"x": value._replace(data=data)})
        return jnp.sum(jnp.asarray(w, jnp.float32) * getattr(v, "data", v))

    grad = np.asarray(jax.grad(loss)(jnp.asarray(value.data)), np.float64)
    packed, seq_starts, sub_starts = _packed(value)
    starts = sub_starts if agg == "seq" else seq_starts
    starts = _stride_starts(starts, stride) if stride > 0 else starts
    where = _max_sequence_forward(packed, starts).astype(int)
    out_w = w  # one row per sample, or a sequence's valid rows in order
    if isinstance(out, Seq):
        out_w = np.concatenate([w[b, : out.lengths[b]] for b in range(len(out.lengths))])
    packed_grad = np.zeros_like(packed, np.float64)
    for i in range(len(starts) - 1):
        if starts[i + 1] > starts[i]:  # v2's backward (an empty sequence has no rows)
            for k in range(sf.D):
                packed_grad[where[i, k], k] += out_w[i, k]
    assert len(np.unique(packed, axis=0)) < len(packed)  # equal maxima do occur
    np.testing.assert_allclose(grad, _unpack(packed_grad, value), rtol=1e-6)


def test_output_max_index_of_a_non_sequence_is_the_row():
    x = sf.dense_data("x")
    pool = S.pooling(input=x, pooling_type=P.Max(output_max_index=True))
    out, _ = sf.run(pool, {"x": np.ones((3, sf.D), np.float32)})
    np.testing.assert_array_equal(np.asarray(out), np.repeat(np.arange(3.0)[:, None], sf.D, 1))


def test_output_max_index_runs_in_inference_but_refuses_a_gradient():
    x = sf.seq_data("x")
    hidden = paddle.layer.fc(input=x, size=sf.D, name="hidden")
    pool = S.pooling(input=hidden, pooling_type=P.Max(True), name="where")
    params = {p.name: np.ones(p.shape, np.float32) for p in hidden.params}
    feeds = {"x": sf.seq_value()}
    (value,), _ = forward([pool], params, feeds)
    assert np.asarray(value).shape == (len(sf.LENGTHS), sf.D)

    def loss(p):
        (v,), _ = forward([pool], p, feeds)
        return v.sum()

    with pytest.raises(LayerConfigError, match=r"'where' \(max\).*no gradient"):
        jax.grad(loss)(params)


def test_output_max_index_pooling_is_parsed_like_v2():
    x = sf.seq_data("x")
    pool = S.pooling(input=x, pooling_type=P.Max(output_max_index=True))
    assert pool.kind == "max" and pool.size == sf.D and pool.spec.seq_level == 0
    assert "max" in str(paddle.layer.parse_network(pool))


def test_output_max_index_survives_a_json_round_trip():
    x = sf.seq_data("x")
    pool = S.pooling(input=x, pooling_type=P.Max(output_max_index=True))
    topology = paddle.topology.Topology
    back = topology.from_json(topology(pool).to_json())
    (loaded,) = [n for n in back.nodes if n.name == pool.name]
    assert loaded.attrs["pooling_type"].output_max_index is True
    assert loaded.attrs["layer"] == pool.name
