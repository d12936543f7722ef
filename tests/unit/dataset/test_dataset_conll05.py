"""Tests of paddle_lite.dataset.conll05 on a generated corpus and the real WSJ test set."""

from __future__ import annotations

import gzip
import struct
import warnings

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite._src.dataset import conll05 as impl
from paddle_lite.dataset import common, conll05
from paddle_lite.errors import DataError

SIT = (
    [3, 4, 5, 6, 7],  # The cat sat on mats
    [3] * 5,  # ctx -2: The
    [4] * 5,  # ctx -1: cat
    [5] * 5,  # ctx 0: sat
    [6] * 5,  # ctx +1: on
    [7] * 5,  # ctx +2: mats
    [1] * 5,  # predicate "sit"
    [1, 1, 1, 1, 1],
    [0, 1, 6, 4, 5],  # B-A0 I-A0 B-V B-AM-LOC I-AM-LOC
)
LIE = (
    [3, 4, 5, 6, 7],
    [5] * 5,
    [6] * 5,
    [7] * 5,
    [2] * 5,  # eos
    [2] * 5,  # eos
    [0] * 5,  # predicate "lie"
    [0, 0, 1, 1, 1],
    [8, 2, 3, 8, 6],  # O B-A1 I-A1 O B-V
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _dicts(folder):
    fx.write(folder / "targetDict.txt", fx.CONLL_TARGETS)
    fx.write(folder / "verbDict.txt", fx.CONLL_VERBS)


@pytest.mark.parametrize("layout", ["folder", "archive"])
def test_samples(tmp_path, monkeypatch, layout):
    home = fx.use_home(tmp_path, monkeypatch)
    folder = home / "conll05"
    _dicts(folder)
    fx.write(folder / "wordDict.txt", fx.CONLL_WORDDICT)
    if layout == "folder":
        fx.write_tree(folder, fx.conll_members())
    else:
        fx.make_tar(folder / "conll05st-tests.tar.gz", fx.conll_members())
    word_dict, verb_dict, label_dict = conll05.get_dict()
    assert verb_dict == {"lie": 0, "sit": 1}
    assert list(label_dict) == [
        "B-A0",
        "I-A0",
        "B-A1",
        "I-A1",
        "B-AM-LOC",
        "I-AM-LOC",
        "B-V",
        "I-V",
        "O",
    ]
    reader = conll05.test()
    assert list(reader()) == [SIT, LIE]
    assert list(reader()) == [SIT, LIE]


def test_word_dict_built_from_corpus_when_absent(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _dicts(home / "conll05")
    fx.write_tree(home / "conll05", fx.conll_members())
    with pytest.warns(
        UserWarning,
        match=r"wordDict.txt is missing.*from the test corpus: 10 "
        r"words instead of wordDict.txt's 44,068.*get_embedding",
    ):
        word_dict, _, _ = conll05.get_dict()
    # <unk>, bos, eos, then words by (-count, word); every corpus word occurs once
    assert word_dict == {
        "<unk>": 0,
        "bos": 1,
        "eos": 2,
        "Hi": 3,
        "The": 4,
        "cat": 5,
        "mats": 6,
        "on": 7,
        "sat": 8,
        "there": 9,
    }


def test_get_embedding_absent_raises_download_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    monkeypatch.setattr(impl, "EMB_URL", "http://127.0.0.1:9/emb")
    with pytest.raises(common.DownloadError) as info:
        conll05.get_embedding()
    assert impl.EMB_MD5 in str(info.value) and str(tmp_path / "conll05" / "emb") in str(info.value)


def _emb(words):
    return struct.pack("<IIQ", 0, 4, words * 32) + b"\0" * (words * 32 * 4)


def test_get_embedding_present_returns_path_when_the_dictionary_fits(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    words = len(fx.CONLL_WORDDICT.splitlines())
    emb = fx.write(home / "conll05" / "emb", _emb(words))
    fx.write(home / "conll05" / "wordDict.txt", fx.CONLL_WORDDICT)
    assert conll05.get_embedding() == str(emb)


def test_get_embedding_explains_a_missing_or_mismatched_dictionary(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.write(home / "conll05" / "emb", _emb(44068))
    with pytest.raises(DataError, match=r"44,068 rows.*wordDict.txt is missing.*Add wordDict.txt"):
        conll05.get_embedding()
    fx.write(home / "conll05" / "wordDict.txt", fx.CONLL_WORDDICT)
    with pytest.raises(DataError, match=r"44,068 rows but .*wordDict.txt has \d+ words"):
        conll05.get_embedding()


def test_bad_props_cell_is_typed(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _dicts(home / "conll05")
    members = fx.conll_members()
    key = "conll05st-release/test.wsj/props/test.wsj.props.gz"
    members[key] = gzip.compress(fx.CONLL_PROPS.replace(b"(V*)     *)", b"V**     *)"))
    fx.write_tree(home / "conll05", members)
    fx.write(home / "conll05" / "wordDict.txt", fx.CONLL_WORDDICT)
    with pytest.raises(common.CorruptFileError, match="unexpected label cell 'V\\*\\*'"):
        list(conll05.test()())


def test_misaligned_files_are_typed(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _dicts(home / "conll05")
    members = fx.conll_members()
    members["conll05st-release/test.wsj/words/test.wsj.words.gz"] = gzip.compress(b"a\nb\n")
    fx.write_tree(home / "conll05", members)
    with pytest.raises(common.CorruptFileError, match="props lines for 2 words lines"):
        list(conll05.test()())


def test_real_wsj_test_set(monkeypatch):
    folder = fx.shared_or_skip("conll05", "conll05st-release", "test.wsj")
    home = folder.parents[2]
    fx.use_home(home, monkeypatch)
    with warnings.catch_warnings():  # the shared copy may lack wordDict.txt (then it warns)
        warnings.simplefilter("ignore", UserWarning)
        word_dict, verb_dict, label_dict = conll05.get_dict()
        reader = conll05.test()
    assert len(verb_dict) == 3162 and len(label_dict) == 109 and label_dict["O"] == 108
    samples = list(reader())
    assert len(samples) == 5267
    for sample in samples:
        assert len(sample) == 9 and len({len(field) for field in sample}) == 1
        assert max(sample[8]) < len(label_dict) and set(sample[7]) <= {0, 1}
        assert sample[8].count(label_dict["B-V"]) >= 1
    assert max(max(s[0]) for s in samples) < len(word_dict)
