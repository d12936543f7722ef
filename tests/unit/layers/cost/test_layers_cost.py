"""Cost layers against numpy float64 references."""

import logging
import math
import re

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.layers.cost import basic as C
from paddle_lite._src.layers.cost import rank as R
from paddle_lite._src.layers.cost import robust as H
from paddle_lite._src.layers.cost import square as SQ
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(7)
F32 = np.float32


def _run(out, feeds, params=None):
    (value,), _ = forward([out], params or {}, feeds)
    return np.asarray(value)


def _probs(b, n):
    z = RNG.normal(size=(b, n))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _softmax_input(n, name="x"):
    """A data layer and a Softmax layer computing softmax(x) exactly (identity weight)."""
    x = L.data(name=name, type=DT.dense_vector(n))
    w = paddle.attr.Param(name=f"{name}_eye")
    return L.fc(input=x, size=n, act=A.Softmax(), bias_attr=False, param_attr=w), {
        f"{name}_eye": np.eye(n, dtype=F32)
    }


def _np_softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# cross entropies -------------------------------------------------------------------
def test_classification_cost_weight_coeff_and_attrs():
    prob, params = _softmax_input(5)
    lab = L.data(name="lab", type=DT.integer_value(5))
    w = L.data(name="w", type=DT.dense_vector(1))
    cost = C.classification_cost(input=prob, label=lab, weight=w, coeff=0.5)
    z = RNG.normal(size=(4, 5))
    ids = np.array([0, 4, 2, 2], np.int32)
    wt = RNG.uniform(0.5, 2.0, size=(4, 1))
    got = _run(cost, {"x": z.astype(F32), "lab": ids, "w": wt.astype(F32)}, params)
    p = _np_softmax(z)
    want = wt[:, 0] * -np.log(p[np.arange(4), ids])
    assert got.shape == (4, 1) and got.dtype == np.float32
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)
    assert cost.name == "__cost_0__" and cost.params == ()
    assert cost.attrs["evaluators"] == ("classification_error",) and cost.size == 1


def test_classification_cost_over_padded_sequences_sums_valid_steps():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    lab = L.data(name="lab", type=DT.integer_value_sequence(4))
    prob = L.fc(input=x, size=4, act=A.Softmax())
    cost = C.classification_cost(input=prob, label=lab, coeff=2.0)
    w, b = RNG.normal(size=(3, 4)), RNG.normal(size=(1, 4))
    params = {"___fc_layer_0__.w0": w.astype(F32), "___fc_layer_0__.wbias": b.astype(F32)}
    data = RNG.normal(size=(2, 5, 3))
    data[1, 2:] = 1e3  # padding garbage
    ids = RNG.integers(0, 4, size=(2, 5)).astype(np.int32)
    ids[1, 2:] = 99  # out-of-range ids in the padding are ignored
    lengths = np.array([5, 2], np.int32)
    got = _run(cost, {"x": Seq(data.astype(F32), lengths), "lab": Seq(ids, lengths)}, params)
    want = []
    for i in range(2):
        p = _np_softmax(data[i, : lengths[i]] @ w + b)
        want.append(-np.log(p[np.arange(lengths[i]), ids[i, : lengths[i]]]).sum())
    assert cost.spec.seq_level == 0
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)


def test_cross_entropy_cost_with_per_step_weight_and_clipping():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    lab = L.data(name="lab", type=DT.integer_value_sequence(3))
    w = L.data(name="w", type=DT.dense_vector_sequence(1))
    cost = C.cross_entropy_cost(input=x, label=lab, weight=w)
    p = np.stack([_probs(3, 3), _probs(3, 3)])
    p[0, 0] = [0.0, 1.0, 0.0]  # zero probability of the label: clipped, not inf
    ids = np.array([[0, 1, 2], [2, 2, 0]], np.int32)
    wt = RNG.uniform(0.5, 2.0, size=(2, 3, 1))
    lengths = np.array([3, 1], np.int32)
    feeds = {
        "x": Seq(p.astype(F32), lengths),
        "lab": Seq(ids, lengths),
        "w": Seq(wt.astype(F32), lengths),
    }
    got = _run(cost, feeds)
    logp = np.log(np.maximum(np.take_along_axis(p, ids[..., None], -1)[..., 0], 1e-37))
    step = -logp * wt[..., 0]
    want = [step[0].sum(), step[1, 0]]
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)
    assert cost.name == "__cross_entropy_0__" and np.isfinite(got).all()


