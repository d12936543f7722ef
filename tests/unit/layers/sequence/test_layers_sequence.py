"""Sequence aggregation (pooling, first/last step) against per-sample numpy float64
loops over the valid steps; every padded input carries junk beyond its lengths."""

import logging
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.activations import Linear
from paddle_lite._src.compile import forward
from paddle_lite._src.layers import base
from paddle_lite._src.layers import mixed as M
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.sequence import aggregate as AG
from paddle_lite._src.layers.sequence import pooling as S
from paddle_lite._src.layers.sequence import reshape as R
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

try:
    from tests.unit import _sequence_fixtures as sf
except ImportError:
    import _sequence_fixtures as sf

D, LENGTHS, RNG, SUB_COUNTS = sf.D, sf.LENGTHS, sf.RNG, sf.SUB_COUNTS
DT, P, ATTR = paddle.data_type, paddle.pooling, paddle.attr
AGG, EXP = AG.AggregateLevel, AG.ExpandLevel


def _pool_ref(kind, steps):
    if len(steps) == 0:
        return np.zeros(D)
    return {
        "max": lambda: steps.max(0),
        "average": lambda: steps.mean(0),
        "sum": lambda: steps.sum(0),
        "squarerootn": lambda: steps.sum(0) / math.sqrt(len(steps)),
        "first": lambda: steps[0],
        "last": lambda: steps[-1],
    }[kind]()


POOLS = [
    (P.Max(), "max"),
    (P.Avg(), "average"),
    (P.Avg("sum"), "sum"),
    (P.Sum(), "sum"),
    (P.SquareRootN(), "squarerootn"),
    (P.Avg("squarerootn"), "squarerootn"),
]


# levels --------------------------------------------------------------------------
def test_level_constants_are_v2s():
    assert (AGG.TO_NO_SEQUENCE, AGG.TO_SEQUENCE) == ("non-seq", "seq")
    assert (AGG.EACH_TIMESTEP, AGG.EACH_SEQUENCE) == ("non-seq", "seq")
    assert (EXP.FROM_NO_SEQUENCE, EXP.FROM_SEQUENCE, EXP.FROM_TIMESTEP) == (
        "non-seq",
        "seq",
        "non-seq",
    )


# pooling -------------------------------------------------------------------------
@pytest.mark.parametrize(("pool", "kind"), POOLS, ids=[f"{p!r}" for p, _ in POOLS])
def test_pooling_over_valid_steps(pool, kind):
    x, fx = sf.seq_data("x"), sf.seq_value()
    out = S.pooling(input=x, pooling_type=pool)
    got, _ = sf.run(out, {"x": fx})
    assert out.spec.seq_level == 0 and out.size == D and out.params == ()
    want = np.stack([_pool_ref(kind, sf.valid_steps(fx, b)) for b in range(len(LENGTHS))])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_pooling_defaults_to_max_and_adds_a_bias():
    x, fx = sf.seq_data("x"), sf.seq_value()
    out = S.pooling(input=x, bias_attr=ATTR.Param(initial_mean=0.5, initial_std=0.1))
    got, p = sf.run(out, {"x": fx})
    assert out.name == "__seq_pooling_0__" and out.layer_type == "max"
    assert [(s.name, s.shape) for s in out.params] == [("___seq_pooling_0__.wbias", (1, D))]
    bias = p["___seq_pooling_0__.wbias"][0]
    want = np.stack([_pool_ref("max", sf.valid_steps(fx, b)) for b in range(4)]) + bias
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert S.pooling(input=x, pooling_type=P.Avg(), bias_attr=True).params[0].init.std == 0


