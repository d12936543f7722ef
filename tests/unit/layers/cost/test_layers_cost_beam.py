"""cross_entropy_over_beam against a float64 transcription of v2's CrossEntropyOverBeam
(per sample, over v2's flat rows), with gradients w.r.t. every expansion's scores, on
searches built as v2 builds them: kmax_seq_score picks, and each kept candidate opens
one sub-sequence of the next expansion."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

try:
    from tests.unit import _v2_slice_reference as ref
except ImportError:
    import _v2_slice_reference as ref

L, DT = paddle.layer, paddle.data_type
K, E = 3, 3


def _top(scores):
    row = -np.ones(K)
    order = np.argsort(-scores, kind="stable")[:K]
    row[: len(order)] = order
    return row


def _pick_gold(rng, cand_row, length):
    kept = cand_row[cand_row != -1]
    if rng.random() < 0.7 and len(kept):
        return int(rng.choice(kept))
    return int(rng.integers(length))


def _sample(rng, min_len):
    """One sample's search: per expansion its sub-sequences of scores, kept rows, gold."""
    subs, cands, golds, row, alive = [], [], [], 0, True
    n_sub = 1
    for _ in range(E):
        lengths = rng.integers(min_len, min_len + 4, size=n_sub)
        sub = [rng.normal(size=n) for n in lengths]
        cand = np.stack([_top(s) for s in sub])
        gold = _pick_gold(rng, cand[row], lengths[row]) if alive else 0
        if alive:
            hits = np.flatnonzero(cand[row] == gold)
            alive = bool(len(hits))
            flat = row * K + (hits[0] if alive else 0)
            row = int(np.sum(cand.ravel()[:flat] != -1))
        subs.append(sub)
        cands.append(cand)
        golds.append(gold)
        n_sub = int(np.sum(cand != -1))
    return subs, cands, golds


def _pad(samples, e):
    """Padded feeds of expansion ``e``: scores (junk padding), kept rows, gold ids."""
    b = len(samples)
    subs = [s[0][e] for s in samples]
    n_sub = max(len(x) for x in subs)
    t = max(len(v) for x in subs for v in x)
    data = np.full((b, n_sub, t, 1), np.nan, np.float32)
    cand = np.full((b, n_sub, K), 9.0, np.float32)  # junk past the sub-sequences
    sub_len = np.full((b, n_sub), 77, np.int32)
    for i, s in enumerate(samples):
        for j, v in enumerate(s[0][e]):
            data[i, j, : len(v), 0], sub_len[i, j] = v, len(v)
        cand[i, : len(s[1][e])] = s[1][e]
    count = np.array([len(x) for x in subs], np.int32)
    gold = np.array([s[2][e] for s in samples], np.int32)
    if e == 0:
        return Seq(data[:, 0], sub_len[:, 0]), cand[:, 0], gold
    return Seq(data, count, sub_len), Seq(cand, count), gold


def _network():
    beams = []
    for e in range(E):
        kind = DT.dense_vector_sequence(1) if e == 0 else DT.dense_vector_sub_sequence(1)
        scores = L.data(name=f"s{e}", type=kind)
        rows = DT.dense_vector(K) if e == 0 else DT.dense_vector_sequence(K)
        cand = L.data(name=f"c{e}", type=rows)
        gold = L.data(name=f"g{e}", type=DT.integer_value(100))
        beams.append(L.BeamInput(candidate_scores=scores, selected_candidates=cand, gold=gold))
    return L.cross_entropy_over_beam(input=beams)


def _v2_reference(samples):
    costs, grads = [], []
    for subs, cands, golds in samples:
        scores = [np.concatenate(s).astype(np.float32).astype(np.float64) for s in subs]
        info = [np.concatenate([[0], np.cumsum([len(v) for v in s])]) for s in subs]
        cost, grad = ref.beam_cost_one(scores, info, cands, golds, K)
        costs.append(cost)
        grads.append([np.split(g, i[1:-1]) for g, i in zip(grad, info, strict=True)])
    return np.array(costs), grads


def _run(samples):
    cost_layer = _network()
    feeds = {}
    for e in range(E):
        feeds[f"s{e}"], feeds[f"c{e}"], feeds[f"g{e}"] = _pad(samples, e)

    def total(datas):
        fd = dict(feeds)
        for e, x in enumerate(datas):
            fd[f"s{e}"] = feeds[f"s{e}"]._replace(data=x)
        (v,), _ = forward([cost_layer], {}, fd)
        return jnp.sum(v), v

    datas = [jnp.asarray(feeds[f"s{e}"].data) for e in range(E)]
    grads, value = jax.grad(total, has_aux=True)(datas)
    jitted = jax.jit(lambda d: total(d)[1])(datas)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(value), rtol=1e-6)
    return cost_layer, np.asarray(value, np.float64)[:, 0], [np.asarray(g) for g in grads]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cross_entropy_over_beam_matches_v2(seed):
    rng = np.random.default_rng(seed)
    samples = [_sample(rng, K) for _ in range(6)]  # every sequence has >= K candidates
    layer, cost, grads = _run(samples)
    assert layer.name == "__cross_entropy_over_beam_0__" and layer.spec == Spec(1)
    want_cost, want_grads = _v2_reference(samples)
    np.testing.assert_allclose(cost, want_cost, rtol=1e-5, atol=1e-6)
    for b, per_beam in enumerate(want_grads):
        for e, subs in enumerate(per_beam):
            for j, g in enumerate(subs):
                got = grads[e][b, : len(g), 0] if e == 0 else grads[e][b, j, : len(g), 0]
                np.testing.assert_allclose(got, g, rtol=1e-5, atol=1e-6)
    assert all(np.isfinite(g).all() for g in grads)  # NaN padding never reaches them


