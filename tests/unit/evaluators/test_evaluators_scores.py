"""Tests of auc, precision_recall, pnpair, sum and column_sum against float64 references."""

from __future__ import annotations

import itertools

import numpy as np

from paddle_lite import evaluator as E

try:
    from tests.unit._evaluator_fixtures import RTOL, data, dt, metrics, padded
except ImportError:
    from _evaluator_fixtures import RTOL, data, dt, metrics, padded

rng = np.random.default_rng(7)


# auc ----------------------------------------------------------------------------------
def exact_auc(score, label, weight):
    pos, neg = label != 0, label == 0
    num = 0.0
    for i, j in itertools.product(np.flatnonzero(pos), np.flatnonzero(neg)):
        num += (
            weight[i]
            * weight[j]
            * (1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0)
        )
    return num / (weight[pos].sum() * weight[neg].sum())


def test_auc_matches_exact_auc_on_last_column():
    x, y, w = (
        data("x", dt.dense_vector(2)),
        data("y", dt.integer_value(2)),
        data("w", dt.dense_vector(1)),
    )
    plain, weighted = E.auc(input=x, label=y), E.auc(input=x, label=y, weight=w)
    s = rng.random(300)
    prob = np.stack([1 - s, s], 1).astype(np.float32)
    lbl = (rng.random(300) < 0.3 + 0.4 * s).astype(np.int32)
    wt = rng.random((300, 1)).astype(np.float32)
    batches = [(prob[:150], lbl[:150]), (prob[150:], lbl[150:])]
    ref = exact_auc(prob[:, 1].astype(np.float64), lbl, np.ones(300))
    np.testing.assert_allclose(metrics(plain, *batches)[plain.name], ref, atol=1e-3)
    ref_w = exact_auc(prob[:, 1].astype(np.float64), lbl, wt[:, 0].astype(np.float64))
    got = metrics(weighted, (prob, lbl, wt))[weighted.name]
    np.testing.assert_allclose(got, ref_w, atol=1e-3)


def test_auc_ties_and_missing_class():
    x, y = data("x", dt.dense_vector(1)), data("y", dt.integer_value(2))
    ev = E.auc(input=x, label=y)
    p = np.array([[0.5], [0.5], [0.9], [0.1]], np.float32)
    lbl = np.array([1, 0, 1, 0], np.int32)
    np.testing.assert_allclose(metrics(ev, (p, lbl))[ev.name], (1 + 1 + 1 + 0.5) / 4, rtol=RTOL)
    assert metrics(ev, (p, np.ones(4, np.int32)))[ev.name] == 0.0


# precision_recall ---------------------------------------------------------------------
def prf_reference(pred, label, w, n):
    tp, fp, fn = np.zeros(n), np.zeros(n), np.zeros(n)
    for p, t, v in zip(pred, label, w, strict=True):
        if p == t:
            tp[p] += v
        else:
            fp[p] += v
            fn[t] += v
    ratio = lambda a, b: a / (a + b) if a + b > 0 else 1.0  # noqa: E731
    return tp, fp, fn, ratio


