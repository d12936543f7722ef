"""What v2's text and sequence model programs (2017-18) relied on, each in a small network.

Each test builds a network with the same calls used the same way as one of those programs
and checks the behaviour v2 gave it.
"""

from __future__ import annotations

import numpy as np
import pytest

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _infer(out, params, rows, field="value"):
    return paddle.infer(output_layer=out, parameters=params, input=rows, field=field)


def test_recurrent_reverse_takes_zero_and_one():
    # A stacked tagger alternated directions with ``reverse=i % 2``: v2 kept the flag in a
    # proto bool field, which takes the integers 0 and 1.
    x = L.data(name="rv_x", type=DT.dense_vector_sequence(3))
    flags = (0, 1, False, True)  # 0 == False as dict keys, so index by position
    outs = [
        L.recurrent(input=x, reverse=f, act=A.Relu(), name=f"rv_{i}") for i, f in enumerate(flags)
    ]
    params = paddle.parameters.create(outs)
    for i in range(len(flags)):
        params.set(f"_rv_{i}.w0", np.full((3, 3), 0.2, dtype=np.float32))
    rows = [[(np.arange(9, dtype=np.float32).reshape(3, 3) / 9 - 0.3).tolist()]]
    got = [_infer(o, params, rows) for o in outs]
    np.testing.assert_allclose(got[0], got[2])
    np.testing.assert_allclose(got[1], got[3])
    assert not np.allclose(got[0], got[1])
    with pytest.raises(paddle.errors.LayerTypeError, match="reverse must be a bool"):
        L.recurrent(input=x, reverse="yes")


def test_param_conf_reports_each_parameters_init_and_dims():
    # A question-answering program logged, for each parameter, the initial mean/std and
    # dims from ``parameters.__param_conf__`` beside the actual values.
    x = L.data(name="pc_x", type=DT.dense_vector(4))
    fc = L.fc(
        input=x,
        size=3,
        name="pc_fc",
        param_attr=paddle.attr.Param(initial_mean=0.1, initial_std=0.02),
        bias_attr=paddle.attr.Param(initial_std=0.0),
    )
    params = paddle.parameters.create(fc)
    conf = params.__param_conf__
    assert list(conf) == list(params) == ["_pc_fc.w0", "_pc_fc.wbias"]
    w = conf["_pc_fc.w0"]
    assert (w.initial_mean, w.initial_std, tuple(w.dims)) == (0.1, 0.02, (4, 3))
    assert tuple(conf["_pc_fc.wbias"].dims) == (1, 3)
    assert conf["_pc_fc.wbias"].initial_std == 0.0
    assert w.size == 12


def test_infer_flattens_a_nested_sequence_output_into_v2_rows():
    # A convolutional seq2seq program read its attention weights back with
    # ``Inference.infer(..., flatten_result=False)`` and reshaped them to
    # (target length, source length): a group whose step outputs a sequence gives a nested
    # sequence, and v2 returns its steps' rows one sub-sequence after another, no padding.
    src = L.data(name="ns_src", type=DT.dense_vector_sequence(2))
    trg = L.data(name="ns_trg", type=DT.dense_vector_sequence(2))

    def step(_, enc):
        return L.fc(input=enc, size=1, act=A.Linear(), bias_attr=False, name="ns_att")

    out = L.recurrent_group(step=step, input=[trg, L.StaticInput(input=src)])
    params = paddle.parameters.create(out)
    (weight,) = params.keys()  # the step fc's weight, named within the group
    params.set(weight, np.array([[1.0], [10.0]], np.float32))
    src_rows = [[1, 0], [2, 0], [3, 1]]
    data = [[src_rows, [[0, 0]] * 4], [src_rows[:2], [[0, 0]] * 2]]
    inferer = paddle.inference.Inference(output_layer=out, parameters=params)
    (got,) = inferer.infer(data, field="value", flatten_result=False)
    per_step = np.array([[1.0], [2.0], [13.0]], np.float32)
    want = np.concatenate([per_step] * 4 + [per_step[:2]] * 2)
    np.testing.assert_allclose(got, want)
    assert got.reshape(-1)[:12].reshape(4, 3).shape == (len(data[0][1]), len(src_rows))
    np.testing.assert_allclose(_infer(out, params, data), want)