def test_design_doc_cross_entropy_equals_cross_entropy_cost():
    x = L.data(name="x", type=DT.dense_vector(4))
    lab = L.data(name="lab", type=DT.integer_value(4))
    a = C.cross_entropy_cost(input=x, label=lab)
    b = C.cross_entropy(input=x, label=lab, coeff=3.0)
    feeds = {"x": _probs(5, 4).astype(F32), "lab": RNG.integers(0, 4, 5).astype(np.int32)}
    np.testing.assert_allclose(_run(b, feeds), _run(a, feeds), rtol=1e-6)
    assert (a.name, b.name) == ("__cross_entropy_0__", "__cross_entropy_1__")


def test_cross_entropy_with_selfnorm():
    x = L.data(name="x", type=DT.dense_vector(4))
    lab = L.data(name="lab", type=DT.integer_value(4))
    cost = C.cross_entropy_with_selfnorm_cost(
        input=x, label=lab, softmax_selfnorm_alpha=0.3, coeff=2.0
    )
    s = RNG.uniform(0.1, 3.0, size=(5, 4))
    ids = RNG.integers(0, 4, 5).astype(np.int32)
    got = _run(cost, {"x": s.astype(F32), "lab": ids})
    z = s.sum(axis=1)
    want = -np.log(s[np.arange(5), ids] / z) + 0.3 * np.log(z) ** 2
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)
    assert cost.name == "__cross_entropy_with_selfnorm_0__"


def test_multi_binary_label_sparse_and_dense_labels(caplog):
    x = L.data(name="x", type=DT.dense_vector(5))
    prob = L.fc(
        input=x, size=5, act=A.Sigmoid(), bias_attr=False, param_attr=paddle.attr.Param(name="eye")
    )
    sp = L.data(name="sp", type=DT.sparse_binary_vector(5))
    dn = L.data(name="dn", type=DT.dense_vector(5))
    with caplog.at_level(logging.WARNING):
        c_sparse = C.multi_binary_label_cross_entropy_cost(input=prob, label=sp)
    assert not caplog.records
    c_dense = C.multi_binary_label_cross_entropy_cost(input=prob, label=dn, coeff=0.5)
    z = RNG.normal(size=(3, 5))
    p = 1 / (1 + np.exp(-z))
    t = np.zeros((3, 5))
    t[0, [1, 3]] = 1
    t[2, [0]] = 1
    ids = np.array([[1, 3], [0, 0], [0, 0]], np.int32)
    vals = np.array([[1, 1], [0, 0], [1, 0]], F32)
    feeds = {"x": z.astype(F32), "sp": Sparse(ids, vals), "dn": t.astype(F32)}
    params = {"eye": np.eye(5, dtype=F32)}
    want = -(t * np.log(p) + (1 - t) * np.log(1 - p)).sum(axis=1)
    np.testing.assert_allclose(_run(c_sparse, feeds, params)[:, 0], want, rtol=1e-5)
    np.testing.assert_allclose(_run(c_dense, feeds, params)[:, 0], want, rtol=1e-5)
    assert c_sparse.name == "__multi_binary_label_cross_entropy_0__"


