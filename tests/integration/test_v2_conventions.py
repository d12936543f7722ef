"""v2 programs as the Paddle team wrote them in 2017-18: conventions paddle_lite must accept.

Each test is written the way a v2 program writes it (``import paddle.v2 as paddle``),
and checks the values it gets against a plain computation of what v2 reported.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src import errors as paddle_errors
from paddle_lite._src.errors import TopologyError
from paddle_lite._src.evaluator_base import total_stats

L, DT, A, E = paddle.layer, paddle.data_type, paddle.activation, paddle.evaluator
RNG = np.random.default_rng(3)


def _binary_reader(n=40):
    x = RNG.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] + 0.3 * x[:, 1] > 0).astype(np.int64)

    def reader():
        yield from zip(x, y, strict=True)

    return reader


def _binary_net():
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.integer_value(2))
    prob = L.fc(input=x, size=2, act=A.Softmax())
    return x, y, prob, L.classification_cost(input=prob, label=y)


def _sgd(cost, extra_layers=None, lr=0.0, params=None):
    params = params or paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0, learning_rate=lr)
    return paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=optimizer, extra_layers=extra_layers
    ), params


def _expected(evaluators, outputs_per_batch):
    """Metrics of ``evaluators`` from the layer values of each batch (a plain recount)."""
    out = {}
    for ev in evaluators:
        stats = [ev.batch_stats([b[layer.name] for layer in ev.inputs]) for b in outputs_per_batch]
        out.update(ev.result(total_stats(stats)))
    return out


# 1. evaluators in extra_layers --------------------------------------------------------
def test_evaluator_results_are_accepted_in_extra_layers_and_reported_like_v2():
    x, y, prob, cost = _binary_net()
    auc = E.auc(input=prob, label=y)
    err = E.classification_error(input=prob, label=y, name="my_error")
    total = E.sum(input=prob)
    pr = E.precision_recall(input=prob, label=y, positive_label=1)
    trainer, params = _sgd(cost, extra_layers=[auc, None, prob, err, total, pr])
    trainer2, _ = _sgd(cost, extra_layers=auc)  # one evaluator alone
    trainer3, _ = _sgd(cost, extra_layers=None)
    for t in (trainer, trainer2, trainer3):
        names = [ev.name for ev in t._evaluators]
        assert names[0] == "classification_error_evaluator"  # the cost's own, v2's name
        assert {auc.name, "my_error", total.name, pr.name} <= set(names)
    reader = _binary_reader()
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
        want = _expected(evs, [batch_out])
        for key, value in want.items():
            np.testing.assert_allclose(end.metrics[key], value, rtol=1e-5, atol=1e-6)
    want = _expected(evs, outputs)
    [end_pass] = [e for e in seen if isinstance(e, paddle.event.EndPass)]
    result = trainer.test(paddle.batch(reader, 16))
    for key, value in want.items():
        np.testing.assert_allclose(end_pass.metrics[key], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(result.metrics[key], value, rtol=1e-5, atol=1e-6)
    assert f"{pr.name}.precision" in result.metrics and auc.name in result.metrics


def test_an_evaluator_on_layers_off_the_cost_path_joins_the_network_through_extra_layers():
    x, y, prob, cost = _binary_net()
    side = L.fc(input=x, size=1, act=A.Sigmoid(), name="side")
    total = E.sum(input=side, name="side_sum")
    params = paddle.parameters.create([cost, side])
    trainer, _ = _sgd(cost, extra_layers=total, params=params)
    assert "side" in [n.name for n in trainer.__topology__.nodes]
    reader = _binary_reader()
    result = trainer.test(paddle.batch(reader, 10))
    batch = list(reader())
    side_out = paddle.infer(output_layer=side, parameters=params, input=batch)
    np.testing.assert_allclose(result.metrics["side_sum"], side_out.mean(), rtol=1e-5)


def test_non_layer_extra_is_still_refused_with_the_index():
    _, _, _, cost = _binary_net()
    with pytest.raises(TopologyError, match=r"extra_layers\[1\]"):
        _sgd(cost, extra_layers=[None, 3])


def _tagger():
    words = L.data(name="w", type=DT.integer_value_sequence(10))
    tags = L.data(name="t", type=DT.integer_value_sequence(5))
    emb = L.embedding(input=words, size=6)
    out = L.fc(input=emb, size=5, act=A.Softmax())
    return words, tags, out, L.classification_cost(input=out, label=tags)


def _tag_reader():
    data = []
    for n in (3, 5, 2, 4, 6, 1):
        w = RNG.integers(0, 10, n).tolist()
        data.append((w, [(i * 3 + 1) % 5 for i in w]))

    def reader():
        yield from data

    return reader


def test_sequence_evaluators_in_extra_layers_chunk_and_ctc_error():
    words, tags, out, cost = _tagger()
    decoded = L.max_id(input=out)
    chunk = E.chunk(input=decoded, label=tags, chunk_scheme="IOB", num_chunk_types=2)
    ctc = E.ctc_error(input=out, label=L.data(name="t2", type=DT.integer_value_sequence(4)))
    trainer, params = _sgd(cost, extra_layers=[chunk, ctc])
    assert [d for d, _ in trainer.__topology__.data_type()] == ["w", "t", "t2"]
    samples = [(w, t, [v % 4 for v in t]) for w, t in _tag_reader()()]
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


# 2. event.gm.getLayerOutputs --------------------------------------------------------------
def test_event_gm_get_layer_outputs_gives_v2s_dicts_for_the_batch_just_trained():
    x, y, prob, cost = _binary_net()
    hidden = L.fc(input=x, size=3, act=A.Relu(), name="hidden")
    guess = L.max_id(input=prob, name="guess")
    params = paddle.parameters.create([cost, hidden])
    trainer, _ = _sgd(cost, extra_layers=[hidden, guess], lr=0.05, params=params)
    reader = _binary_reader(24)
    batches = [list(b) for b in paddle.batch(reader, 10)()]
    got, want = [], []

    def handler(event):
        if isinstance(event, (paddle.event.EndIteration, paddle.event.EndForwardBackward)):
            assert event.gm is not None
        if isinstance(event, paddle.event.EndIteration):
            one = event.gm.getLayerOutputs(prob.name)
            both = event.gm.getLayerOutputs(["hidden", "guess"])
            got.append((one, both))
            batch = batches[event.batch_id]  # the parameters now are those after the step
            want.append(
                [
                    paddle.infer(output_layer=o, parameters=params, input=batch)
                    for o in (prob, hidden)
                ]
            )
        if isinstance(event, paddle.event.EndPass):
            last = event.gm.getLayerOutputs(prob.name)[prob.name]["value"]
            assert last.shape == (4, 2)

    trainer.train(paddle.batch(reader, 10), num_passes=1, event_handler=handler)
    assert [len(b) for b in batches] == [10, 10, 4]
    for (one, both), (p, h) in zip(got, want, strict=True):
        assert set(one) == {prob.name} and set(both) == {"hidden", "guess"}
        assert set(one[prob.name]) == {"value", "id", "prob"}
        assert one[prob.name]["id"] is None and one[prob.name]["prob"] is None
        np.testing.assert_allclose(one[prob.name]["value"], p, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(both["hidden"]["value"], h, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(both["guess"]["id"], np.argmax(p, axis=1))
        np.testing.assert_allclose(both["guess"]["value"][:, 0], p.max(axis=1), rtol=1e-5)


def test_event_gm_costs_nothing_unless_called_and_names_unknown_layers():
    _, _, prob, cost = _binary_net()
    trainer, _ = _sgd(cost)
    trainer.train(paddle.batch(_binary_reader(), 10), num_passes=1)
    assert trainer._forwards._jitted == {}  # nothing compiled, nothing run

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            event.gm.getLayerOutputs("no_such_layer")

    with pytest.raises(TopologyError, match="no_such_layer"):
        trainer.train(paddle.batch(_binary_reader(), 10), num_passes=1, event_handler=handler)
    rows = []  # several batches per dispatch: each event reads its own batch

    def stacked(event):
        if isinstance(event, paddle.event.EndIteration):
            rows.append(event.gm.getLayerOutputs(prob.name)[prob.name]["value"].shape)

    reader = paddle.batch(_binary_reader(), 8)
    trainer.train(reader, num_passes=1, event_handler=stacked, steps_per_dispatch=2)
    assert rows == [(8, 2)] * 5


def test_event_gm_reads_sequence_layers_as_rows_of_steps():
    words, tags, out, cost = _tagger()
    trainer, params = _sgd(cost)
    samples = list(_tag_reader()())
    seen = {}

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 0:
            seen["out"] = event.gm.getLayerOutputs(out.name)[out.name]["value"]
            seen["want"] = paddle.infer(output_layer=out, parameters=params, input=samples[:4])

    trainer.train(paddle.batch(lambda: iter(samples), 4), num_passes=1, event_handler=handler)
    assert seen["out"].shape == (3 + 5 + 2 + 4, 5)
    np.testing.assert_allclose(seen["out"], seen["want"], rtol=1e-5, atol=1e-6)


# 4. a memory booted from a sequence (an external memory of slots) ---------------------------
def _slot_memory_net():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    slots = L.data(name="slots", type=DT.dense_vector_sequence(4))

    def step(x_t):
        memory = L.memory(name="slots_rw", size=4, boot_layer=slots)
        write = L.fc(input=x_t, size=4, act=A.Linear(), bias_attr=False, name="write")
        spread = L.expand(input=write, expand_as=memory)
        new = L.addto(input=[memory, spread], act=A.Tanh(), name="slots_rw")
        return L.pooling(input=new, pooling_type=paddle.pooling.Sum(), name="read")

    return L.recurrent_group(step=step, input=x, name="ntm")


def test_memory_booted_from_a_sequence_holds_and_rewrites_it_each_step():
    read = _slot_memory_net()
    params = paddle.parameters.create(read)
    w = params.get("_write@ntm.w0").astype(np.float64)
    rng = np.random.default_rng(5)
    samples = []
    for n_x, n_slots in ((3, 2), (1, 4), (2, 1)):
        samples.append((rng.normal(size=(n_x, 3)).tolist(), rng.normal(size=(n_slots, 4)).tolist()))
    got = paddle.infer(output_layer=read, parameters=params, input=samples)
    want = []
    for xs, slots in samples:
        memory = np.asarray(slots, np.float64)
        for x_t in np.asarray(xs, np.float64):
            memory = np.tanh(memory + x_t @ w)  # every slot gets the write
            want.append(memory.sum(axis=0))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


def test_a_sequence_memory_trains_and_refuses_a_vector_target():
    read = _slot_memory_net()
    y = L.data(name="y", type=DT.dense_vector(4))
    cost = L.square_error_cost(input=L.last_seq(input=read), label=y)
    trainer, params = _sgd(cost, lr=0.01)
    samples = [([[0.1, 0.2, 0.3]] * 2, [[0.5] * 4] * 3, [0.1] * 4)]
    before = params.get("_write@ntm.w0").copy()
    trainer.train(paddle.batch(lambda: iter(samples * 4), 2), num_passes=1)
    assert not np.allclose(params.get("_write@ntm.w0"), before)
    slots = L.data(name="slots2", type=DT.dense_vector_sequence(4))

    def vector_step(x_t):
        memory = L.memory(name="state", size=4, boot_layer=slots)
        return L.fc(input=[x_t, L.last_seq(input=memory)], size=4, name="state")

    with pytest.raises(paddle_errors.LayerConfigError, match="remembers a sequence"):
        L.recurrent_group(
            step=vector_step, input=L.data(name="x2", type=DT.dense_vector_sequence(3))
        )


# 6. gradient_printer and seqtext_printer --------------------------------------------------
def test_gradient_printer_prints_the_cost_gradient_of_each_layer_output(capsys):
    import jax

    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(2))
    pred = L.fc(input=x, size=2, act=A.Linear(), name="pred")
    cost = L.square_error_cost(input=pred, label=y)
    assert E.gradient_printer(input=pred) is None
    trainer, params = _sgd(cost, lr=0.0)
    xs = RNG.normal(size=(3, 3)).astype(np.float32)
    ys = RNG.normal(size=(3, 2)).astype(np.float32)
    samples = list(zip(xs, ys, strict=True))
    trainer.train(paddle.batch(lambda: iter(samples), 3), num_passes=1)
    jax.effects_barrier()
    out = capsys.readouterr().out
    assert "layer=pred grad matrix:" in out
    printed = out.split("layer=pred grad matrix:\n")[1].split("]]")[0] + "]]"
    got = np.array(re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", printed), float).reshape(3, 2)
    p = xs @ params.get("_pred.w0") + params.get("_pred.wbias")
    np.testing.assert_allclose(got, 2 * (p - ys), rtol=1e-4, atol=1e-5)
    trainer.test(paddle.batch(lambda: iter(samples), 3))
    jax.effects_barrier()
    assert "grad matrix" not in capsys.readouterr().out  # no backward pass in test


def test_seqtext_printer_writes_v2s_lines_through_a_dictionary(tmp_path):
    import jax

    words, tags, out, cost = _tagger()
    guess = L.max_id(input=out)
    sid = L.data(name="sid", type=DT.integer_value(100))
    dict_file = tmp_path / "tags.dict"
    dict_file.write_text("".join(f"T{i}\n" for i in range(5)))
    plain, named = tmp_path / "plain.txt", tmp_path / "named.txt"
    E.seqtext_printer(input=guess, result_file=str(plain))
    E.seqtext_printer(
        input=guess,
        id_input=sid,
        dict_file=str(dict_file),
        result_file=str(named),
        delimited=False,
    )
    trainer, params = _sgd(cost, extra_layers=[guess, sid])
    samples = [(w, t, 40 + i) for i, (w, t) in enumerate(_tag_reader()())]
    trainer.test(paddle.batch(lambda: iter(samples), 4))
    jax.effects_barrier()
    ids, rows = [], 0
    flat = paddle.infer(output_layer=guess, parameters=params, input=samples, field="id")
    for w, _, _ in samples:
        ids.append(flat[rows : rows + len(w)].tolist())
        rows += len(w)
    want_plain = "".join(
        f"{i % 4}\t{''.join(' ' + str(t) for t in seq)}\n" for i, seq in enumerate(ids)
    )
    want_named = "".join(
        f"{40 + i}\t{''.join('T' + str(t) for t in seq)}\n" for i, seq in enumerate(ids)
    )
    assert plain.read_text() == want_plain
    assert named.read_text() == want_named
