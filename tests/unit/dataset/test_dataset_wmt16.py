"""Tests of paddle_lite.dataset.wmt16 on generated archives and raw files, and real Multi30K."""

from __future__ import annotations

import os

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common, wmt16

TRAIN = "a dog runs\tein hund läuft\na cat runs\teine katze läuft\na dog\tein hund\nbad line\n"


def _members():
    return {
        "wmt16/train": TRAIN.encode(),
        "wmt16/val": b"a bird\tein vogel\n",
        "wmt16/test": "the dog runs\tder hund läuft\n".encode(),
    }


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


@pytest.fixture(params=["archive", "extracted"])
def home(request, tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    if request.param == "archive":
        fx.make_tar(home / "wmt16" / "wmt16.tar.gz", _members())
    else:
        fx.write_tree(home / "wmt16", _members())
    return home


def test_dictionaries_are_built_and_cached(home):
    # en counts: a 3, dog 2, runs 2, cat 1
    en = wmt16.get_dict("en", 100)
    assert en == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "dog": 4, "runs": 5, "cat": 6}
    cached = home / "wmt16" / "en_100.dict"
    assert cached.read_text().splitlines()[:4] == ["<s>", "<e>", "<unk>", "a"]
    assert wmt16.get_dict("de", 5, reverse=True) == {
        0: "<s>",
        1: "<e>",
        2: "<unk>",
        3: "ein",
        4: "hund",
    }
    assert (home / "wmt16" / "de_5.dict").exists()


def test_samples_en_to_de(home):
    samples = list(wmt16.train(100, 100)())
    # de dict: <s> <e> <unk> ein(3) hund(2) läuft(2) -> ein 3, hund 4, läuft 5, eine 6, katze 7
    assert samples[0] == ([0, 3, 4, 5, 1], [0, 3, 4, 5], [3, 4, 5, 1])
    assert samples[1] == ([0, 3, 6, 5, 1], [0, 6, 7, 5], [6, 7, 5, 1])
    assert len(samples) == 3
    assert list(wmt16.validation(100, 100)()) == [([0, 3, 2, 1], [0, 3, 2], [3, 2, 1])]
    assert list(wmt16.test(100, 100)()) == [([0, 2, 4, 5, 1], [0, 2, 4, 5], [2, 4, 5, 1])]


def test_samples_de_to_en(home):
    samples = list(wmt16.train(100, 100, src_lang="de")())
    assert samples[0] == ([0, 3, 4, 5, 1], [0, 3, 4, 5], [3, 4, 5, 1])
    assert samples[2] == ([0, 3, 4, 1], [0, 3, 4], [3, 4, 1])


def test_unknown_language_is_value_error(home):
    with pytest.raises(ValueError, match="'fr'"):
        wmt16.train(10, 10, src_lang="fr")
    with pytest.raises(common.DatasetValueError, match="lang"):
        wmt16.get_dict("fr", 10)


def test_small_dict_maps_rare_words_to_unk(home):
    src, _, _ = next(iter(wmt16.train(4, 4)()))
    assert src == [0, 3, 2, 2, 1]


def test_tokenize_approximates_moses():
    assert wmt16.tokenize("A man's 3.5-year-old dog, isn't it?", "en") == [
        "A",
        "man",
        "'s",
        "3.5",
        "-",
        "year-old",
        "dog",
        ",",
        "isn",
        "'t",
        "it",
        "?",
    ]
    assert wmt16.tokenize("Geht's gut... ja!", "de") == ["Geht", "'", "s", "gut", "...", "ja", "!"]


def test_raw_corpus_is_tokenised(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    raw = home / "wmt16" / "multi30k_task1_raw"
    for split in ("train", "val", "test_2016_flickr"):
        fx.write_gz(raw / f"{split}.en.gz", b"A dog runs.\nA cat, too.\n")
        fx.write_gz(raw / f"{split}.de.gz", "Ein Hund läuft.\nEine Katze, auch.\n".encode())
    en = wmt16.get_dict("en", 100, reverse=True)
    # counts: "." 2, "A" 2, then single words, ties by code point
    assert [en[i] for i in range(len(en))] == [
        "<s>",
        "<e>",
        "<unk>",
        ".",
        "A",
        ",",
        "cat",
        "dog",
        "runs",
        "too",
    ]
    samples = list(wmt16.validation(100, 100)())
    assert len(samples) == 2 and len(samples[0][0]) == 6  # <s> A dog runs . <e>


def test_misaligned_raw_corpus_is_typed(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    raw = home / "wmt16" / "multi30k_task1_raw"
    fx.write_gz(raw / "train.en.gz", b"one\n")
    fx.write_gz(raw / "train.de.gz", b"eins\n")
    fx.write_gz(raw / "val.en.gz", b"one\ntwo\n")
    fx.write_gz(raw / "val.de.gz", b"eins\n")
    with pytest.raises(ValueError, match="aligned"):
        list(wmt16.validation(10, 10)())


def test_missing_data_names_md5(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError, match="0c38be43600334966403524a40dcd81e"):
        wmt16.get_dict("en", 10)


@pytest.mark.slow  # a real-data run: python -m pytest -m slow
def test_real_multi30k_raw(tmp_path, monkeypatch):
    raw = fx.shared_or_skip("wmt16", "multi30k_task1_raw")
    home = fx.link_home(tmp_path, monkeypatch, {"wmt16/multi30k_task1_raw": raw})
    train = list(wmt16.train(30000, 30000)())
    assert len(train) == 29000
    assert all(s[0] == 0 and s[-1] == 1 for s, _, _ in train)
    assert all(t[0] == 0 and n[-1] == 1 and t[1:] == n[:-1] for _, t, n in train)
    assert len(list(wmt16.validation(30000, 30000)())) == 1014
    assert len(list(wmt16.test(30000, 30000, src_lang="de")())) == 1000
    en = wmt16.get_dict("en", 1000, True)
    assert len(en) == 1000 and [en[i] for i in range(3)] == ["<s>", "<e>", "<unk>"]
    full_en = wmt16.get_dict("en", 30000)
    full_de = wmt16.get_dict("de", 30000)
    assert 11200 < len(full_en) <= 11250 and 19100 < len(full_de) <= 19220
    assert os.path.exists(home / "wmt16" / "en_1000.dict")
