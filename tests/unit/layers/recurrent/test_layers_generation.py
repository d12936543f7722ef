"""beam_search against a plain-Python transcription of v2's RecurrentGradientMachine beam
search (float64 numpy step), v2's infer layout, one dispatch per generation, eos and
sampling_id."""

import jax
import jax._src.interpreters.pxla as pxla
import jax._src.pjit as pjit
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError, LayerTypeError

L, A = paddle.layer, paddle.activation
V, E, H, C = 7, 4, 5, 3  # vocabulary, embedding, state and context widths
BOS, EOS = 0, 1


def _generator(beam_size, max_length, num_results=None, name="gen"):
    ctx = L.data(name="ctx", type=paddle.data_type.dense_vector(C))
    boot = L.fc(input=ctx, size=H, act=A.Tanh())

    def step(context, word):
        mem = L.memory(name="state", size=H, boot_layer=boot)
        state = L.fc(input=[word, mem, context], size=H, act=A.Tanh(), name="state")
        return L.fc(input=state, size=V, act=A.Softmax(), name="prob")

    word = L.GeneratedInput(size=V, embedding_name="emb", embedding_size=E)
    return L.beam_search(
        name=name,
        step=step,
        input=[L.StaticInput(input=ctx), word],
        bos_id=BOS,
        eos_id=EOS,
        beam_size=beam_size,
        max_length=max_length,
        num_results_per_sample=num_results,
    )


def _numpy_step(params, context):
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}

    def step(h, word):
        x = p["emb"][word] @ p["_state@gen.w0"] + h @ p["_state@gen.w1"]
        h = np.tanh(x + context @ p["_state@gen.w2"] + p["_state@gen.wbias"][0])
        z = h @ p["_prob@gen.w0"] + p["_prob@gen.wbias"][0]
        e = np.exp(z - z.max())
        return h, e / e.sum()

    h0 = np.tanh(context @ p["___fc_layer_0__.w0"] + p["___fc_layer_0__.wbias"][0])
    return step, h0


def v2_beam_search(step, h0, beam, max_length, num_results):
    """v2's beamSearch / beamExpand / beamShrink / fillGenOutputs for one source."""
    paths = [([], 0.0, h0, BOS)]  # (ids, log prob, state, last word)
    finals, min_final = [], 0.0
    for _ in range(max_length):
        new = []
        for ids, logp, h, word in paths:
            h_new, probs = step(h, word)
            for w in np.argsort(-probs, kind="stable")[:beam]:  # max_id with a beam
                path = (ids + [int(w)], logp + np.log(probs[w]), h_new, int(w))
                at_eos = w == EOS or len(path[0]) >= max_length
                (finals if at_eos else new).append(path)
        kept = sorted(new, key=lambda q: -q[1])[:beam]
        if not kept:
            break
        low, high = min(q[1] for q in kept), max(q[1] for q in kept)
        finals = [f for f in finals if f[1] >= low]
        min_final = min([min_final] + [f[1] for f in finals])
        if len(finals) >= beam and min_final >= high:
            break
        paths = kept
    best = sorted(finals, key=lambda q: -q[1])[:num_results]
    return [(f[0], f[1]) for f in best]


def _setup(beam, max_length, num_results=None, sources=5, seed=0):
    gen = _generator(beam, max_length, num_results)
    params = paddle.parameters.create(gen, seed=seed)
    rng = np.random.default_rng(seed)
    # a larger eos bias makes sequences end at varied lengths
    bias = params.get("_prob@gen.wbias")
    bias[0, EOS] += 1.0
    params.set("_prob@gen.wbias", bias)
    contexts = rng.normal(size=(sources, C)).astype(np.float32)
    return gen, params, contexts


