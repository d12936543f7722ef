"""Tests of paddle.evaluator: the evaluator contract, classification_error, declaring."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite import evaluator as E
from paddle_lite._src import graph
from paddle_lite._src.evaluators.base import total_stats
from paddle_lite._src.evaluators.classification import auto_evaluators, first_max
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

try:
    from tests.unit._evaluator_fixtures import RTOL, data, dt, metrics, padded
except ImportError:
    from _evaluator_fixtures import RTOL, data, dt, metrics, padded

rng = np.random.default_rng(7)


# classification_error ----------------------------------------------------------------
def test_classification_error_argmax_top_k_and_weight():
    x, y = data("x", dt.dense_vector(5)), data("y", dt.integer_value(5))
    w = data("w", dt.dense_vector(1))
    plain = E.classification_error(input=x, label=y)
    top2 = E.classification_error(input=x, label=y, top_k=2)
    weighted = E.classification_error(input=x, label=y, weight=w)
    p = rng.random((12, 5)).astype(np.float32)
    lbl = rng.integers(0, 5, 12).astype(np.int32)
    wt = rng.random((12, 1)).astype(np.float32)
    wrong = np.array([np.argmax(r) != t for r, t in zip(p, lbl, strict=True)], np.float64)
    wrong2 = np.array([t not in np.argsort(-r)[:2] for r, t in zip(p, lbl, strict=True)], float)
    assert plain.name == "__classification_error_evaluator_0__"
    np.testing.assert_allclose(metrics(plain, (p, lbl))[plain.name], wrong.mean(), rtol=RTOL)
    np.testing.assert_allclose(metrics(top2, (p, lbl))[top2.name], wrong2.mean(), rtol=RTOL)
    ref = (wrong * wt[:, 0]).sum() / wt.sum()
    np.testing.assert_allclose(metrics(weighted, (p, lbl, wt))[weighted.name], ref, rtol=RTOL)


def test_first_max_is_argmax_with_ties_infinities_and_nans():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (400, 7)).astype(np.float32)  # many ties
    for value, share in ((np.nan, 0.15), (np.inf, 0.1), (-np.inf, 0.1), (-0.0, 0.1)):
        x[rng.random(x.shape) < share] = value
    x[:3] = -np.inf  # rows of -inf only
    x[3] = [0.0, -0.0, 0.0, -0.0, -1.0, -1.0, -1.0]
    got = np.asarray(jax.jit(first_max)(x))
    np.testing.assert_array_equal(got, np.argmax(x, axis=-1))  # numpy: first NaN, first max
    np.testing.assert_array_equal(got, np.asarray(jax.numpy.argmax(x, axis=-1)))


def test_classification_error_threshold_on_size_one_input():
    s, y, d = (
        data("s", dt.dense_vector(1)),
        data("y", dt.integer_value(2)),
        data("d", dt.dense_vector(1)),
    )
    by_id = E.classification_error(input=s, label=y, threshold=0.3)
    by_value = E.classification_error(input=s, label=d)
    p = np.array([[0.1], [0.35], [0.6], [0.9], [0.25]], np.float32)
    ids = np.array([0, 0, 1, 0, 1], np.int32)
    np.testing.assert_allclose(metrics(by_id, (p, ids))[by_id.name], 3 / 5, rtol=RTOL)
    vals = np.array([[0.0], [1.0], [1.0], [0.0], [0.0]], np.float32)  # threshold 0.5
    np.testing.assert_allclose(metrics(by_value, (p, vals))[by_value.name], 2 / 5, rtol=RTOL)


def test_classification_error_per_token_with_padding_and_weights():
    xs, ys = data("xs", dt.dense_vector_sequence(3)), data("ys", dt.integer_value_sequence(3))
    ws = data("ws", dt.dense_vector_sequence(1))
    w = data("w", dt.dense_vector(1))
    per_step = E.classification_error(input=xs, label=ys, weight=ws)
    per_seq = E.classification_error(input=xs, label=ys, weight=w)
    lens = [4, 1, 3]
    probs = [rng.random((n, 3)) for n in lens]
    lbls = [rng.integers(0, 3, n) for n in lens]
    wsteps = [rng.random((n, 1)) for n in lens]
    wseq = rng.random((3, 1)).astype(np.float32)
    xv = padded(probs, 3, fill=np.nan)
    yv, wv = padded(lbls, dtype=np.int32), padded(wsteps, 1)
    wrong = [np.argmax(p, 1) != t for p, t in zip(probs, lbls, strict=True)]
    ref_step = sum((e * s[:, 0]).sum() for e, s in zip(wrong, wsteps, strict=True)) / sum(
        s.sum() for s in wsteps
    )
    ref_seq = sum(e.sum() * wseq[i, 0] for i, e in enumerate(wrong)) / sum(
        n * wseq[i, 0] for i, n in enumerate(lens)
    )
    np.testing.assert_allclose(metrics(per_step, (xv, yv, wv))[per_step.name], ref_step, rtol=RTOL)
    np.testing.assert_allclose(metrics(per_seq, (xv, yv, wseq))[per_seq.name], ref_seq, rtol=RTOL)


def test_classification_error_nested_sequence_counts_valid_steps():
    xs = data("xs", dt.dense_vector_sub_sequence(2))
    ys = data("ys", dt.integer_value_sub_sequence(2))
    ev = E.classification_error(input=xs, label=ys)
    x = rng.random((2, 2, 3, 2)).astype(np.float32)
    y = rng.integers(0, 2, (2, 2, 3)).astype(np.int32)
    lengths, sub = np.array([2, 1], np.int32), np.array([[3, 1], [2, 0]], np.int32)
    valid = [(b, s, t) for b in range(2) for s in range(lengths[b]) for t in range(sub[b, s])]
    ref = np.mean([np.argmax(x[v]) != y[v] for v in valid])
    got = metrics(ev, (Seq(x, lengths, sub), Seq(y, lengths, sub)))[ev.name]
    np.testing.assert_allclose(got, ref, rtol=RTOL)


def test_stats_are_additive_and_valid_masks_padded_samples():
    x, y = data("x", dt.dense_vector(4)), data("y", dt.integer_value(4))
    ev = E.classification_error(input=x, label=y)
    p = rng.random((10, 4)).astype(np.float32)
    lbl = rng.integers(0, 4, 10).astype(np.int32)
    one = ev.batch_stats([p, lbl])
    two = total_stats([ev.batch_stats([p[:6], lbl[:6]]), ev.batch_stats([p[6:], lbl[6:]])])
    for k in one:
        np.testing.assert_allclose(two[k], np.asarray(one[k]), rtol=RTOL)
    short = ev.batch_stats([p[:7], lbl[:7]])
    masked = jax.jit(ev.batch_stats)([p, lbl], np.arange(10) < 7)
    for k in short:
        np.testing.assert_allclose(np.asarray(masked[k]), np.asarray(short[k]), rtol=RTOL)


# automatic evaluators, declaration, jit ---------------------------------------------------
def cost_layer(weighted):
    x, y = data("x", dt.dense_vector(4)), data("y", dt.integer_value(3))
    w = data("w", dt.dense_vector(1)) if weighted else None
    prob = paddle.layer.fc(input=x, size=3, act=paddle.activation.Softmax())
    try:
        from paddle_lite._src.layers.cost.basic import classification_cost
    except ImportError:
        inputs = (prob, y) + ((w,) if weighted else ())
        attrs = {"evaluators": ("classification_error",), "weighted": weighted}
        return (
            graph.Layer("__cost_0__", "multi_class_cross_entropy", inputs, attrs, Spec(1)),
            prob,
            y,
            w,
        )
    return classification_cost(input=prob, label=y, weight=w), prob, y, w


@pytest.mark.parametrize("weighted", [False, True])
def test_auto_evaluators_of_classification_cost(weighted):
    cost, prob, y, w = cost_layer(weighted)
    [ev] = auto_evaluators(cost)
    assert ev.name == "classification_error_evaluator"
    assert ev.inputs == ((prob, y, w) if weighted else (prob, y))
    assert graph.current_scope().evaluators == []
    p = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]], np.float32)
    vals = [p, np.array([1, 2], np.int32)] + (
        [np.array([[1.0], [3.0]], np.float32)] if weighted else []
    )
    assert metrics(ev, vals) == {"classification_error_evaluator": 0.75 if weighted else 0.5}
    assert auto_evaluators(prob) == []
    bad = graph.Layer("c", "x", (prob, y), {"evaluators": ("chunk",)}, Spec(1))
    with pytest.raises(LayerConfigError, match="'c'.*'chunk'"):
        auto_evaluators(bad)


def test_several_classification_costs_report_the_first_ones_error():
    # v2 ran every classification_error_evaluator but its CombinedEvaluator returned, for
    # the shared name, the first one's value (config order: the costs' order in addto).
    x = paddle.layer.data(name="x", type=dt.dense_vector(4))
    labels = [paddle.layer.data(name=f"l{i}", type=dt.integer_value(4)) for i in range(3)]
    probs = [
        paddle.layer.fc(input=x, size=4, act=paddle.activation.Softmax(), name=f"p{i}")
        for i in range(3)
    ]
    costs = [
        paddle.layer.classification_cost(input=p, label=lb)
        for p, lb in zip(probs, labels, strict=True)
    ]
    cost = paddle.layer.addto(input=costs, bias_attr=False, act=paddle.activation.Linear())
    params = paddle.parameters.create(cost)
    xs = rng.normal(size=(10, 4)).astype(np.float32)
    ls = rng.integers(0, 4, (3, 10))
    errors = []
    for i in range(3):
        w, b = params.get(f"_p{i}.w0").astype(np.float64), params.get(f"_p{i}.wbias")
        errors.append(np.mean(np.argmax(xs @ w + b.reshape(-1), axis=1) != ls[i]))
    assert len(set(errors)) > 1  # the heads disagree, so the pick is visible
    rows = [(xs[n], *(int(ls[i, n]) for i in range(3))) for n in range(10)]
    sgd = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(learning_rate=0)
    )
    result = sgd.test(reader=paddle.batch(lambda: iter(rows), 10))
    assert result.metrics == {"classification_error_evaluator": pytest.approx(errors[0])}


def test_declaration_names_and_reset():
    x, y = data("x", dt.dense_vector(2)), data("y", dt.integer_value(2))
    a = E.classification_error(input=x, label=y)
    b = E.auc(input=x, label=y, name="my_auc")
    c = E.classification_error(input=x, label=y)
    assert graph.current_scope().evaluators == [a, b, c]
    assert (a.name, b.name, c.name) == (
        "__classification_error_evaluator_0__",
        "my_auc",
        "__classification_error_evaluator_1__",
    )
    with graph.name_scope():
        inner = E.sum(input=x)
        assert graph.current_scope().evaluators == [inner]
    graph.reset_names()
    assert graph.current_scope().evaluators == []
    assert E.classification_error(input=x, label=y).name == "__classification_error_evaluator_0__"
    assert sorted(E.__all__) == E.__all__ and "chunk" in E.__all__


def all_evaluators():
    x, y = data("x", dt.dense_vector(3)), data("y", dt.integer_value(3))
    q, w = data("q", dt.integer_value(2)), data("w", dt.dense_vector(1))
    xs, ys = data("xs", dt.dense_vector_sequence(3)), data("ys", dt.integer_value_sequence(3))
    flat = [
        E.classification_error(input=x, label=y, weight=w, top_k=2),
        E.auc(input=x, label=y, weight=w),
        E.precision_recall(input=x, label=y, weight=w),
        E.pnpair(input=x, label=y, query_id=q, weight=w),
        E.sum(input=x, weight=w),
        E.column_sum(input=x, weight=w),
    ]
    seq = [
        E.chunk(input=ys, label=ys, chunk_scheme="IOB", num_chunk_types=1),
        E.ctc_error(input=xs, label=ys),
    ]
    return flat, seq


def test_batch_stats_jit_equals_eager():
    flat, seq = all_evaluators()
    p = rng.random((5, 3)).astype(np.float32)
    ids = rng.integers(0, 3, 5).astype(np.int32)
    q, w = rng.integers(0, 2, 5).astype(np.int32), rng.random((5, 1)).astype(np.float32)
    sx = Seq(rng.random((3, 4, 3)).astype(np.float32), np.array([4, 2, 0], np.int32))
    sy = Seq(rng.integers(0, 3, (3, 4)).astype(np.int32), np.array([3, 2, 0], np.int32))
    cases = [
        (ev, [p, ids, q, w] if "pnpair" in ev.name else [p, w] if "sum" in ev.name else [p, ids, w])
        for ev in flat
    ]
    cases += [(seq[0], [sy, sy]), (seq[1], [sx, sy])]
    for ev, vals in cases:
        assert metrics(ev, vals) == pytest.approx(metrics(ev, vals, jit=False), rel=RTOL)


def test_typed_errors_name_the_evaluator_and_argument():
    x, y = data("x", dt.dense_vector(3)), data("y", dt.integer_value(3))
    # a dense label of the input's width is v2's multi-label error; of another width, refused
    f, s = data("f", dt.dense_vector(2)), data("s", dt.integer_value_sequence(3))
    with pytest.raises(LayerConfigError, match="classification_error_evaluator_0__.*label 'f'"):
        E.classification_error(input=x, label=f)
    with pytest.raises(LayerTypeError, match="input must be a layer"):
        E.auc(input="x", label=y)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'topk'"):
        E.classification_error(input=x, label=y, topk=2)
    with pytest.raises(LayerConfigError, match="top_k is 4"):
        E.classification_error(input=x, label=y, top_k=4)
    with pytest.raises(LayerConfigError, match="weight 'x' has size 3"):
        E.sum(input=x, weight=x)
    with pytest.raises(LayerConfigError, match="label 's' has seq_level 1"):
        E.precision_recall(input=x, label=s)
    with pytest.raises(LayerConfigError, match="positive_label is 3"):
        E.precision_recall(input=x, label=y, positive_label=3)
    with pytest.raises(LayerTypeError, match="query_id"):
        E.pnpair(input=x, label=y)
    with pytest.raises(LayerConfigError, match="chunk_scheme is 'BIO'"):
        E.chunk(input=s, label=s, chunk_scheme="BIO", num_chunk_types=1)
    with pytest.raises(LayerConfigError, match="input 'y' has seq_level 0"):
        E.chunk(input=y, label=s, chunk_scheme="IOB", num_chunk_types=1)
    with pytest.raises(LayerConfigError, match="ctc_error.*input 'x' has seq_level 0"):
        E.ctc_error(input=x, label=s)
    assert graph.current_scope().evaluators == []