@pytest.mark.parametrize(("pool", "kind"), POOLS[:2] + POOLS[4:5], ids=["max", "avg", "sqrtn"])
def test_pooling_nested_to_sequence_pools_each_sub_sequence(pool, kind):
    n, fn = sf.nested_data("n"), sf.nested_value()
    out = S.pooling(input=n, pooling_type=pool, agg_level=AGG.TO_SEQUENCE)
    got, _ = sf.run(out, {"n": fn})
    assert out.spec.seq_level == 1 and isinstance(got, Seq)
    np.testing.assert_array_equal(got.lengths, SUB_COUNTS)
    for b in range(4):
        want = [_pool_ref(kind, sub) for sub in sf.valid_steps(fn, b)]
        np.testing.assert_allclose(
            sf.out_steps(got, b), np.reshape(want, (-1, D)), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize(("pool", "kind"), POOLS[:2], ids=["max", "avg"])
def test_pooling_nested_to_no_sequence_pools_all_steps(pool, kind):
    n, fn = sf.nested_data("n"), sf.nested_value()
    out = S.pooling(input=n, pooling_type=pool)
    got, _ = sf.run(out, {"n": fn})
    assert out.spec.seq_level == 0
    for b in range(4):
        subs = sf.valid_steps(fn, b)
        steps = np.concatenate(subs) if subs else np.zeros((0, D))
        np.testing.assert_allclose(got[b], _pool_ref(kind, steps), rtol=1e-5, atol=1e-6)


def _windows(steps, stride, from_end):
    n = len(steps)
    count = -(-n // stride)
    shift = count * stride - n if from_end else 0
    bounds = [(max(0, w * stride - shift), min(n, (w + 1) * stride - shift)) for w in range(count)]
    return [steps[a:e] for a, e in bounds]


@pytest.mark.parametrize("stride", [1, 2, 3, 5])
def test_stride_pools_windows_into_a_sequence(stride):
    x, fx = sf.seq_data("x"), sf.seq_value([9, 5, 0, 3], t=16)
    layers = {
        "max": S.pooling(input=x, stride=stride),
        "average": S.pooling(input=x, pooling_type=P.Avg(), stride=stride),
        "last": S.last_seq(input=x, stride=stride),
        "first": S.first_seq(input=x, stride=stride),
    }
    for kind, out in layers.items():
        got, _ = sf.run(out, {"x": fx})
        assert out.spec.seq_level == 1
        for b in range(4):
            windows = _windows(sf.valid_steps(fx, b), stride, from_end=kind == "first")
            assert int(got.lengths[b]) == len(windows)
            want = np.reshape([_pool_ref(kind, w) for w in windows], (-1, D))
            np.testing.assert_allclose(sf.out_steps(got, b), want, rtol=1e-5, atol=1e-6)


def test_stride_windows_follow_v2s_example():
    """v2: lengths 9 with stride 5: last_seq windows [0,5) [5,9); first_seq [0,4) [4,9)."""
    x = sf.seq_data("x", 1)
    fx = Seq(np.arange(16, dtype=np.float32).reshape(1, 16, 1), np.array([9], np.int32))
    last, _ = sf.run(S.last_seq(input=x, stride=5), {"x": fx})
    first, _ = sf.run(S.first_seq(input=x, stride=5), {"x": fx})
    np.testing.assert_array_equal(sf.out_steps(last, 0)[:, 0], [4, 8])
    np.testing.assert_array_equal(sf.out_steps(first, 0)[:, 0], [0, 4])


# first / last ----------------------------------------------------------------------
@pytest.mark.parametrize(("fn", "kind"), [(S.last_seq, "last"), (S.first_seq, "first")])
def test_first_and_last_step(fn, kind):
    x, fx = sf.seq_data("x"), sf.seq_value()
    n, fn_ = sf.nested_data("n"), sf.nested_value(subs=[[3, 1, 9], [2, 4, 0], [5, 5, 5], [4, 7, 7]])
    flat, _ = sf.run(fn(input=x), {"x": fx})
    want = np.stack([_pool_ref(kind, sf.valid_steps(fx, b)) for b in range(4)])
    np.testing.assert_allclose(flat, want, rtol=1e-6)
    whole, _ = sf.run(fn(input=n), {"n": fn_})
    for b in range(4):
        subs = sf.valid_steps(fn_, b)
        steps = np.concatenate(subs) if subs else np.zeros((0, D))
        np.testing.assert_allclose(whole[b], _pool_ref(kind, steps), rtol=1e-6)
    out = fn(input=n, agg_level=AGG.TO_SEQUENCE)
    per_sub, _ = sf.run(out, {"n": fn_})
    assert out.spec.seq_level == 1
    for b in range(4):
        want = np.reshape([_pool_ref(kind, s) for s in sf.valid_steps(fn_, b)], (-1, D))
        np.testing.assert_allclose(sf.out_steps(per_sub, b), want, rtol=1e-6)


def test_non_sequence_input_counts_as_one_step_sequences():
    d = sf.dense_data("d")
    fd = RNG.normal(size=(4, D)).astype(np.float32)
    for out in (
        S.pooling(input=d, pooling_type=P.SquareRootN()),
        S.pooling(input=d, pooling_type=P.Avg(), agg_level=AGG.TO_SEQUENCE),
        S.last_seq(input=d),
        S.first_seq(input=d),
    ):
        got, _ = sf.run(out, {"d": fd})
        assert out.spec.seq_level == 0
        np.testing.assert_allclose(got, fd, rtol=1e-6)


def test_gradients_ignore_the_padding():
    x, fx = sf.seq_data("x"), sf.seq_value()
    outs = [S.pooling(input=x), S.pooling(input=x, pooling_type=P.Avg()), S.last_seq(input=x)]

    def loss(data):
        feeds = {"x": fx._replace(data=data)}
        values, _ = forward(outs, {}, feeds)
        return sum(jnp.sum(v) for v in values)

    grad = np.asarray(jax.grad(loss)(jnp.asarray(fx.data)))
    assert np.isfinite(grad).all()
    pad = np.arange(8)[None, :] >= np.array(LENGTHS)[:, None]
    assert (grad[pad] == 0).all() and (grad[~pad] != 0).any()


def test_auto_names_and_layer_types():
    x, n = sf.seq_data("x"), sf.nested_data("n")
    layers = [
        S.pooling(input=x),
        S.pooling(input=x, pooling_type=P.Avg()),
        S.last_seq(input=x),
        S.first_seq(input=n, agg_level=AGG.EACH_SEQUENCE),
        R.seq_concat(a=x, b=x),
        R.expand(input=S.last_seq(input=x), expand_as=x),
        R.seq_reshape(input=x, reshape_size=1),
    ]
    assert [(o.name, o.layer_type) for o in layers] == [
        ("__seq_pooling_0__", "max"),
        ("__seq_pooling_1__", "average"),
        ("__last_seq_0__", "seqlastins"),
        ("__first_seq_0__", "seqfirstins"),
        ("__seqconcat_0__", "seqconcat"),
        ("__expand_layer_0__", "expand"),
        ("__seqreshape_0__", "seqreshape"),
    ]


def test_aggregation_errors_name_the_layer_and_argument():
    x, n = sf.seq_data("x"), sf.nested_data("n")
    w = paddle.layer.data(name="w", type=DT.integer_value_sequence(5))
    cases = [
        (lambda: S.pooling(input=x, agg_level="each"), LayerTypeError, "agg_level"),
        (lambda: S.pooling(input=x, stride=0), LayerTypeError, "stride"),
        (
            lambda: S.pooling(input=n, agg_level=AGG.TO_SEQUENCE, stride=2),
            LayerConfigError,
            "stride",
        ),
        (lambda: S.pooling(input=w), LayerConfigError, "embedding"),
        (lambda: S.pooling(input=x, pooling_type=P.CudnnMax()), LayerConfigError, "CudnnMax"),
        (lambda: S.pooling(input=x, pooling_type="max"), LayerTypeError, "pooling_type"),
        (lambda: S.pooling(input=x, pool_type=P.Max()), LayerTypeError, "pooling_type"),
        (
            lambda: S.first_seq(input=x, layer_attr=ATTR.Extra(drop_rate=0.5)),
            LayerConfigError,
            "drop_rate",
        ),
    ]
    for build, error, word in cases:
        with pytest.raises(error, match=word):
            build()


def test_last_seq_of_a_reversed_layer_warns(caplog):
    x = sf.seq_data("x")
    back = base.build("addto", name="back", inputs=[x], attrs={"act": Linear(), "reverse": True})
    with caplog.at_level(logging.WARNING):
        S.first_seq(input=back)
        assert not caplog.records
        S.last_seq(input=back)
    assert "first_seq" in caplog.text and "'back'" in caplog.text


def test_v2_test_layer_networks_build():
    """v2's test_aggregate_layer, test_reshape_layer and test_projection (context)."""
    pixel, weight = sf.dense_data("pixel", 128), sf.dense_data("weight", 1)
    pool = S.pooling(input=pixel, pooling_type=P.Avg(), agg_level=AGG.TO_SEQUENCE)
    last, first = S.last_seq(input=pixel), S.first_seq(input=pixel)
    both = R.seq_concat(a=last, b=first)
    expanded = R.expand(input=weight, expand_as=pixel, expand_level=EXP.FROM_NO_SEQUENCE)
    reshaped = R.seq_reshape(input=pixel, reshape_size=4)
    fc0 = paddle.layer.fc(input=pixel, size=100, act=paddle.activation.Sigmoid())
    context = PR.context_projection(input=fc0, context_len=5)
    context0 = M.mixed(size=500, input=context)
    with M.mixed(size=500) as context1:
        context1 += context
    sizes = [o.size for o in (pool, last, first, both, expanded, reshaped, context0, context1)]
    assert sizes == [128, 128, 128, 128, 1, 4, 500, 500]
    assert (both.spec.seq_level, reshaped.spec.seq_level, context0.spec.seq_level) == (1, 1, 0)
    Topology([pool, both, expanded, reshaped, context0, context1])