def test_multi_binary_label_warns_without_sigmoid(caplog):
    x = L.data(name="x", type=DT.dense_vector(3))
    lab = L.data(name="lab", type=DT.sparse_binary_vector(3))
    with caplog.at_level(logging.WARNING):
        C.multi_binary_label_cross_entropy_cost(input=x, label=lab)
    assert any("Sigmoid" in r.getMessage() for r in caplog.records)


# regression ------------------------------------------------------------------------
def test_square_error_weight_coeff_and_aliases():
    y = L.data(name="y", type=DT.dense_vector(3))
    t = L.data(name="t", type=DT.dense_vector(3))
    w = L.data(name="w", type=DT.dense_vector(1))
    cost = SQ.square_error_cost(input=y, label=t, weight=w, coeff=1.5)
    fy, ft, fw = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)), RNG.uniform(size=(4, 1))
    got = _run(cost, {"y": fy.astype(F32), "t": ft.astype(F32), "w": fw.astype(F32)})
    np.testing.assert_allclose(got[:, 0], fw[:, 0] * ((fy - ft) ** 2).sum(1), rtol=1e-5)
    assert SQ.regression_cost is SQ.square_error_cost
    assert cost.name == "__square_error_cost_0__"


def test_square_error_over_sequences_and_nested_sequences():
    y = L.data(name="y", type=DT.dense_vector_sequence(2))
    t = L.data(name="t", type=DT.dense_vector_sequence(2))
    w = L.data(name="w", type=DT.dense_vector(1))
    cost = SQ.square_error_cost(input=y, label=t, weight=w)
    fy, ft = RNG.normal(size=(2, 4, 2)), RNG.normal(size=(2, 4, 2))
    lengths, fw = np.array([2, 4], np.int32), np.array([[2.0], [0.5]])
    got = _run(
        cost,
        {"y": Seq(fy.astype(F32), lengths), "t": Seq(ft.astype(F32), lengths), "w": fw.astype(F32)},
    )
    want = [fw[i, 0] * ((fy[i, :n] - ft[i, :n]) ** 2).sum() for i, n in enumerate(lengths)]
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5)

    ny = L.data(name="ny", type=DT.dense_vector_sub_sequence(2))
    nt = L.data(name="nt", type=DT.dense_vector_sub_sequence(2))
    nested = SQ.square_error_cost(input=ny, label=nt)
    dy, dt = RNG.normal(size=(2, 3, 4, 2)), RNG.normal(size=(2, 3, 4, 2))
    outer, inner = np.array([2, 3], np.int32), np.array([[4, 1, 0], [2, 3, 1]], np.int32)
    feeds = {"ny": Seq(dy.astype(F32), outer, inner), "nt": Seq(dt.astype(F32), outer, inner)}
    want = [
        sum(
            ((dy[b, s, : inner[b, s]] - dt[b, s, : inner[b, s]]) ** 2).sum()
            for s in range(outer[b])
        )
        for b in range(2)
    ]
    np.testing.assert_allclose(_run(nested, feeds)[:, 0], want, rtol=1e-5)


def _huber_ref(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)).sum(axis=1)


def test_huber_regression_value_and_gradient():
    y = L.data(name="y", type=DT.dense_vector(3))
    t = L.data(name="t", type=DT.dense_vector(3))
    cost = H.huber_regression_cost(input=y, label=t, delta=0.5, coeff=2.0)
    fy, ft = RNG.normal(size=(6, 3)), RNG.normal(size=(6, 3))
    feeds = {"y": fy.astype(F32), "t": ft.astype(F32)}
    np.testing.assert_allclose(_run(cost, feeds)[:, 0], _huber_ref(fy - ft, 0.5), rtol=1e-5)
    grad = jax.grad(lambda v: forward([cost], {}, {**feeds, "y": v})[0][0].sum())(feeds["y"])
    r = fy - ft
    np.testing.assert_allclose(grad, 2.0 * np.clip(r, -0.5, 0.5), rtol=1e-5, atol=1e-6)
    assert cost.name == "__huber_regression_cost_0__"