def test_rank_cost_takes_an_integer_label_past_its_declared_dim():
    # A pairwise DSSM declared its 0/1 label as integer_value(1) and fed 1: v2's feeder
    # never bounded ids by the dim, and rank_cost copies an id label in as the target P.
    left = L.data(name="rk_left", type=DT.dense_vector(1))
    right = L.data(name="rk_right", type=DT.dense_vector(1))
    label = L.data(name="rk_label", type=DT.integer_value(1))
    cost = L.rank_cost(left=left, right=right, label=label)
    params = paddle.parameters.create(cost)
    rows = [([2.0], [0.5], 1), ([0.0], [1.0], 0)]
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(momentum=0)
    )
    result = trainer.test(reader=lambda: iter([rows]))
    o = np.array([1.5, -1.0])
    want = np.mean(-np.array([1.0, 0.0]) * o + np.log1p(np.exp(o)))
    np.testing.assert_allclose(result.cost, want, rtol=1e-5)
    # ids that index a table are still checked against the declared dim
    word = L.data(name="rk_word", type=DT.integer_value(3))
    emb = L.embedding(input=word, size=2)
    with pytest.raises(paddle.errors.DataError, match="outside"):
        _infer(emb, paddle.parameters.create(emb), [(3,)])


@pytest.mark.parametrize("reverse", [False, True])
def test_lstmemory_over_a_nested_sequence_runs_each_whole_outer_sequence(reverse):
    # A globally normalized reader ran a bidirectional LSTM over a document given as a
    # nested sequence of sentences: v2's LstmLayer scans each outer sequence's steps as
    # one sequence (state carried across sentences) and keeps the nesting in its output.
    nested = L.data(name="nl_doc", type=DT.dense_vector_sub_sequence(8))
    flat = L.data(name="nl_flat", type=DT.dense_vector_sequence(8))
    attrs = dict(
        param_attr=paddle.attr.Param(name="nl_w"), bias_attr=paddle.attr.Param(name="nl_b")
    )
    outs = [L.lstmemory(input=x, reverse=reverse, **attrs) for x in (nested, flat)]
    assert outs[0].size == 2
    params = paddle.parameters.create(outs)
    rng = np.random.default_rng(0)
    params.set("nl_b", rng.normal(size=(1, 14)).astype(np.float32))
    steps = [rng.normal(size=(n, 8)).astype(np.float32) for n in (3, 1, 2, 4)]
    doc_a, doc_b = [steps[0], steps[1], steps[2]], [steps[3]]
    got = _infer(outs[0], params, [[[s.tolist() for s in doc_a]], [[s.tolist() for s in doc_b]]])
    want = _infer(outs[1], params, [[np.concatenate(doc_a).tolist()], [doc_b[0].tolist()]])
    assert got.shape == (10, 2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_the_early_2017_group_input_names_build_the_same_group():
    # demo/seqToseq's 2017 network wrote StaticInputV2 (v2's layer.py until mid-2017)
    x = L.data(name="v2n_x", type=DT.dense_vector_sequence(2))
    ctx = L.data(name="v2n_c", type=DT.dense_vector(2))

    def step(y, c):
        shared = [paddle.attr.Param(name="v2n_w0"), paddle.attr.Param(name="v2n_w1")]
        return L.fc(input=[y, c], size=2, act=A.Linear(), bias_attr=False, param_attr=shared)

    with pytest.warns(DeprecationWarning, match="write now") as record:
        markers = (L.StaticInput, L.StaticInputV2)
        assert L.GeneratedInputV2 is L.GeneratedInput
    assert [str(r.message).split(" is ")[0] for r in record] == [
        "paddle.layer.StaticInputV2",
        "paddle.layer.GeneratedInputV2",
    ]
    outs = [L.recurrent_group(step=step, input=[x, marker(input=ctx)]) for marker in markers]
    params = paddle.parameters.create(outs)
    rows = [[[[0.5, -1.0], [2.0, 0.25]], [1.0, 3.0]]]
    w0, w1 = params.get("v2n_w0"), params.get("v2n_w1")
    want = np.array(rows[0][0]) @ w0 + np.array(rows[0][1]) @ w1
    for out in outs:
        np.testing.assert_allclose(_infer(out, params, rows), want, rtol=1e-5)
