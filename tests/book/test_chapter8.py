"""Book chapter 8 (attention encoder-decoder): trains on a reversal task and translates
it back with beam search; beam size 1 equals a greedy decode written with max_id."""

import importlib.util
import pathlib
import random

import numpy as np
import pytest

import paddle_lite as paddle

try:
    from tests.unit._dataset_fixtures import shared_datasets
except ImportError:  # pragma: no cover - run from inside tests/
    from unit._dataset_fixtures import shared_datasets

BOOK = pathlib.Path(__file__).resolve().parents[2] / "book"
SHARED = shared_datasets()
VOCAB = 12  # <s>=0, <e>=1, <unk>=2, words 3..11
NET = {"word_vector_dim": 32, "encoder_size": 32, "decoder_size": 32}


def _run(**settings):
    """Chapter 8 run as its notebook runs, with ``settings``; its variables."""
    spec = importlib.util.spec_from_file_location("run_chapter", BOOK / "run_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_chapter("08.machine_translation", **settings)


def _reversal(n, seed):
    """wmt14-style samples whose target is the source reversed: (src, trg, trg_next)."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(n):
        words = rng.integers(3, VOCAB, int(rng.integers(3, 8))).tolist()
        target = words[::-1]
        samples.append(([0, *words, 1], [0, *target], [*target, 1]))
    return samples


HELD_OUT = _reversal(100, 1)
WORDS = {i: f"w{i}" for i in range(VOCAB)}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The chapter trained on the reversal task (about 5 s on 2 CPU cores), then
    translating 100 held-out sources with beam search."""
    random.seed(0)
    train = _reversal(4000, 0)
    saved = tmp_path_factory.mktemp("ch8")
    state = _run(
        dict_size=VOCAB,
        num_passes=4,
        train_reader=lambda: iter(train),
        gen_data=[(s[0],) for s in HELD_OUT],
        dicts=(WORDS, WORDS),
        batch_size=32,
        learning_rate=2e-3,
        save_dir=str(saved),
        save_every=1000,
        plot=False,
        beam_size=3,
        max_length=20,
        **NET,
    )
    return state, saved


def test_chapter8_translates_the_reversal_task_with_beam_search(trained):
    state, saved = trained
    results = state["translations"]
    exact = np.mean([r[0][1] == s[2] for r, s in zip(results, HELD_OUT, strict=True)])
    assert exact >= 0.95
    scores = np.array([[score for score, _ in r] for r in results])
    assert np.all(np.diff(scores, axis=1) <= 0) and np.all(scores <= 0)  # best first, log p
    assert len(state["history"]) == 4 and state["history"].cost[-1] < state["history"].cost[0]
    names = sorted(p.name for p in saved.iterdir())
    assert names[:2] == ["params_pass_00000.tar", "params_pass_00000_batch_00000.tar"]
    assert len(names) == 8  # each pass, and the first batch of each


def test_chapter8_translates_with_saved_parameters_only(trained, capsys):
    state, saved = trained
    again = _run(
        is_generating=True,
        model=str(saved / "params_pass_00003.tar"),
        dict_size=VOCAB,
        gen_data=[(s[0],) for s in HELD_OUT[:10]],
        dicts=(WORDS, WORDS),
        train_reader=lambda: iter([]),
        save_dir=str(saved),
        beam_size=3,
        max_length=20,
        **NET,
    )
    assert "history" not in again  # no training
    for have, want in zip(again["translations"], state["translations"][:10], strict=True):
        assert [words for _, words in have] == [words for _, words in want]
        np.testing.assert_allclose([p for p, _ in have], [p for p, _ in want], atol=1e-5)
    out = capsys.readouterr().out
    assert out.count("\t") == 3 * 10  # one "score<TAB>words" line per result


def _greedy(seq_to_seq_net, params, sources, max_length):
    """Greedy decoding with the training network: feed the prefix, take max_id."""
    paddle.layer.reset_names()
    cost = seq_to_seq_net(VOCAB, VOCAB, False, **NET)
    best = paddle.layer.max_id(input=cost.inputs[0])  # the decoder's softmax output
    prefixes = [[0] for _ in sources]
    done = [False] * len(sources)
    for _ in range(max_length):
        ids = paddle.infer(
            output_layer=best,
            parameters=params,
            input=[(s, p) for s, p in zip(sources, prefixes, strict=True)],
            field="id",
        ).reshape(len(sources), -1)
        for i, word in enumerate(ids[:, -1].tolist()):
            prefixes[i].append(word)  # finished rows keep growing; cut at eos below
            done[i] = done[i] or word == 1
        if all(done):
            break
    return [p[1 : p.index(1) + 1] if 1 in p else p[1:] for p in prefixes]


def test_chapter8_beam_size_one_is_greedy_decoding(trained):
    state, _ = trained
    params, seq_to_seq_net = state["parameters"], state["seq_to_seq_net"]
    sources = [s[0] for s in _reversal(16, 2)]
    paddle.layer.reset_names()
    gen = seq_to_seq_net(VOCAB, VOCAB, True, beam_size=1, max_length=12, **NET)
    ids = paddle.infer(
        output_layer=gen, parameters=params, input=[(s,) for s in sources], field="id"
    )
    greedy = _greedy(seq_to_seq_net, params, sources, 12)
    assert ids.tolist() == [w for g in greedy for w in g]  # one result each: no -1 marks


def test_chapter8_runs_on_the_shared_wmt16_corpus(tmp_path, monkeypatch, capsys):
    if not (SHARED / "wmt16" / "multi30k_task1_raw" / "train.en.gz").exists():
        pytest.skip(f"the Multi30K files are not in {SHARED / 'wmt16'}")
    random.seed(0)
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path))
    (tmp_path / "wmt16").mkdir()
    (tmp_path / "wmt16" / "multi30k_task1_raw").symlink_to(SHARED / "wmt16" / "multi30k_task1_raw")
    state = _run(
        dataset="wmt16",
        dict_size=200,
        num_passes=1,
        train_reader=paddle.reader.firstn(paddle.dataset.wmt16.train(200, 200), 24),
        save_dir=str(tmp_path / "saved"),
        plot=False,
        max_length=8,
        word_vector_dim=16,
        encoder_size=16,
        decoder_size=16,
    )
    assert (tmp_path / "saved" / "params_pass_00000.tar").exists()
    assert len(state["history"]) == 1 and np.isfinite(state["history"].cost[0])
    results = state["translations"]
    assert len(results) == 3 and all(len(r) == 3 for r in results)
    assert all(0 < len(words) <= 8 for r in results for _, words in r)
    assert capsys.readouterr().out.count("\t") == 9