def test_huber_classification_regimes_and_gradient():
    f = L.data(name="f", type=DT.dense_vector(1))
    lab = L.data(name="lab", type=DT.integer_value(2))
    cost = H.huber_classification_cost(input=f, label=lab)
    fv = np.array([[-2.0], [0.3], [1.5], [2.0], [-0.4], [-3.0]])
    ids = np.array([1, 1, 1, 0, 0, 0], np.int32)
    feeds = {"f": fv.astype(F32), "lab": ids}
    m = (2 * ids - 1) * fv[:, 0]
    want = np.where(m < -1, -4 * m, np.where(m < 1, (1 - m) ** 2, 0.0))
    np.testing.assert_allclose(_run(cost, feeds)[:, 0], want, rtol=1e-5)
    y = 2 * ids - 1
    dwant = np.where(m < -1, -4 * y, np.where(m < 1, -2 * (1 - m) * y, 0.0))
    grad = jax.grad(lambda v: forward([cost], {}, {**feeds, "f": v})[0][0].sum())(feeds["f"])
    np.testing.assert_allclose(grad[:, 0], dwant, rtol=1e-5, atol=1e-6)


def test_smooth_l1():
    y = L.data(name="y", type=DT.dense_vector(4))
    t = L.data(name="t", type=DT.dense_vector(4))
    cost = H.smooth_l1_cost(input=y, label=t, coeff=0.5)
    fy, ft = 2 * RNG.normal(size=(5, 4)), RNG.normal(size=(5, 4))
    a = np.abs(fy - ft)
    want = np.where(a < 1, 0.5 * a * a, a - 0.5).sum(axis=1)
    np.testing.assert_allclose(
        _run(cost, {"y": fy.astype(F32), "t": ft.astype(F32)})[:, 0], want, rtol=1e-5
    )


def test_sum_cost_plain_and_sequence():
    x = L.data(name="x", type=DT.dense_vector(3))
    s = L.data(name="s", type=DT.dense_vector_sequence(2))
    fx, fs = RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3, 2))
    lengths = np.array([1, 3], np.int32)
    np.testing.assert_allclose(
        _run(SQ.sum_cost(input=x), {"x": fx.astype(F32)})[:, 0], fx.sum(axis=1), rtol=1e-5
    )
    got = _run(SQ.sum_cost(input=s), {"s": Seq(fs.astype(F32), lengths)})
    np.testing.assert_allclose(got[:, 0], [fs[0, :1].sum(), fs[1].sum()], rtol=1e-5)


# ranking and binary judgements -----------------------------------------------------
def test_rank_cost_float_and_id_labels_weight_and_stability():
    a, b = L.data(name="a", type=DT.dense_vector(1)), L.data(name="b", type=DT.dense_vector(1))
    p = L.data(name="p", type=DT.dense_vector(1))
    ip = L.data(name="ip", type=DT.integer_value(2))
    w = L.data(name="w", type=DT.dense_vector(1))
    with pytest.warns(LayerConfigWarning, match="coeff=2.0 does not scale the gradient"):
        cost = R.rank_cost(left=a, right=b, label=p, weight=w, coeff=2.0)
    by_id = R.rank_cost(left=a, right=b, label=ip)
    fa = np.array([[0.3], [-1.0], [200.0], [-150.0]])
    fb = np.array([[0.1], [0.5], [0.0], [0.0]])
    fp = np.array([[1.0], [0.0], [0.25], [1.0]])
    fw = np.array([[1.0], [0.5], [2.0], [1.0]])
    feeds = {
        "a": fa.astype(F32),
        "b": fb.astype(F32),
        "p": fp.astype(F32),
        "ip": np.array([1, 0, 0, 1], np.int32),
        "w": fw.astype(F32),
    }
    o = np.clip((fa - fb)[:, 0], -40.0, 40.0)  # v2's logisticRegressionLoss clips o
    ref = -fp[:, 0] * o + np.logaddexp(0.0, o)
    np.testing.assert_allclose(_run(cost, feeds)[:, 0], fw[:, 0] * ref, rtol=1e-5)
    ref_id = -np.array([1, 0, 0, 1]) * o + np.logaddexp(0.0, o)
    np.testing.assert_allclose(_run(by_id, feeds)[:, 0], ref_id, rtol=1e-5)
    assert np.isfinite(_run(cost, feeds)).all() and cost.name == "__rank_cost_0__"


