"""Tests of chunk and ctc_error against sequential (brute-force) decoders."""

from __future__ import annotations

import numpy as np
import pytest

from paddle_lite import evaluator as E
from paddle_lite._src.values import Seq

try:
    from tests.unit._evaluator_fixtures import RTOL, data, dt, metrics, padded
except ImportError:
    from _evaluator_fixtures import RTOL, data, dt, metrics, padded

rng = np.random.default_rng(7)


# chunk --------------------------------------------------------------------------------
SCHEME = {
    "IOB": (2, 0, 1, -1, -1),
    "IOE": (2, -1, 0, 1, -1),
    "IOBES": (4, 0, 1, 2, 3),
    "plain": (1, -1, -1, -1, -1),
}


def segments_reference(ids, scheme, n_types):
    """Chunks (begin, end, type) by walking the tags, following v2's ChunkEvaluator rules."""
    n_tag, b, i, e, s = SCHEME[scheme]
    other = n_types
    out, start, open_, prev_tag, prev_type = [], 0, False, -1, other
    for k, v in enumerate(list(ids) + [other * n_tag]):
        tag, typ = v % n_tag, v // n_tag
        if (
            open_
            and prev_type != other
            and (
                typ == other
                or typ != prev_type
                or (prev_tag in (b, i) and tag in (b, s))
                or prev_tag in (e, s)
            )
        ):
            out.append((start, k - 1, prev_type))
            open_ = False
        if typ != other and (
            prev_type == other
            or typ != prev_type
            or tag in (b, s)
            or (tag in (i, e) and prev_tag in (e, s))
        ):
            start, open_ = k, True
        prev_tag, prev_type = tag, typ
    return out


@pytest.mark.parametrize("scheme", ["IOB", "IOE", "IOBES", "plain"])
def test_chunk_counts_match_a_sequential_decoder(scheme):
    n_types, n_tag = 3, SCHEME[scheme][0]
    pred = data("p", dt.integer_value_sequence(n_types * n_tag + 1))
    lbl = data("l", dt.integer_value_sequence(n_types * n_tag + 1))
    ev = E.chunk(
        input=pred,
        label=lbl,
        chunk_scheme=scheme,
        num_chunk_types=n_types,
        excluded_chunk_types=[1],
    )
    lens = rng.integers(1, 13, 40)
    labels = [rng.integers(0, n_types * n_tag + 1, n) for n in lens]
    preds = [
        np.where(rng.random(n) < 0.3, rng.integers(0, n_types * n_tag + 1, n), t)
        for n, t in zip(lens, labels, strict=True)
    ]
    infer = label_n = correct = 0
    for p, t in zip(preds, labels, strict=True):
        sp = {c for c in segments_reference(p, scheme, n_types) if c[2] != 1}
        st = {c for c in segments_reference(t, scheme, n_types) if c[2] != 1}
        infer, label_n, correct = infer + len(sp), label_n + len(st), correct + len(sp & st)
    fill = n_types * n_tag
    got = metrics(
        ev,
        (padded(preds[:3], dtype=np.int32, fill=fill), padded(labels[:3], dtype=np.int32)),
        (padded(preds[3:], dtype=np.int32), padded(labels[3:], dtype=np.int32)),
    )
    prec, rec = correct / infer, correct / label_n
    np.testing.assert_allclose(got[f"{ev.name}.precision"], prec, rtol=RTOL)
    np.testing.assert_allclose(got[f"{ev.name}.recall"], rec, rtol=RTOL)
    np.testing.assert_allclose(got[f"{ev.name}.F1-score"], 2 * prec * rec / (prec + rec), rtol=RTOL)


def test_chunk_iob_example_and_dense_prediction():
    # B-PER I-PER O O B-ORG I-ORG I-ORG I-ORG O B-LOC; PER=0 ORG=1 LOC=2, O=6
    label = np.array([0, 1, 6, 6, 2, 3, 3, 3, 6, 4], np.int32)
    guess = np.array([0, 1, 6, 6, 2, 3, 6, 3, 6, 5], np.int32)  # ORG split, I-LOC for B-LOC
    p, t = data("p", dt.dense_vector_sequence(7)), data("t", dt.integer_value_sequence(7))
    ev = E.chunk(input=p, label=t, chunk_scheme="IOB", num_chunk_types=3)
    got = metrics(
        ev,
        (
            Seq(np.eye(7, dtype=np.float32)[guess][None], np.array([10], np.int32)),
            Seq(label[None], np.array([10], np.int32)),
        ),
    )
    # inferred PER, ORG(4-5), ORG(7-7), LOC(9-9): an I tag after O begins a chunk, so
    # LOC matches on start, end and type; correct = PER + LOC, 3 labelled chunks
    np.testing.assert_allclose(got[f"{ev.name}.precision"], 2 / 4, rtol=RTOL)
    np.testing.assert_allclose(got[f"{ev.name}.recall"], 2 / 3, rtol=RTOL)


