"""Tests of paddle_lite.dataset.imikolov on generated PTB files and the real PTB text."""

from __future__ import annotations

import collections

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common, imikolov

TRAIN = "simple-examples/data/ptb.train.txt"
VALID = "simple-examples/data/ptb.valid.txt"


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


@pytest.fixture
def extracted(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.write_tree(home / "imikolov", {TRAIN: fx.PTB_TRAIN, VALID: fx.PTB_VALID})
    return home


def test_build_dict_rules(extracted):
    # counts over train+valid: the 4, <s> 4, <e> 4, cat 3, sat 2, dog/on/mat/ran 1
    word_idx = imikolov.build_dict(min_word_freq=1)
    assert word_idx == {"<e>": 0, "<s>": 1, "the": 2, "cat": 3, "sat": 4, "<unk>": 5}
    assert imikolov.build_dict(min_word_freq=3) == {"<e>": 0, "<s>": 1, "the": 2, "<unk>": 3}


def test_ngram_samples(extracted):
    word_idx = imikolov.build_dict(min_word_freq=1)
    reader = imikolov.test(word_idx, 3)
    # <s> the cat ran <e> -> ids 1 2 3 5 0
    assert list(reader()) == [(1, 2, 3), (2, 3, 5), (3, 5, 0)]
    assert list(reader()) == list(reader())
    train = list(imikolov.train(word_idx, 5)())
    assert all(len(s) == 5 for s in train)
    assert len(train) == 1 + 4 + 0  # lines of 5, 8 and 4 marked tokens
    assert train[0] == (1, 2, 3, 4, 0)


def test_seq_samples_and_length_limit(extracted):
    word_idx = imikolov.build_dict(min_word_freq=1)
    seq = list(imikolov.train(word_idx, 0, imikolov.DataType.SEQ)())
    assert seq[0] == ([1, 2, 3, 4], [2, 3, 4, 0])
    assert seq[2] == ([1, 5, 3], [5, 3, 0])  # the corpus's own <unk> maps to <unk>
    limited = list(imikolov.train(word_idx, 4, imikolov.DataType.SEQ)())
    assert [src for src, _ in limited] == [[1, 2, 3, 4], [1, 5, 3]]


def test_tgz_archive_with_dot_slash_members(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.make_tar(
        home / "imikolov" / "simple-examples.tgz",
        {f"./{TRAIN}": fx.PTB_TRAIN, f"./{VALID}": fx.PTB_VALID},
    )
    word_idx = imikolov.build_dict(min_word_freq=1)
    assert len(word_idx) == 6
    assert list(imikolov.test(word_idx, 3)())[0] == (1, 2, 3)


def test_bad_arguments_are_value_errors(extracted):
    word_idx = imikolov.build_dict(min_word_freq=1)
    with pytest.raises(ValueError, match="data_type"):
        imikolov.train(word_idx, 5, data_type=3)
    with pytest.raises(common.DatasetValueError, match="n >= 1"):
        imikolov.train(word_idx, 0)
    with pytest.raises(ValueError, match="<unk>"):
        imikolov.train({"the": 0}, 2)


def test_missing_data_raises_download_error_naming_alternatives(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError) as info:
        imikolov.build_dict()
    text = str(info.value)
    assert "30177ea32e27c525793142b6bf2c8e2d" in text and "ptb.train.txt" in text


def test_corrupt_archive_is_typed(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.write(home / "imikolov" / "simple-examples.tgz", b"\x1f\x8b\x08garbage")
    with pytest.raises(common.CorruptFileError, match="simple-examples.tgz"):
        imikolov.build_dict()


@pytest.mark.slow  # a real-data run: python -m pytest -m slow
def test_real_ptb(monkeypatch):
    train_file = fx.shared_or_skip("imikolov", TRAIN)
    fx.use_home(train_file.parents[3], monkeypatch)
    word_idx = imikolov.build_dict()
    assert len(word_idx) == 2073
    assert sorted(word_idx.values()) == list(range(2073)) and word_idx["<unk>"] == 2072
    lines = train_file.read_text().splitlines()
    expected = sum(max(0, len(line.split()) + 2 - 5 + 1) for line in lines)
    grams = list(imikolov.train(word_idx, 5)())
    assert len(grams) == expected and all(len(g) == 5 for g in grams)
    counts = collections.Counter(w for g in grams for w in g)
    assert max(counts) < 2073
    words = {i: w for w, i in word_idx.items()}
    src, trg = next(iter(imikolov.test(word_idx, 0, imikolov.DataType.SEQ)()))
    sentence = "consumers may want to move their telephones a little closer to the tv set"
    assert [words[i] for i in src[1:]] == [
        w if w in word_idx else "<unk>" for w in sentence.split()
    ]
    assert src[0] == word_idx["<s>"] and trg[-1] == word_idx["<e>"]
