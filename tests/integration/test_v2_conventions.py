"""v2 programs as the Paddle team wrote them in 2017-18: evaluators passed in
``extra_layers``, plain values among a recurrent group's inputs.

Each test is written the way a v2 program writes it (``import paddle.v2 as paddle``),
and checks the values it gets against a plain computation of what v2 reported.
"""

from __future__ import annotations

import numpy as np
import pytest

import paddle_lite as paddle
from integration._v2_program_fixtures import (
    binary_net,
    binary_reader,
    expected,
    sgd,
    tag_reader,
    tagger,
)
from paddle_lite.errors import TopologyError

L, DT, A, E = paddle.layer, paddle.data_type, paddle.activation, paddle.evaluator


# 1. evaluators in extra_layers --------------------------------------------------------
def test_evaluator_results_are_accepted_in_extra_layers_and_reported_like_v2():
    x, y, prob, cost = binary_net()
    auc = E.auc(input=prob, label=y)
    err = E.classification_error(input=prob, label=y, name="my_error")
    total = E.sum(input=prob)
    pr = E.precision_recall(input=prob, label=y, positive_label=1)
    trainer, params = sgd(cost, extra_layers=[auc, None, prob, err, total, pr])
    trainer2, _ = sgd(cost, extra_layers=auc)  # one evaluator alone
    trainer3, _ = sgd(cost, extra_layers=None)
    for t in (trainer, trainer2, trainer3):
        names = [ev.name for ev in t._evaluators]
        assert names[0] == "classification_error_evaluator"  # the cost's own, v2's name
        assert {auc.name, "my_error", total.name, pr.name} <= set(names)
    reader = binary_reader()
    seen = []
    trainer.train(paddle.batch(reader, 16), num_passes=1, event_handler=seen.append)
    batches = [list(b) for b in paddle.batch(reader, 16)()]
    outputs = [
        {
            prob.name: paddle.infer(output_layer=prob, parameters=params, input=b),
            "y": np.asarray([yi for _, yi in b], np.int32),
        }
        for b in batches
    ]
    evs = [auc, err, total, pr]
    ends = [e for e in seen if isinstance(e, paddle.event.EndIteration)]
    for end, batch_out in zip(ends, outputs, strict=True):
        want = expected(evs, [batch_out])
        for key, value in want.items():
            np.testing.assert_allclose(end.metrics[key], value, rtol=1e-5, atol=1e-6)
    want = expected(evs, outputs)
    [end_pass] = [e for e in seen if isinstance(e, paddle.event.EndPass)]
    result = trainer.test(paddle.batch(reader, 16))
    for key, value in want.items():
        np.testing.assert_allclose(end_pass.metrics[key], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(result.metrics[key], value, rtol=1e-5, atol=1e-6)
    assert f"{pr.name}.precision" in result.metrics and auc.name in result.metrics


def test_an_evaluator_on_layers_off_the_cost_path_joins_the_network_through_extra_layers():
    x, y, prob, cost = binary_net()
    side = L.fc(input=x, size=1, act=A.Sigmoid(), name="side")
    total = E.sum(input=side, name="side_sum")
    params = paddle.parameters.create([cost, side])
    trainer, _ = sgd(cost, extra_layers=total, params=params)
    assert "side" in [n.name for n in trainer.__topology__.nodes]
    reader = binary_reader()
    result = trainer.test(paddle.batch(reader, 10))
    batch = list(reader())
    side_out = paddle.infer(output_layer=side, parameters=params, input=batch)
    np.testing.assert_allclose(result.metrics["side_sum"], side_out.mean(), rtol=1e-5)


def test_non_layer_extra_is_still_refused_with_the_index():
    _, _, _, cost = binary_net()
    with pytest.raises(TopologyError, match=r"extra_layers\[1\]"):
        sgd(cost, extra_layers=[None, 3])


def test_sequence_evaluators_in_extra_layers_chunk_and_ctc_error():
    words, tags, out, cost = tagger()
    decoded = L.max_id(input=out)
    chunk = E.chunk(input=decoded, label=tags, chunk_scheme="IOB", num_chunk_types=2)
    ctc = E.ctc_error(input=out, label=L.data(name="t2", type=DT.integer_value_sequence(4)))
    trainer, params = sgd(cost, extra_layers=[chunk, ctc])
    assert [d for d, _ in trainer.__topology__.data_type()] == ["w", "t", "t2"]
    samples = [(w, t, [v % 4 for v in t]) for w, t in tag_reader()()]
    seen = []
    trainer.train(paddle.batch(lambda: iter(samples), 3), num_passes=1, event_handler=seen.append)
    result = trainer.test(paddle.batch(lambda: iter(samples), 3))
    keys = {f"{chunk.name}.precision", f"{chunk.name}.F1-score", f"{ctc.name}.error"}
    assert keys <= set(result.metrics)
    end = [e for e in seen if isinstance(e, paddle.event.EndIteration)][0]
    assert keys <= set(end.metrics)
    [end_pass] = [e for e in seen if isinstance(e, paddle.event.EndPass)]
    for key in keys:  # learning rate 0: the pass saw the parameters test() sees
        np.testing.assert_allclose(end_pass.metrics[key], result.metrics[key], rtol=1e-6)


# 3. recurrent_group passes non-layer inputs to the step as they are --------------------
def test_recurrent_group_passes_plain_values_to_the_step_in_position():
    words = L.data(name="words", type=DT.integer_value_sequence(10))
    emb = L.embedding(input=words, size=4, param_attr=paddle.attr.Param(name="emb"))
    summary = L.last_seq(input=emb)
    seen = []

    def step_plain(x_t, summary_vec):
        mem = L.memory(name="h", size=3)
        return L.fc(
            input=[x_t, summary_vec, mem],
            size=3,
            name="h",
            param_attr=_shared(3),
            bias_attr=paddle.attr.Param(name="h.b"),
        )

    def step_v2(width, summary_vec, x_t, tag):
        seen.append((width, tag))
        mem = L.memory(name="h2", size=width)
        return L.fc(
            input=[x_t, summary_vec, mem],
            size=width,
            name="h2",
            param_attr=_shared(3),
            bias_attr=paddle.attr.Param(name="h.b"),
        )

    plain = L.recurrent_group(step=step_plain, input=[emb, L.StaticInput(input=summary)])
    v2 = L.recurrent_group(
        step=step_v2, input=[3, L.StaticInput(input=summary), emb, "tag"], name="g2"
    )
    assert seen == [(3, "tag")]
    params = paddle.parameters.create([plain, v2])
    batch = [([1, 2, 3],), ([4],), ([5, 6],)]
    a = paddle.infer(output_layer=plain, parameters=params, input=batch)
    b = paddle.infer(output_layer=v2, parameters=params, input=batch)
    np.testing.assert_allclose(a, b, rtol=1e-6)
    assert a.shape == (6, 3)


def _shared(n):
    return [paddle.attr.Param(name=f"h.w{i}") for i in range(n)]


def test_beam_search_passes_plain_values_to_the_step_too():
    ctx = L.data(name="ctx", type=DT.dense_vector(3))
    args = []

    def step(context, width, word):
        args.append(width)
        state = L.fc(input=[word, context], size=width, act=A.Tanh(), name="state")
        return L.fc(input=state, size=7, act=A.Softmax(), name="prob")

    word = L.GeneratedInput(size=7, embedding_name="emb7", embedding_size=4)
    gen = L.beam_search(
        step=step,
        input=[L.StaticInput(input=ctx), 5, word],
        bos_id=0,
        eos_id=1,
        beam_size=2,
        max_length=4,
    )
    assert args == [5]
    params = paddle.parameters.create(gen)
    assert params.get_shape("_state@__beam_search_0__.w1") == (3, 5)
    ids = paddle.infer(output_layer=gen, parameters=params, input=[(np.ones(3, np.float32),)])
    assert ids.size > 0