# ctc_error ----------------------------------------------------------------------------
def levenshtein(a, b):
    d = np.arange(len(b) + 1, dtype=np.float64)
    for i, x in enumerate(a, 1):
        prev, d[0] = d.copy(), i
        for j, y in enumerate(b, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (x != y))
    return d[-1]


def test_ctc_error_best_path_edit_distance():
    x, y = data("x", dt.dense_vector_sequence(4)), data("y", dt.integer_value_sequence(3))
    ev = E.ctc_error(input=x, label=y)
    lens, lab_lens = [6, 3, 5, 1, 4], [3, 2, 0, 2, 4]
    probs = [rng.random((n, 4)) for n in lens]
    probs[4][:] = np.eye(4)[[1, 1, 3, 1]]  # decodes to [1, 1]: a blank splits the repeat
    labels = [rng.integers(0, 3, n) for n in lab_lens]
    keys = ("error", "deletion_error", "insertion_error", "substitution_error", "sequence_error")
    ref = dict.fromkeys(keys, 0.0)
    for prob, lab in zip(probs, labels, strict=True):
        best = prob.argmax(1)
        hyp = [c for k, c in enumerate(best) if c != 3 and (k == 0 or c != best[k - 1])]
        d, n, m = levenshtein(list(lab), hyp), len(lab), len(hyp)
        top = max(n, m) or 1
        parts = (d, max(n - m, 0), max(m - n, 0), d - abs(n - m))
        for k, v in zip(keys, parts, strict=False):
            ref[k] += v / top / len(lens)
        ref["sequence_error"] += (d > 0) / len(lens)
    got = metrics(
        ev,
        (padded(probs[:2], 4, fill=np.nan), padded(labels[:2], dtype=np.int32)),
        (padded(probs[2:], 4), padded(labels[2:], dtype=np.int32)),
    )
    for k in keys:
        np.testing.assert_allclose(got[f"{ev.name}.{k}"], ref[k], rtol=RTOL, atol=1e-7)


def test_valid_leaves_padded_samples_out():
    x, y = data("x", dt.dense_vector_sequence(4)), data("y", dt.integer_value_sequence(3))
    ctc = E.ctc_error(input=x, label=y)
    chk = E.chunk(input=y, label=y, chunk_scheme="IOB", num_chunk_types=1)
    probs = [rng.random((n, 4)) for n in (3, 5, 2)]
    labels = [rng.integers(0, 3, n) for n in (3, 5, 2)]
    xv, yv = padded(probs, 4), padded(labels, dtype=np.int32)
    short = (Seq(xv.data[:2], xv.lengths[:2]), Seq(yv.data[:2], yv.lengths[:2]))
    valid = np.array([True, True, False])
    for ev, full, part in ((ctc, [xv, yv], list(short)), (chk, [yv, yv], [short[1]] * 2)):
        want = ev.batch_stats(part)
        got = ev.batch_stats(full, valid)
        for k in want:
            np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=RTOL)
        assert float(want[next(iter(want))]) > 0


def test_ctc_error_empty_label_decoded_empty_counts_as_no_error():
    # v2 divided 0 by max(n, m) = 0 here, and the pass's error became NaN; here the
    # sequence is right (0) and still counts in the average
    x, y = data("x", dt.dense_vector_sequence(3)), data("y", dt.integer_value_sequence(2))
    ev = E.ctc_error(input=x, label=y)
    blank = np.eye(3, dtype=np.float32)[[2, 2]]  # decodes to nothing
    wrong = np.eye(3, dtype=np.float32)[[0, 2, 0]]  # decodes to [0, 0]
    got = metrics(
        ev,
        (padded([blank, wrong], 3), padded([np.zeros(0), np.array([1])], dtype=np.int32)),
    )
    # second sequence: d([1], [0, 0]) = 2 over max(1, 2): 1 substitution + 1 insertion
    assert got[f"{ev.name}.error"] == pytest.approx((0 + 2 / 2) / 2)
    assert got[f"{ev.name}.insertion_error"] == pytest.approx((0 + 1 / 2) / 2)
    assert got[f"{ev.name}.substitution_error"] == pytest.approx((0 + 1 / 2) / 2)
    assert got[f"{ev.name}.sequence_error"] == pytest.approx(1 / 2)
