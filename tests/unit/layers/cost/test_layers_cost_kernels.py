"""Cost layers against float64 transcriptions of v2's Matrix kernels, forward and backward.

Each reference is the CPU kernel CostLayer.cpp calls (paddle/math/Matrix.cpp,
BaseMatrix.cu), loop for loop; the gradient is the one v2's backward writes into the
input's gradient, times ``coeff`` (CostLayer::backward).
"""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.layers.cost import basic as C
from paddle_lite._src.layers.cost import rank as R
from paddle_lite._src.layers.cost import square as SQ
from paddle_lite._src.values import Seq, Sparse

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(11)
F32 = np.float32


def _value_and_grad(cost, feeds, wrt):
    """The cost per sample and the gradient of their sum by the data of ``feeds[wrt]``."""
    feed = feeds[wrt]

    def total(data):
        v = feed._replace(data=data) if isinstance(feed, Seq) else data
        return forward([cost], {}, {**feeds, wrt: v})[0][0].sum()

    (value,), _ = forward([cost], {}, feeds)
    grad = jax.grad(total)(feed.data if isinstance(feed, Seq) else feed)
    return np.asarray(value)[:, 0], np.asarray(grad)


def _sparse_rows(rows, width):
    """Padded ``Sparse`` ids / values from per-sample ``[(col, value), ...]``."""
    ids, vals = np.zeros((len(rows), width), np.int32), np.zeros((len(rows), width), F32)
    for i, row in enumerate(rows):
        for k, (col, v) in enumerate(row):
            ids[i, k], vals[i, k] = col, v
    return Sparse(ids, vals)


# multi_binary_label_cross_entropy --------------------------------------------------
def _multi_binary_sparse_ref(p, rows):
    """CpuMatrix::multiBinaryLabelCrossEntropy and its Bp: the label's columns only."""
    cost, grad = np.zeros(len(p)), np.zeros_like(p)
    for i, row in enumerate(rows):
        cost[i] = -np.log(1 - p[i]).sum()
        grad[i] = 1 / (1 - p[i])
        for col, _value in row:
            cost[i] -= np.log(p[i, col] / (1 - p[i, col]))
            grad[i, col] -= 1 / (p[i, col] * (1 - p[i, col]))
    return cost, grad


def test_multi_binary_dense_label_is_thresholded_at_half():
    """BaseMatrix binaryLabelCrossEntropy: ``c > 0.5 ? -log(b) : -log(1 - b)``."""
    x = L.data(name="x", type=DT.dense_vector(5))
    t = L.data(name="t", type=DT.dense_vector(5))
    cost = C.multi_binary_label_cross_entropy_cost(input=x, label=t, coeff=0.5)
    p = RNG.uniform(0.05, 0.95, size=(4, 5))
    lab = RNG.uniform(size=(4, 5))
    lab[0, :2] = [0.5, 0.51]  # exactly 0.5 is negative
    value, grad = _value_and_grad(cost, {"x": p.astype(F32), "t": lab.astype(F32)}, "x")
    on = lab > 0.5
    np.testing.assert_allclose(value, -np.where(on, np.log(p), np.log(1 - p)).sum(1), rtol=1e-5)
    np.testing.assert_allclose(grad, 0.5 * np.where(on, -1 / p, 1 / (1 - p)), rtol=1e-4)


def test_multi_binary_sparse_label_reads_the_columns_not_the_values():
    x = L.data(name="x", type=DT.dense_vector(4))
    t = L.data(name="t", type=DT.sparse_float_vector(4))
    cost = C.multi_binary_label_cross_entropy_cost(input=x, label=t)
    p = RNG.uniform(0.05, 0.95, size=(3, 4))
    rows = [[(1, 0.3), (3, 2.0)], [], [(2, -1.0), (2, 0.7)]]  # a column listed twice
    feeds = {"x": p.astype(F32), "t": _sparse_rows(rows, 3)}
    value, grad = _value_and_grad(cost, feeds, "x")
    want, dwant = _multi_binary_sparse_ref(p, rows)
    np.testing.assert_allclose(value, want, rtol=1e-5)
    np.testing.assert_allclose(grad, dwant, rtol=1e-4)


def test_multi_binary_id_label_is_the_one_positive_class():
    """v2 turned an id label into a one-hot sparse label (toOneHotSparseMatrix)."""
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    t = L.data(name="t", type=DT.integer_value_sequence(4))
    cost = C.multi_binary_label_cross_entropy_cost(input=x, label=t, coeff=2.0)
    p = RNG.uniform(0.05, 0.95, size=(2, 3, 4))
    ids = RNG.integers(0, 4, size=(2, 3)).astype(np.int32)
    ids[1, 2] = 9  # padding
    lengths = np.array([3, 2], np.int32)
    feeds = {"x": Seq(p.astype(F32), lengths), "t": Seq(ids, lengths)}
    value, grad = _value_and_grad(cost, feeds, "x")
    for b, n in enumerate(lengths):
        want, dwant = _multi_binary_sparse_ref(p[b, :n], [[(c, 1.0)] for c in ids[b, :n]])
        np.testing.assert_allclose(value[b], want.sum(), rtol=1e-5)
        np.testing.assert_allclose(grad[b, :n], 2.0 * dwant, rtol=1e-4)
        assert not grad[b, n:].any()