def test_rank_cost_ignores_coeff_as_v2s_ranking_cost_did():
    """v2's RankingCost (a Layer, not a CostLayer) never read coeff: the gradient is
    ``sigmoid(o) - P`` whatever coeff says (CostLayer.cpp, RankingCost::backward)."""
    a, b = L.data(name="a", type=DT.dense_vector(1)), L.data(name="b", type=DT.dense_vector(1))
    p = L.data(name="p", type=DT.dense_vector(1))
    with pytest.warns(LayerConfigWarning, match="RankingCost never applied coeff"):
        cost = R.rank_cost(left=a, right=b, label=p, coeff=3.0)
    fa, fb, fp = RNG.normal(size=(3, 1)), RNG.normal(size=(3, 1)), RNG.uniform(size=(3, 1))

    def total(left):
        return forward([cost], {}, {"a": left, "b": fb.astype(F32), "p": fp.astype(F32)})[0][
            0
        ].sum()

    grad = np.asarray(jax.grad(total)(fa.astype(F32)))[:, 0]
    want = 1.0 / (1.0 + np.exp(-(fa - fb)[:, 0])) - fp[:, 0]
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-6)


def test_rank_cost_gradient_matches_finite_differences():
    a, b = L.data(name="a", type=DT.dense_vector(1)), L.data(name="b", type=DT.dense_vector(1))
    p = L.data(name="p", type=DT.dense_vector(1))
    cost = R.rank_cost(left=a, right=b, label=p)
    fa, fb = RNG.normal(size=(3, 1)), RNG.normal(size=(3, 1))
    fp = RNG.uniform(size=(3, 1))

    def total(left):
        feeds = {"a": left, "b": fb.astype(F32), "p": fp.astype(F32)}
        return forward([cost], {}, feeds)[0][0].sum()

    grad = np.asarray(jax.grad(total)(fa.astype(F32)))[:, 0]
    o = (fa - fb)[:, 0]

    def ref(oo):
        return (-fp[:, 0] * oo + np.log1p(np.exp(oo))).sum()

    fd = [
        (ref(o + 1e-6 * (np.arange(3) == i)) - ref(o - 1e-6 * (np.arange(3) == i))) / 2e-6
        for i in range(3)
    ]
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-6)


def test_less_than_is_rank_cost_with_zero_target():
    a, b = L.data(name="a", type=DT.dense_vector(1)), L.data(name="b", type=DT.dense_vector(1))
    cost = R.less_than(left=a, right=b, coeff=0.5)
    fa, fb = RNG.normal(size=(4, 1)), RNG.normal(size=(4, 1))
    got = _run(cost, {"a": fa.astype(F32), "b": fb.astype(F32)})
    np.testing.assert_allclose(got[:, 0], np.log1p(np.exp(fa - fb))[:, 0], rtol=1e-5)
    assert cost.name == "__less_than_0__"


def test_should_be_true_and_false():
    x = L.data(name="x", type=DT.dense_vector(1))
    yes, no = R.should_be_true(input=x), R.should_be_false(input=x, coeff=2.0)
    fx = np.array([[0.9], [0.2], [0.0]])
    feeds = {"x": fx.astype(F32)}
    np.testing.assert_allclose(
        _run(yes, feeds)[:, 0], -np.log(np.maximum(fx[:, 0], 1e-37)), rtol=1e-5
    )
    np.testing.assert_allclose(_run(no, feeds)[:, 0], -np.log(1 - fx[:, 0]), rtol=1e-5, atol=1e-7)
    assert (yes.name, no.name) == ("__should_be_true_0__", "__should_be_false_0__")


