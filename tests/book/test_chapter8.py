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


def _chapter():
    path = BOOK / "08.machine_translation" / "train.py"
    spec = importlib.util.spec_from_file_location("chapter8_train", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reversal(n, seed):
    """wmt14-style samples whose target is the source reversed: (src, trg, trg_next)."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(n):
        words = rng.integers(3, VOCAB, int(rng.integers(3, 8))).tolist()
        target = words[::-1]
        samples.append(([0, *words, 1], [0, *target], [*target, 1]))
    return samples


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The chapter's network trained on the reversal task (about 5 s on 2 CPU cores)."""
    random.seed(0)
    chapter = _chapter()
    train = _reversal(4000, 0)
    paddle.layer.reset_names()
    params = chapter.train(
        dict_size=VOCAB,
        num_passes=4,
        reader=lambda: iter(train),
        batch_size=32,
        learning_rate=2e-3,
        save_dir=str(tmp_path_factory.mktemp("ch8")),
        save_every=1000,
        **NET,
    )
    return chapter, params


def test_chapter8_translates_the_reversal_task_with_beam_search(trained, capsys):
    chapter, params = trained
    held_out = _reversal(100, 1)
    words = {i: f"w{i}" for i in range(VOCAB)}
    paddle.layer.reset_names()  # the generator's layers get the trained layers' names
    results = chapter.generate(
        params,
        [(s[0],) for s in held_out],
        words,
        words,
        dict_size=VOCAB,
        beam_size=3,
        max_length=20,
        **NET,
    )
    exact = np.mean([r[0][1] == s[2] for r, s in zip(results, held_out, strict=True)])
    assert exact >= 0.95
    scores = np.array([[score for score, _ in r] for r in results])
    assert np.all(np.diff(scores, axis=1) <= 0) and np.all(scores <= 0)  # best first, log p
    out = capsys.readouterr().out
    assert out.count("\t") == 3 * len(held_out)  # one "score<TAB>words" line per result


def _greedy(params, sources, max_length):
    """Greedy decoding with the training network: feed the prefix, take max_id."""
    paddle.layer.reset_names()
    cost = _chapter().seq_to_seq_net(VOCAB, VOCAB, False, **NET)
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
    chapter, params = trained
    sources = [s[0] for s in _reversal(16, 2)]
    paddle.layer.reset_names()
    gen = chapter.seq_to_seq_net(VOCAB, VOCAB, True, beam_size=1, max_length=12, **NET)
    ids = paddle.infer(
        output_layer=gen, parameters=params, input=[(s,) for s in sources], field="id"
    )
    greedy = _greedy(params, sources, 12)
    assert ids.tolist() == [w for g in greedy for w in g]  # one result each: no -1 marks


def test_chapter8_runs_on_the_shared_wmt16_corpus(tmp_path, monkeypatch, capsys):
    if not (SHARED / "wmt16" / "multi30k_task1_raw" / "train.en.gz").exists():
        pytest.skip(f"the Multi30K files are not in {SHARED / 'wmt16'}")
    random.seed(0)
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path))
    (tmp_path / "wmt16").mkdir()
    (tmp_path / "wmt16" / "multi30k_task1_raw").symlink_to(SHARED / "wmt16" / "multi30k_task1_raw")
    chapter = _chapter()
    train_reader, gen_reader, (src_dict, trg_dict) = chapter._data("wmt16", 200)
    small = {"word_vector_dim": 16, "encoder_size": 16, "decoder_size": 16}
    params = chapter.train(
        dict_size=200,
        num_passes=1,
        reader=paddle.reader.firstn(train_reader, 24),
        save_dir=str(tmp_path),
        **small,
    )
    assert (tmp_path / "params_pass_00000.tar").exists()
    assert "Pass 0, Batch 0, Cost" in capsys.readouterr().out
    gen_data = [(s[0],) for s in paddle.reader.firstn(gen_reader, 3)()]
    paddle.layer.reset_names()
    results = chapter.generate(
        params, gen_data, src_dict, trg_dict, dict_size=200, max_length=8, **small
    )
    assert len(results) == 3 and all(len(r) == 3 for r in results)
    assert all(0 < len(words) <= 8 for r in results for _, words in r)
