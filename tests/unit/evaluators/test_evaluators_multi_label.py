"""Multi-label classification_error and precision_recall against float64 transcriptions of
v2's C++ (CpuMatrix::classificationErrorMulti, BaseMatrix::binaryClassificationError,
PrecisionRecallEvaluator::calcStatsInfoMulti / getStatsInfo)."""

from __future__ import annotations

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite import evaluator as E
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError

try:
    from tests.unit._evaluator_fixtures import RTOL, data, dt, metrics
except ImportError:
    from _evaluator_fixtures import RTOL, data, dt, metrics

rng = np.random.default_rng(11)


def random_label_sets(n, dim):
    """Per row a list of distinct positive columns (some rows with none)."""
    return [list(rng.choice(dim, size=rng.integers(0, dim), replace=False)) for _ in range(n)]


def as_sparse(sets, values=None):
    """Sparse ids/values padded with id 0, value 0 (as the feeder pads)."""
    k = max(max((len(s) for s in sets), default=0), 1) + 1
    ids = np.zeros((len(sets), k), np.int32)
    vals = np.zeros((len(sets), k), np.float32)
    for i, s in enumerate(sets):
        ids[i, : len(s)] = s
        vals[i, : len(s)] = 1.0 if values is None else values[i][: len(s)]
    return Sparse(ids, vals)


def v2_error_multi(out, sets, thr):
    """CpuMatrix::classificationErrorMulti, row by row."""
    err = np.zeros(len(out))
    for i, row in enumerate(out.astype(np.float64)):
        total = float(np.sum(row >= thr))
        for c in sets[i]:
            total += 1.0 if row[c] < thr else -1.0
        err[i] = total / row.shape[0]
    return err


def v2_binary_error(out, label, thr):
    """BaseMatrix::binaryClassificationError: this[i] += sum_j ((b > p) == (c > p) ? 0 : 1)."""
    return np.sum((out > thr) != (label > thr), axis=1).astype(np.float64)


def test_classification_error_sparse_label_is_v2_mean_of_wrong_columns():
    x, w = data("x", dt.dense_vector(5)), data("w", dt.dense_vector(1))
    y = data("y", dt.sparse_binary_vector(5))
    plain = E.classification_error(input=x, label=y)
    weighted = E.classification_error(input=x, label=y, weight=w, threshold=0.3)
    out = rng.random((9, 5)).astype(np.float32)
    out[0, :2] = [0.5, 0.3]  # exactly at each threshold: v2 counts >= as predicted
    sets = random_label_sets(9, 5)
    wt = rng.random((9, 1)).astype(np.float32)
    ref = v2_error_multi(out, sets, 0.5).sum() / 9
    got = metrics(plain, (out[:4], as_sparse(sets[:4])), (out[4:], as_sparse(sets[4:])))
    np.testing.assert_allclose(got[plain.name], ref, rtol=RTOL)
    ref_w = (v2_error_multi(out, sets, 0.3) * wt[:, 0]).sum() / wt.sum()
    got_w = metrics(weighted, (out, as_sparse(sets), wt))[weighted.name]
    np.testing.assert_allclose(got_w, ref_w, rtol=RTOL)


def test_classification_error_sparse_float_label_reads_the_columns():
    x, y = data("x", dt.dense_vector(4)), data("y", dt.sparse_float_vector(4))
    ev = E.classification_error(input=x, label=y)
    out = rng.random((6, 4)).astype(np.float32)
    sets = random_label_sets(6, 4)
    values = [list(rng.uniform(0.1, 3.0, 4)) for _ in range(6)]  # v2 ignores the values
    got = metrics(ev, (out, as_sparse(sets, values)))[ev.name]
    np.testing.assert_allclose(got, v2_error_multi(out, sets, 0.5).mean(), rtol=RTOL)


def test_classification_error_dense_label_counts_wrong_columns_like_v2():
    x, y = data("x", dt.dense_vector(4)), data("y", dt.dense_vector(4))
    ev = E.classification_error(input=x, label=y, threshold=0.4)
    out = rng.random((8, 4)).astype(np.float32)
    out[0, 0] = 0.4  # at the threshold: v2's binary error compares with >
    label = (rng.random((8, 4)) < 0.5).astype(np.float32)
    ref = v2_binary_error(out, label, 0.4).mean()  # per sample, not divided by the width
    assert ref > 1.0  # the count of wrong columns, as v2 reported it
    np.testing.assert_allclose(metrics(ev, (out, label))[ev.name], ref, rtol=RTOL)


def test_classification_error_sparse_label_sequences_count_steps():
    x = data("xs", dt.dense_vector_sequence(3))
    y = data("ys", dt.sparse_binary_vector_sequence(3))
    ev = E.classification_error(input=x, label=y)
    lens = [3, 1, 2]
    outs = [rng.random((n, 3)).astype(np.float32) for n in lens]
    sets = [random_label_sets(n, 3) for n in lens]
    t = 5
    xd = np.full((3, t, 3), np.nan, np.float32)
    ids = np.zeros((3, t, 3), np.int32)
    vals = np.zeros((3, t, 3), np.float32)
    for b, n in enumerate(lens):
        xd[b, :n] = outs[b]
        sp = as_sparse(sets[b])
        ids[b, :n, : sp.ids.shape[1]] = sp.ids
        vals[b, :n, : sp.ids.shape[1]] = sp.values
    ids[:, :, -1], vals[:, :, -1] = 2, 0.0  # padding entries list nothing
    lengths = np.asarray(lens, np.int32)
    ref = np.concatenate([v2_error_multi(o, s, 0.5) for o, s in zip(outs, sets, strict=True)])
    got = metrics(ev, (Seq(xd, lengths), Seq(Sparse(ids, vals), lengths)))[ev.name]
    np.testing.assert_allclose(got, ref.mean(), rtol=RTOL)