def _ndcg_cost_ref(o, r, k):
    n = len(o)
    k = min(k, n)
    by_out = sorted(range(n), key=lambda i: -o[i])
    ideal = sorted(r, reverse=True)
    dcg = sum((2.0 ** r[by_out[i]] - 1) / math.log(i + 2) for i in range(k))
    best = sum((2.0 ** ideal[i] - 1) / math.log(i + 2) for i in range(k))
    return 1.0 - dcg / best


def _lambda_grad_ref(o, r, k, max_sort):
    """v2 LambdaCost::calcGrad, loop for loop."""
    n = len(o)
    sort_size = n if max_sort == -1 else min(max_sort, n)
    order = sorted(range(n), key=lambda i: -r[i])
    best = sum((2.0 ** r[order[i]] - 1) / math.log(i + 2) for i in range(min(k, n)))
    grad = np.zeros(n)
    for i in range(sort_size):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            num = 2.0 ** r[a] - 2.0 ** r[b]
            den = math.log(i + 2) - math.log(j + 2) if j < sort_size else math.log(i + 2)
            lam = -abs(num / den) / (1 + math.exp(o[a] - o[b]))
            grad[a] += lam / best
            grad[b] -= lam / best
    return grad


@pytest.mark.parametrize("ndcg_num,max_sort", [(2, -1), (3, 3), (1, 2)])
def test_lambda_cost_value_and_gradient_brute_force(ndcg_num, max_sort):
    s = L.data(name="s", type=DT.dense_vector_sequence(1))
    r = L.data(name="r", type=DT.dense_vector_sequence(1))
    cost = R.lambda_cost(input=s, score=r, NDCG_num=ndcg_num, max_sort_size=max_sort)
    lengths = np.array([5, 3, 4], np.int32)
    out = RNG.normal(size=(3, 6, 1))
    rel = np.stack([RNG.permutation(6) * 0.5 for _ in range(3)])[..., None]
    out[0, 5], rel[1, 4] = 1e4, 40.0  # padding garbage
    feeds = {"s": Seq(out.astype(F32), lengths), "r": Seq(rel.astype(F32), lengths)}
    got = _run(cost, feeds)
    want = [_ndcg_cost_ref(out[b, :n, 0], rel[b, :n, 0], ndcg_num) for b, n in enumerate(lengths)]
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5, atol=1e-6)

    def total(v):
        return forward([cost], {}, {**feeds, "s": Seq(v, lengths)})[0][0].sum()

    grad = np.asarray(jax.grad(total)(feeds["s"].data))[..., 0]
    for b, n in enumerate(lengths):
        ref = _lambda_grad_ref(out[b, :n, 0], rel[b, :n, 0], ndcg_num, max_sort)
        np.testing.assert_allclose(grad[b, :n], ref, rtol=1e-4, atol=1e-6)
        assert not grad[b, n:].any()
    assert cost.name == "__lambda_cost_0__"


def test_lambda_cost_perfect_ranking_and_all_zero_relevance_cost_zero():
    s = L.data(name="s", type=DT.dense_vector_sequence(1))
    r = L.data(name="r", type=DT.dense_vector_sequence(1))
    cost = R.lambda_cost(input=s, score=r, NDCG_num=3)
    out = np.array([[3.0, 2.0, 1.0], [0.5, 0.1, 0.2]])[..., None]
    rel = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])[..., None]
    lengths = np.array([3, 3], np.int32)
    got = _run(cost, {"s": Seq(out.astype(F32), lengths), "r": Seq(rel.astype(F32), lengths)})
    np.testing.assert_allclose(got[:, 0], [0.0, 0.0], atol=1e-6)