def test_the_searches_cover_gold_kept_and_gold_falling_off():
    rng = np.random.default_rng(0)
    ends = set()
    for _ in range(3):
        for _, cands, golds in [_sample(rng, K) for _ in range(6)]:
            _, _, valid, extra = ref._gold_track(cands, golds, K)
            ends.add((valid, extra))
    assert {(E, False), (1, True)} <= ends and any(v == E and x for v, x in ends)


def _enumerated_cost(subs, cands, golds):
    """The cost by listing every path: sub-sequence r of an expansion extends path r
    of the one before (expansion 0 has one sub-sequence, opened by the empty path)."""
    paths, gold_score = [(0.0, ())], 0.0
    for e in range(E):
        gold_row = [key for _, key in paths].index(tuple(golds[:e]))
        gold_score += float(subs[e][gold_row][golds[e]])
        paths = [
            (score + float(subs[e][r][int(c)]), (*key, int(c)))
            for r, (score, key) in enumerate(paths)
            for c in cands[e][r]
            if c != -1
        ]
        found = tuple(golds[: e + 1]) in [key for _, key in paths]
        if not found or e == E - 1:
            scores = [score for score, _ in paths] + ([] if found else [gold_score])
            return np.log(np.sum(np.exp(scores))) - gold_score
    raise AssertionError("unreachable")


def test_short_sequences_follow_the_kept_candidates_in_order():
    """Sequences shorter than K leave -1 inside rows; sub-sequence r still extends the
    r-th kept path (v2 indexes the flat row there instead), checked by listing paths."""
    rng = np.random.default_rng(5)
    samples = [_sample(rng, 1) for _ in range(8)]
    assert any((c == -1).any() for _, cands, _ in samples for c in cands[:-1])
    _, cost, _ = _run(samples)
    want = [_enumerated_cost(*sample) for sample in samples]
    np.testing.assert_allclose(cost, want, rtol=1e-5, atol=1e-5)


def test_cross_entropy_over_beam_refuses_bad_inputs():
    seq = L.data(name="s", type=DT.dense_vector_sequence(1))
    top = L.kmax_seq_score(input=seq, beam_size=2)
    gold = L.data(name="g", type=DT.integer_value(5))
    with pytest.raises(LayerConfigError, match="candidate_scores '.*' has size 2"):
        L.BeamInput(candidate_scores=top, selected_candidates=top, gold=gold)
    with pytest.raises(LayerTypeError, match="selected_candidates must be a layer"):
        L.BeamInput(candidate_scores=seq, selected_candidates=None, gold=gold)
    with pytest.raises(LayerTypeError, match=r"input\[0\] must be a paddle.layer.BeamInput"):
        L.cross_entropy_over_beam(input=[seq])
    beam = L.BeamInput(candidate_scores=seq, selected_candidates=top, gold=gold)
    with pytest.raises(LayerConfigError, match="beam 1 candidate_scores is a sequence"):
        L.cross_entropy_over_beam(input=[beam, beam])


def _search_network(d):
    """v2's learning-to-search reader: pick sentences, then start words, then spans."""
    states = L.data(name="states", type=DT.dense_vector_sub_sequence(d))
    sent = L.pooling(
        input=states, pooling_type=paddle.pooling.Avg(), agg_level=L.AggregateLevel.TO_SEQUENCE
    )
    beams, scores = [], L.fc(input=sent, size=1, act=paddle.activation.Linear())
    picked = None
    for level, gold in enumerate(("g_sent", "g_start", "g_end")):
        top = L.kmax_seq_score(input=scores, beam_size=2)
        gold = L.data(name=gold, type=DT.integer_value(10))
        beams.append(L.BeamInput(candidate_scores=scores, selected_candidates=top, gold=gold))
        if level < 2:
            if level == 0:
                picked = L.sub_nested_seq(input=states, selected_indices=top)
            else:
                picked = L.seq_slice(input=picked, starts=top, ends=None)
            scores = L.fc(input=picked, size=1, act=paddle.activation.Linear())
    return L.cross_entropy_over_beam(input=beams)


def test_a_learning_to_search_network_trains():
    d = 4
    cost = _search_network(d)
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.0)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)

    def reader():
        r = np.random.default_rng(1)
        for _ in range(32):
            n = int(r.integers(2, 5))
            sents = [r.normal(size=(int(r.integers(3, 6)), d)) for _ in range(n)]
            g = int(r.integers(n))
            sents[g] += 2.0  # the gold sentence stands out; so does its start word
            start = int(np.argmax(sents[g][:, 0]))
            yield [s.tolist() for s in sents], g, start, min(1, len(sents[g]) - start - 1)

    costs = []
    trainer.train(
        reader=paddle.batch(reader, 16),
        num_passes=4,
        event_handler=lambda e: (
            costs.append(e.cost) if isinstance(e, paddle.event.EndIteration) else None
        ),
        feeding={"states": 0, "g_sent": 1, "g_start": 2, "g_end": 3},
    )
    assert np.isfinite(costs).all() and np.mean(costs[-2:]) < 0.8 * np.mean(costs[:2])
