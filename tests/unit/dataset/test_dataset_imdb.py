"""Tests of paddle_lite.dataset.imdb on generated review trees/archives and real reviews."""

from __future__ import annotations

import collections
import re
import string

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common, imdb

REVIEWS = {
    "aclImdb/train/pos/0_9.txt": b"Great movie, great CAST!\n",
    "aclImdb/train/pos/2_8.txt": b"great fun<br />fun.",
    "aclImdb/train/pos/10_7.txt": b"Fun fun fun",
    "aclImdb/train/neg/0_2.txt": b"Bad, bad acting",
    "aclImdb/train/neg/1_1.txt": b"Awful movie... awful!",
    "aclImdb/test/pos/0_10.txt": b"great",
    "aclImdb/test/neg/0_3.txt": b"bad",
    "aclImdb/test/neg/1_4.txt": b"awful bad",
    "aclImdb/imdbEr.txt": b"0.1\n",
}


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _decode(samples, word_idx):
    words = {i: w for w, i in word_idx.items()}
    return [([words[i] for i in ids], label) for ids, label in samples]


def test_tokenize_text_matches_v2_rule():
    assert imdb.tokenize_text(b"It's GREAT, isn't it?\n") == ["its", "great", "isnt", "it"]
    assert imdb.tokenize_text(b"a<br />b") == ["abr", "b"]


@pytest.mark.parametrize("layout", ["folder", "aclImdb_v1.tar.gz", "aclImdb_labeled.tar.gz"])
def test_train_alternates_and_drains(tmp_path, monkeypatch, layout):
    home = fx.use_home(tmp_path, monkeypatch)
    if layout == "folder":
        fx.write_tree(home / "imdb", REVIEWS)
    else:
        fx.make_tar(home / "imdb" / layout, REVIEWS)
    word_idx = imdb.build_dict(re.compile(r"aclImdb/train/pos/.*\.txt$"), 0)
    # pos: great 3, fun 4, movie 1, cast 1, greatfunbr 0 ... -> fun, great, cast, movie, ...
    assert list(word_idx)[:2] == ["fun", "great"] and word_idx["<unk>"] == len(word_idx) - 1
    samples = _decode(imdb.train(word_idx)(), word_idx)
    assert [label for _, label in samples] == [0, 1, 0, 1, 0]
    assert samples[0] == (["great", "movie", "great", "cast"], 0)
    assert samples[1][0] == ["<unk>", "<unk>", "<unk>"]  # neg/0_2.txt
    assert samples[2] == (["great", "funbr", "fun"], 0)  # 2_8 before 10_7 (natural order)
    assert samples[4] == (["fun", "fun", "fun"], 0)
    assert [label for _, label in imdb.test(word_idx)()] == [0, 1, 1]


def test_word_dict_counts_train_and_test(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.write_tree(home / "imdb", REVIEWS)
    word_idx = imdb.word_dict(cutoff=2)
    # counts over all labelled reviews: fun 4 (incl. "fun." once), great 4, bad 4, awful 3
    assert word_idx == {"bad": 0, "fun": 1, "great": 2, "awful": 3, "<unk>": 4}


def test_missing_data_raises_download_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError) as info:
        imdb.word_dict()
    assert "7c2ac02c03563afcf9b574c7e56c153a" in str(info.value)
    assert "aclImdb_labeled.tar.gz" in str(info.value)


def test_truncated_archive_is_typed(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    big = {f"aclImdb/train/pos/{i}_9.txt": bytes(range(256)) * 40 for i in range(50)}
    path = fx.make_tar(home / "imdb" / "aclImdb_v1.tar.gz", big)
    path.write_bytes(path.read_bytes()[:-500])
    with pytest.raises(common.CorruptFileError) as info:
        imdb.build_dict(re.compile(r"aclImdb/train/pos/.*\.txt$"), 0)
    assert str(path) in str(info.value) and "7c2ac02c03563afcf9b574c7e56c153a" in str(info.value)


def _independent_dict(root, cutoff):
    punct = re.compile(b"[" + re.escape(string.punctuation.encode()) + b"]")
    freq = collections.Counter()
    for path in root.glob("*/*/*.txt"):
        text = punct.sub(b"", path.read_bytes().rstrip(b"\n\r")).lower()
        words = re.split(rb"[ \t\n\r\x0b\x0c]+", text)
        freq.update(w.decode("utf-8", "replace") for w in words if w)
    kept = sorted((w for w, c in freq.items() if c > cutoff), key=lambda w: (-freq[w], w))
    return {**{w: i for i, w in enumerate(kept)}, "<unk>": len(kept)}


def test_real_subset_folder(tmp_path, monkeypatch):
    folder = fx.shared_or_skip("imdb", "aclImdb")
    fx.link_home(tmp_path, monkeypatch, {"imdb/aclImdb": folder})
    word_idx = imdb.word_dict()
    assert word_idx == _independent_dict(folder, 150)
    train = list(imdb.train(word_idx)())
    assert len(train) == 1000
    assert [label for _, label in train] == [0, 1] * 500
    test = list(imdb.test(word_idx)())
    assert len(test) == 1000 and sum(label for _, label in test) == 500
    assert all(0 <= i < len(word_idx) for ids, _ in train for i in ids)


@pytest.mark.slow
def test_real_labeled_archive_word_dict(tmp_path, monkeypatch):
    archive = fx.shared_or_skip("imdb", "aclImdb_labeled.tar.gz")
    fx.link_home(tmp_path, monkeypatch, {"imdb/aclImdb_labeled.tar.gz": archive})
    assert len(imdb.word_dict()) == 5147