# structure and errors --------------------------------------------------------------
def test_every_cost_is_parameter_free_and_size_one():
    x = L.data(name="x", type=DT.dense_vector(1))
    lab = L.data(name="lab", type=DT.integer_value(1))
    layers = [
        C.cross_entropy_cost(input=x, label=lab),
        SQ.square_error_cost(input=x, label=x),
        SQ.sum_cost(input=x),
        R.rank_cost(left=x, right=x, label=x),
        R.should_be_true(input=x),
        R.less_than(left=x, right=x),
        H.huber_classification_cost(input=x, label=lab),
        H.smooth_l1_cost(input=x, label=x),
    ]
    assert all(c.params == () and c.spec == Spec(1) for c in layers)


def test_label_size_mismatch_names_layer_and_argument():
    prob, _ = _softmax_input(4)
    lab = L.data(name="lab", type=DT.integer_value(5))
    # v2 built both; an id range other than the input's classes runs (a warning), a dense
    # label of another size cannot run (a warning now, LayerConfigError when it runs)
    with pytest.warns(LayerConfigWarning, match=r"__cost_0__.*integer_value\(5\).*4 classes"):
        assert "unrunnable" not in C.classification_cost(input=prob, label=lab).attrs
    y, t = L.data(name="y", type=DT.dense_vector(3)), L.data(name="t", type=DT.dense_vector(2))
    with pytest.warns(LayerConfigWarning, match=r"'mine'.*label has size 2; expected 3"):
        cost = SQ.square_error_cost(input=y, label=t, name="mine")
    feeds = {"y": np.zeros((2, 3), F32), "t": np.zeros((2, 2), F32)}
    with pytest.raises(LayerConfigError, match=r"'mine' \(square_error\) cannot run: label has"):
        _run(cost, feeds)


def test_classification_cost_refuses_non_softmax_input_and_float_label():
    x = L.data(name="x", type=DT.dense_vector(4))
    lab = L.data(name="lab", type=DT.integer_value(4))
    with pytest.raises(LayerConfigError, match=r"__cost_0__.*Softmax activation.*'x'"):
        C.classification_cost(input=x, label=lab)
    prob, _ = _softmax_input(4, name="z")
    flt = L.data(name="flt", type=DT.dense_vector(4))
    # v2 built a float label (and failed when it ran): a warning, then an error at run time
    with pytest.warns(LayerConfigWarning, match=r"label holds dense float values; expected integ"):
        cost = C.classification_cost(input=prob, label=flt)
    assert "its cross entropy reads one class id per sample" in cost.attrs["unrunnable"]


def test_weight_must_be_size_one():
    x = L.data(name="x", type=DT.dense_vector(3))
    w = L.data(name="w", type=DT.dense_vector(2))
    with pytest.raises(LayerConfigError, match=r"weight has size 2; expected 1"):
        SQ.square_error_cost(input=x, label=x, weight=w)
    with pytest.raises(LayerTypeError, match=r"weight must be a layer"):
        R.rank_cost(left=x, right=x, label=x, weight=0.5)


def test_unknown_keyword_and_unsupported_extra_attr():
    x = L.data(name="x", type=DT.dense_vector(3))
    with pytest.raises(LayerTypeError, match=r"unexpected keyword argument 'wieght'.*weight"):
        SQ.square_error_cost(input=x, label=x, wieght=x)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'weight'"):
        H.huber_regression_cost(input=x, label=x, weight=x)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        SQ.sum_cost(input=x, layer_attr=paddle.attr.Extra(drop_rate=0.5))