@pytest.mark.parametrize(
    ("beam", "max_length", "num_results", "seed"),
    [(1, 8, None, 0), (2, 5, None, 1), (3, 10, 2, 2), (4, 4, None, 3), (3, 12, None, 4)],
)
def test_beam_search_follows_v2s_algorithm(beam, max_length, num_results, seed):
    gen, params, contexts = _setup(beam, max_length, num_results, seed=seed)
    values = {k: params.get(k) for k in params.keys()}
    with jax.default_matmul_precision("highest"):  # a GPU would otherwise use TF32
        (result,), _ = forward([gen], values, {"ctx": contexts})
    n = num_results or beam
    for i, context in enumerate(contexts):
        step, h0 = _numpy_step(values, context.astype(np.float64))
        want = v2_beam_search(step, h0, beam, max_length, n)
        got_n = int((np.asarray(result.lengths)[i] > 0).sum())
        assert got_n == len(want)
        for j, (ids, score) in enumerate(want):
            length = int(result.lengths[i, j])
            assert np.asarray(result.ids)[i, j, :length].tolist() == ids
            np.testing.assert_allclose(result.scores[i, j], score, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(
                np.asarray(result.word_scores)[i, j, :length].sum(), score, rtol=1e-4, atol=1e-5
            )


def test_infer_gives_v2s_layout():
    gen, params, contexts = _setup(3, 6, num_results=2)
    prob, ids, value = paddle.infer(
        output_layer=gen,
        parameters=params,
        input=[(c,) for c in contexts],
        field=["prob", "id", "value"],
    )
    assert prob.shape == (5, 2) and value.shape[1] == 1
    marks = np.where(ids == -1)[0]
    assert len(marks) == 5 * 2
    start = 0
    for end in marks:  # [length, words..., -1] per result
        length = ids[start]
        assert end - start - 1 == length and ids[start + length] in (EOS, *range(V))
        start = end + 1
    np.testing.assert_allclose(np.where(value[:, 0] == -1)[0], marks - np.arange(1, 11))

    gen1, params1, contexts1 = _setup(3, 6, num_results=1)
    single = paddle.infer(
        output_layer=gen1, parameters=params1, input=[(c,) for c in contexts1], field="id"
    )
    assert -1 not in single.tolist()  # one result per source: its words only, v2's layout


def test_beam_size_one_is_greedy():
    gen, params, contexts = _setup(1, 9)
    values = {k: params.get(k) for k in params.keys()}
    ids = paddle.infer(
        output_layer=gen, parameters=params, input=[(c,) for c in contexts], field="id"
    )
    greedy = []
    for context in contexts:
        step, h = _numpy_step(values, context.astype(np.float64))
        word = BOS
        for _ in range(9):
            h, probs = step(h, word)
            word = int(np.argmax(probs))
            greedy.append(word)
            if word == EOS:
                break
    assert ids.tolist() == greedy


def test_generation_is_one_dispatch_of_one_while_loop(monkeypatch):
    """64 sources, beam 5: paddle.infer launches one compiled program, whose search is
    one while loop and the read-back of the paths another: its program does not grow
    with max_length."""
    gen, params, _ = _setup(5, 50)
    contexts = np.random.default_rng(0).normal(size=(64, C)).astype(np.float32)
    batch = [(c,) for c in contexts]
    calls = []
    real_call = pxla.ExecuteReplicated.__call__
    monkeypatch.setattr(pjit, "_get_fastpath_data", lambda *a, **k: None)  # no C++ fast path
    monkeypatch.setattr(
        pxla.ExecuteReplicated, "__call__", lambda self, *a: calls.append(1) or real_call(self, *a)
    )
    for _ in range(2):  # compiling, then compiled
        calls.clear()
        ids = paddle.infer(output_layer=gen, parameters=params, input=batch, field="id")
        assert len(calls) == 1 and (ids == -1).sum() == 64 * 5
    monkeypatch.undo()

    values = {k: params.get(k) for k in params.keys()}
    sizes = []
    for max_length in (5, 50):
        paddle.layer.reset_names()
        g = _generator(5, max_length)
        jaxpr = jax.make_jaxpr(lambda p, f, g=g: forward([g], p, f)[0])(values, {"ctx": contexts})
        sizes.append(len(jaxpr.eqns))
        assert [e.primitive.name for e in jaxpr.eqns].count("while") == 2
    assert sizes[0] == sizes[1]


def test_the_generator_shares_the_trained_step_parameters_by_name():
    ctx = L.data(name="ctx", type=paddle.data_type.dense_vector(C))
    trg = L.data(name="trg", type=paddle.data_type.integer_value_sequence(V))

    def step(context, word):
        mem = L.memory(name="state", size=H)
        state = L.fc(input=[word, mem, context], size=H, act=A.Tanh(), name="state")
        return L.fc(input=state, size=V, act=A.Softmax(), name="prob")

    emb = L.embedding(input=trg, size=E, param_attr=paddle.attr.Param(name="emb"))
    train = L.recurrent_group(name="gen", step=step, input=[L.StaticInput(input=ctx), emb])
    word = L.GeneratedInput(size=V, embedding_name="emb", embedding_size=E)
    gen = L.beam_search(
        name="gen",
        step=step,
        input=[L.StaticInput(input=ctx), word],
        bos_id=0,
        eos_id=1,
        beam_size=2,
    )
    trained = {s.name for s in paddle.topology.Topology(train).param_specs()}
    generating = {s.name for s in paddle.topology.Topology(gen).param_specs()}
    assert (
        trained
        == generating
        == {
            "emb",
            "_state@gen.w0",
            "_state@gen.w1",
            "_state@gen.w2",
            "_state@gen.wbias",
            "_prob@gen.w0",
            "_prob@gen.wbias",
        }
    )
    assert gen.name == "__beam_search_predict__" and gen.spec.dtype == "int32"


def test_beam_search_argument_checks():
    ctx = L.data(name="ctx", type=paddle.data_type.dense_vector(C))
    word = L.GeneratedInput(size=V, embedding_name="emb", embedding_size=E)
    with pytest.raises(LayerTypeError, match="StaticInput or GeneratedInput"):
        L.beam_search(step=lambda *a: a[0], input=[ctx, word], bos_id=0, eos_id=1, beam_size=2)
    with pytest.raises(LayerConfigError, match="exactly one GeneratedInput"):
        L.beam_search(
            step=lambda c: c, input=[L.StaticInput(input=ctx)], bos_id=0, eos_id=1, beam_size=2
        )
    with pytest.raises(LayerConfigError, match="must not exceed beam_size"):
        _generator(2, 5, num_results=3)


def test_eos_and_sampling_id():
    ids = L.data(name="ids", type=paddle.data_type.integer_value_sequence(5))
    probs = L.data(name="p", type=paddle.data_type.dense_vector(4))
    flag = L.eos(input=ids, eos_id=3)
    drawn = L.sampling_id(input=probs)
    assert flag.name == "__eos_layer_0__" and drawn.name == "__sampling_id_layer_0__"
    assert drawn.size == 4 and drawn.spec.dtype == "int32"
    seq = paddle.layer.Layer  # noqa: F841 - the public alias exists
    from paddle_lite._src.values import Seq

    feeds = {
        "ids": Seq(np.array([[3, 1, 3], [0, 3, 0]], np.int32), np.array([3, 2], np.int32)),
        "p": np.tile(np.array([[0.1, 0.0, 0.6, 0.3]], np.float32), (4000, 1)),
    }
    (f, d), _ = forward([flag, drawn], {}, feeds, key=jax.random.PRNGKey(1), mode="train")
    np.testing.assert_array_equal(f.data, [[1, 0, 1], [0, 1, 0]])
    counts = np.bincount(np.asarray(d), minlength=4) / 4000
    np.testing.assert_allclose(counts, [0.1, 0.0, 0.6, 0.3], atol=0.03)
    (again,), _ = forward([drawn], {}, feeds)  # inference: a fixed stream
    (third,), _ = forward([drawn], {}, feeds)
    np.testing.assert_array_equal(again, third)


def test_sampling_id_draws_as_v2_from_rows_that_do_not_sum_to_one():
    """SamplingIdLayer::forwardImp: r ~ U[0, 1), the first j with (r -= p_j) < 0, else the
    last id: a row summing to 0.5 gives the rest (0.5) to the last id, even at p = 0."""
    probs = L.data(name="p", type=paddle.data_type.dense_vector(3))
    drawn = L.sampling_id(input=probs)
    rows = np.tile(np.array([[0.3, 0.2, 0.0]], np.float32), (4000, 1))
    (d,), _ = forward([drawn], {}, {"p": rows}, key=jax.random.PRNGKey(3), mode="train")
    counts = np.bincount(np.asarray(d), minlength=3) / 4000
    np.testing.assert_allclose(counts, [0.3, 0.2, 0.5], atol=0.03)