def test_precision_recall_macro_micro_and_positive_label():
    x, y, w = (
        data("x", dt.dense_vector(4)),
        data("y", dt.integer_value(4)),
        data("w", dt.dense_vector(1)),
    )
    macro = E.precision_recall(input=x, label=y, weight=w)
    one = E.precision_recall(input=x, label=y, positive_label=2)
    p = rng.random((40, 4)).astype(np.float32)
    p[:, 3] = 0.0  # class 3 is never predicted
    lbl = rng.integers(0, 3, 40).astype(np.int32)  # and never labelled: P = R = 1
    wt = rng.random((40, 1)).astype(np.float32)
    tp, fp, fn, ratio = prf_reference(p.argmax(1), lbl, wt[:, 0].astype(np.float64), 4)
    mp = np.mean([ratio(a, b) for a, b in zip(tp, fp, strict=True)])
    mr = np.mean([ratio(a, b) for a, b in zip(tp, fn, strict=True)])
    got = metrics(macro, (p[:25], lbl[:25], wt[:25]), (p[25:], lbl[25:], wt[25:]))
    n = macro.name
    np.testing.assert_allclose(got[f"{n}.macro-average-precision"], mp, rtol=RTOL)
    np.testing.assert_allclose(got[f"{n}.macro-average-recall"], mr, rtol=RTOL)
    np.testing.assert_allclose(
        got[f"{n}.macro-average-F1-score"], 2 * mp * mr / (mp + mr), rtol=RTOL
    )
    np.testing.assert_allclose(got[f"{n}.micro-average-precision"], tp.sum() / wt.sum(), rtol=RTOL)
    tp, fp, fn, ratio = prf_reference(p.argmax(1), lbl, np.ones(40), 4)
    got = metrics(one, (p, lbl))
    pr, rc = ratio(tp[2], fp[2]), ratio(tp[2], fn[2])
    assert set(got) == {f"{one.name}.precision", f"{one.name}.recal", f"{one.name}.F1-score"}
    np.testing.assert_allclose(got[f"{one.name}.precision"], pr, rtol=RTOL)
    np.testing.assert_allclose(got[f"{one.name}.recal"], rc, rtol=RTOL)
    np.testing.assert_allclose(got[f"{one.name}.F1-score"], 2 * pr * rc / (pr + rc), rtol=RTOL)


# pnpair -------------------------------------------------------------------------------
def test_pnpair_counts_ordered_pairs_within_queries():
    x, y = data("x", dt.dense_vector(2)), data("y", dt.integer_value(3))
    q, w = data("q", dt.integer_value(4)), data("w", dt.dense_vector(1))
    ev = E.pnpair(input=x, label=y, query_id=q, weight=w)
    old = E.pnpair(input=x, label=y, info=q)
    s = rng.random((16, 2)).astype(np.float32)
    s[3, 1] = s[4, 1]
    lbl = rng.integers(0, 3, 16).astype(np.int32)
    qid = rng.integers(0, 4, 16).astype(np.int32)
    wt = rng.random((16, 1)).astype(np.float32)
    pos = neg = 0.0
    for i, j in itertools.combinations(range(16), 2):
        if qid[i] != qid[j] or lbl[i] == lbl[j] or s[i, 1] == s[j, 1]:
            continue
        pw = (wt[i, 0] + wt[j, 0]) / 2.0
        if (s[i, 1] > s[j, 1]) == (lbl[i] > lbl[j]):
            pos += pw
        else:
            neg += pw
    np.testing.assert_allclose(metrics(ev, (s, lbl, qid, wt))[ev.name], pos / neg, rtol=RTOL)
    assert old.inputs[2] is q and old.name == "__pnpair_evaluator_1__"


# sum / column_sum ---------------------------------------------------------------------
def test_sum_and_column_sum_divide_by_samples_like_v2():
    x, w = data("x", dt.dense_vector(3)), data("w", dt.dense_vector(1))
    ids, seq = data("i", dt.integer_value(9)), data("s", dt.dense_vector_sequence(3))
    total, last = E.sum(input=x, weight=w), E.column_sum(input=x)
    id_sum, seq_sum = E.sum(input=ids), E.sum(input=seq)
    v = rng.random((6, 3)).astype(np.float32)
    wt = rng.random((6, 1)).astype(np.float32)
    ref = (v.astype(np.float64) * wt).sum() / wt.sum()
    np.testing.assert_allclose(
        metrics(total, (v[:2], wt[:2]), (v[2:], wt[2:]))[total.name], ref, rtol=RTOL
    )
    np.testing.assert_allclose(metrics(last, (v,))[last.name], v[:, 2].mean(), rtol=RTOL)
    iv = np.array([1, 5, 7, 0], np.int32)
    np.testing.assert_allclose(metrics(id_sum, (iv,))[id_sum.name], 13 / 4, rtol=RTOL)
    steps = [rng.random((n, 3)) for n in (2, 5)]
    ref = sum(s.sum() for s in steps) / 7
    np.testing.assert_allclose(
        metrics(seq_sum, (padded(steps, 3, fill=np.nan),))[seq_sum.name], ref, rtol=RTOL
    )