def v2_precision_recall_multi(out, sets, w, thr=0.5):
    """PrecisionRecallEvaluator::calcStatsInfoMulti, then getStatsInfo (macro and micro)."""
    n, dim = out.shape
    tp, fp, fn = np.zeros(dim), np.zeros(dim), np.zeros(dim)
    for i in range(n):
        for j in range(dim):
            if not out[i, j] < thr:
                fp[j] += w[i]
        for c in sets[i]:
            if out[i, c] < thr:
                fn[c] += w[i]
            else:
                tp[c] += w[i]
                fp[c] -= w[i]

    def prec(a, b):
        return a / (a + b) if a > 0 or b > 0 else 1.0

    def f1(p, r):
        return 2 * p * r / (p + r) if p > 0 or r > 0 else 0.0

    macro_p = np.mean([prec(a, b) for a, b in zip(tp, fp, strict=True)])
    macro_r = np.mean([prec(a, b) for a, b in zip(tp, fn, strict=True)])
    micro_p, micro_r = prec(tp.sum(), fp.sum()), prec(tp.sum(), fn.sum())
    per_class = [(prec(tp[c], fp[c]), prec(tp[c], fn[c])) for c in range(dim)]
    return {
        "macro-average-precision": macro_p,
        "macro-average-recall": macro_r,
        "macro-average-F1-score": f1(macro_p, macro_r),
        "micro-average-precision": micro_p,
        "micro-average-recall": micro_r,
        "micro-average-F1-score": f1(micro_p, micro_r),
    }, per_class


def test_precision_recall_sparse_label_macro_micro_and_positive_label():
    x, w = data("x", dt.dense_vector(4)), data("w", dt.dense_vector(1))
    y = data("y", dt.sparse_binary_vector(4))
    macro = E.precision_recall(input=x, label=y, weight=w)
    one = E.precision_recall(input=x, label=y, positive_label=2)
    out = rng.random((12, 4)).astype(np.float32)
    out[0, 1] = 0.5  # v2: a score at 0.5 is predicted positive
    sets = random_label_sets(12, 4)
    wt = rng.random((12, 1)).astype(np.float32)
    ref, _ = v2_precision_recall_multi(out.astype(np.float64), sets, wt[:, 0].astype(np.float64))
    got = metrics(
        macro, (out[:5], as_sparse(sets[:5]), wt[:5]), (out[5:], as_sparse(sets[5:]), wt[5:])
    )
    assert set(got) == {f"{macro.name}.{k}" for k in ref} | {
        f"{macro.name}.{k}" for k in ("precision", "recal", "F1-score")
    }
    for k, v in ref.items():
        np.testing.assert_allclose(got[f"{macro.name}.{k}"], v, rtol=RTOL)
    _, per_class = v2_precision_recall_multi(out.astype(np.float64), sets, np.ones(12))
    p, r = per_class[2]
    got1 = metrics(one, (out, as_sparse(sets)))
    np.testing.assert_allclose(got1[f"{one.name}.precision"], p, rtol=RTOL)
    np.testing.assert_allclose(got1[f"{one.name}.recal"], r, rtol=RTOL)


def test_multi_label_checks_name_the_evaluator():
    x = data("x", dt.dense_vector(4))
    with pytest.raises(LayerConfigError, match="'bad'.*label 'y3'.*3.*4"):
        E.classification_error(input=x, label=data("y3", dt.sparse_binary_vector(3)), name="bad")
    with pytest.raises(LayerConfigError, match="'bad2'.*label 'yd'"):
        E.classification_error(input=x, label=data("yd", dt.dense_vector(2)), name="bad2")
    with pytest.raises(LayerConfigError, match="'pr'.*label 'yd4'"):  # v2 stopped on dense
        E.precision_recall(input=x, label=data("yd4", dt.dense_vector(4)), name="pr")


def test_multi_label_error_through_the_trainer():
    x = data("x", dt.dense_vector(3))
    y = data("y", dt.sparse_binary_vector(4))
    prob = paddle.layer.fc(input=x, size=4, act=paddle.activation.Sigmoid())
    cost = paddle.layer.multi_binary_label_cross_entropy_cost(input=prob, label=y)
    ev = E.classification_error(input=prob, label=y)
    params = paddle.parameters.create(cost)
    xs = rng.normal(size=(7, 3)).astype(np.float32)
    sets = random_label_sets(7, 4)
    w, b = params.get(f"_{prob.name}.w0"), params.get(f"_{prob.name}.wbias")
    out = 1 / (1 + np.exp(-(xs.astype(np.float64) @ w + b.reshape(-1))))
    sgd = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(learning_rate=0)
    )
    rows = [(xs[i], [int(c) for c in sets[i]]) for i in range(7)]
    result = sgd.test(reader=paddle.batch(lambda: iter(rows), 4))
    ref = v2_error_multi(out, sets, 0.5).mean()
    assert result.metrics[ev.name] == pytest.approx(ref, rel=RTOL)