# square_error over sparse labels ---------------------------------------------------
@pytest.mark.parametrize("label_type", ["sparse_binary_vector", "sparse_float_vector"])
def test_square_error_sparse_label_follows_v2s_sum_of_squares(label_type):
    """CpuMatrix::sumOfSquares / sumOfSquaresBp over a CSR label, entry by entry."""
    y = L.data(name="y", type=DT.dense_vector(4))
    t = L.data(name="t", type=getattr(DT, label_type)(4))
    w = L.data(name="w", type=DT.dense_vector(1))
    cost = SQ.square_error_cost(input=y, label=t, weight=w, coeff=1.5)
    out = RNG.normal(size=(3, 4))
    binary = label_type == "sparse_binary_vector"
    rows = [[(0, 0.5), (2, -1.5)], [], [(3, 2.0), (3, 0.25)]]
    rows = [[(c, 1.0 if binary else v) for c, v in row] for row in rows]
    wt = RNG.uniform(0.5, 2.0, size=(3, 1))
    feeds = {"y": out.astype(F32), "t": _sparse_rows(rows, 2), "w": wt.astype(F32)}
    value, grad = _value_and_grad(cost, feeds, "y")
    want, dwant = (out**2).sum(1), 2.0 * out
    for i, row in enumerate(rows):
        for col, v in row:
            want[i] += v * v - 2.0 * v * out[i, col]
            dwant[i, col] -= 2.0 * v
    np.testing.assert_allclose(value, wt[:, 0] * want, rtol=1e-5)
    np.testing.assert_allclose(grad, 1.5 * wt * dwant, rtol=1e-5, atol=1e-6)


# rank_cost beyond the clip ---------------------------------------------------------
def test_rank_cost_gradient_is_v2s_backward_beyond_the_clip():
    """logisticRegressionLossBp: ``sigmoid(clip(o, -40, 40)) - P``, not the clipped
    cost's zero slope."""
    a, b = L.data(name="a", type=DT.dense_vector(1)), L.data(name="b", type=DT.dense_vector(1))
    p = L.data(name="p", type=DT.dense_vector(1))
    w = L.data(name="w", type=DT.dense_vector(1))
    cost = R.rank_cost(left=a, right=b, label=p, weight=w)
    fa = np.array([[60.0], [-45.0], [0.7], [41.0]])
    fb = np.array([[0.0], [0.0], [-0.2], [0.5]])
    fp = np.array([[0.25], [1.0], [0.5], [0.0]])
    fw = np.array([[2.0], [1.0], [0.5], [1.0]])
    feeds = {"a": fa.astype(F32), "b": fb.astype(F32), "p": fp.astype(F32), "w": fw.astype(F32)}
    value, grad = _value_and_grad(cost, feeds, "a")
    x = np.clip(fa - fb, -40.0, 40.0)
    np.testing.assert_allclose(value, fw[:, 0] * (np.logaddexp(0, x) - fp * x)[:, 0], rtol=1e-5)
    np.testing.assert_allclose(grad, fw * (1 / (1 + np.exp(-x)) - fp), rtol=1e-5, atol=1e-7)
    less = R.less_than(left=a, right=b)
    value, grad = _value_and_grad(less, feeds, "a")
    np.testing.assert_allclose(value, np.logaddexp(0, x)[:, 0], rtol=1e-5)
    np.testing.assert_allclose(grad, 1 / (1 + np.exp(-x)), rtol=1e-5)


# cross_entropy_with_selfnorm's backward ----------------------------------------------
def test_cross_entropy_with_selfnorm_gradient_is_v2s_backward():
    """MultiClassCrossEntropyWithSelfNorm::backwardImp: ``-1/p[label]`` at the label,
    plus ``1/Z + 2 alpha log(Z) / Z`` everywhere, times coeff."""
    x = L.data(name="x", type=DT.dense_vector(5))
    lab = L.data(name="lab", type=DT.integer_value(5))
    cost = C.cross_entropy_with_selfnorm_cost(input=x, label=lab, coeff=0.5)  # alpha 0.1
    s = RNG.uniform(0.1, 3.0, size=(4, 5))
    ids = RNG.integers(0, 5, 4).astype(np.int32)
    value, grad = _value_and_grad(cost, {"x": s.astype(F32), "lab": ids}, "x")
    z = s.sum(1, keepdims=True)
    want = -np.log(s[np.arange(4), ids]) + np.log(z[:, 0]) + 0.1 * np.log(z[:, 0]) ** 2
    dwant = np.broadcast_to(1 / z + 2 * 0.1 * np.log(z) / z, s.shape).copy()
    dwant[np.arange(4), ids] -= 1 / s[np.arange(4), ids]
    np.testing.assert_allclose(value, want, rtol=1e-5)
    np.testing.assert_allclose(grad, 0.5 * dwant, rtol=1e-4)