def test_sequence_level_and_lambda_argument_errors():
    s = L.data(name="s", type=DT.dense_vector_sub_sequence(3))
    x = L.data(name="x", type=DT.dense_vector(3))
    with pytest.raises(LayerConfigError, match="different sequence levels"):
        SQ.square_error_cost(input=s, label=x)  # a sequence beside it: test_cost_one_row
    one = L.data(name="one", type=DT.dense_vector(1))
    with pytest.warns(LayerConfigWarning, match="expected 1 \\(a sequence"):
        R.lambda_cost(input=one, score=one)
    seq1 = L.data(name="seq1", type=DT.dense_vector_sequence(1))
    with pytest.raises(LayerConfigError, match="max_sort_size must be -1 or >= NDCG_num"):
        R.lambda_cost(input=seq1, score=seq1, NDCG_num=5, max_sort_size=3)
    with pytest.raises(LayerConfigError, match="input has size 3; expected 1"):
        H.huber_classification_cost(input=x, label=L.data(name="l", type=DT.integer_value(2)))
    with pytest.raises(LayerConfigError, match="delta must be positive"):
        H.huber_regression_cost(input=x, label=x, delta=0)


def test_evaluator_argument_forms():
    prob, _ = _softmax_input(3)
    lab = L.data(name="lab", type=DT.integer_value(3))

    def auc_evaluator():
        pass

    a = C.classification_cost(input=prob, label=lab, evaluator=[auc_evaluator, "precision_recall"])
    b = C.classification_cost(input=prob, label=lab, evaluator=[])
    assert a.attrs["evaluators"] == ("auc", "precision_recall") and b.attrs["evaluators"] == ()
    with pytest.raises(LayerTypeError, match="evaluator must be"):
        C.classification_cost(input=prob, label=lab, evaluator=3)


def test_coeff_scales_the_gradient_but_not_the_reported_cost():
    y = L.data(name="y", type=DT.dense_vector(2))
    t = L.data(name="t", type=DT.dense_vector(2))
    cost = SQ.square_error_cost(input=y, label=t, coeff=3.0)
    fy, ft = RNG.normal(size=(3, 2)).astype(F32), RNG.normal(size=(3, 2)).astype(F32)
    feeds = {"y": fy, "t": ft}
    np.testing.assert_allclose(_run(cost, feeds)[:, 0], ((fy - ft) ** 2).sum(1), rtol=1e-5)
    grad = jax.grad(lambda v: forward([cost], {}, {**feeds, "y": v})[0][0].sum())(fy)
    np.testing.assert_allclose(grad, 3.0 * 2 * (fy - ft), rtol=1e-5)


@pytest.mark.parametrize(
    ("build", "fix"),
    [
        (lambda x, y, s: SQ.square_error_cost(input=x, label=y), r"dense_vector\(3\)"),
        (lambda x, y, s: H.huber_regression_cost(input=x, label=y), r"dense_vector\(3\)"),
        (lambda x, y, s: R.lambda_cost(input=s, score=s), r"size=1"),
        (lambda x, y, s: L.crf(input=x, label=y), "declare the input and label as sequences"),
    ],
)
def test_stricter_than_v2_checks_say_what_v2_did_and_the_fix(build, fix):
    """v2 built these layers and failed when they ran: they build (with a warning), parse,
    and raise LayerConfigError when compiled, saying what v2 did and the fix."""
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.integer_value(3))
    s = L.data(name="s", type=DT.dense_vector_sequence(3))
    with pytest.warns(LayerConfigWarning) as caught:
        layer = build(x, y, s)
    text = layer.attrs["unrunnable"]
    assert "v2 built such a layer without complaint and failed when it ran" in text
    assert re.search("Fix: .*" + fix, text) and "embedding" not in text
    assert text in str(caught[0].message) and "compiling or running it raises" in text + str(
        caught[0].message
    )
    paddle.layer.parse_network(layer)
    feeds = {"x": np.zeros((2, 3), F32), "y": np.zeros((2,), np.int32)}
    feeds["s"] = Seq(np.zeros((2, 2, 3), F32), np.array([2, 2], np.int32))
    with pytest.raises(LayerConfigError, match="cannot run: .*v2 built such a layer"):
        _run(layer, feeds)
