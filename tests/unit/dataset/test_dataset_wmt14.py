"""Tests of paddle_lite.dataset.wmt14 on a generated ``wmt14.tgz`` (no real copy exists)."""

from __future__ import annotations

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common, wmt14

SRC_DICT = b"<s>\n<e>\n<unk>\nle\nchat\nnoir\n"
TRG_DICT = b"<s>\n<e>\n<unk>\nthe\ncat\nblack\n"
LONG = " ".join(["chat"] * 79)


def _members():
    return {
        "wmt14/src.dict": SRC_DICT,
        "wmt14/trg.dict": TRG_DICT,
        "wmt14/train/train": (
            "le chat\tthe cat\n"
            "le chat noir\tthe black cat\n"
            "malformed line without tab\n"
            f"{LONG}\tthe cat\n"
            "chat inconnu\tunknown cat\n"
        ).encode(),
        "wmt14/test/test": b"le chat\tthe cat\n",
        "wmt14/gen/gen": b"noir\tblack\n",
    }


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


@pytest.fixture(params=["archive", "folder"])
def home(request, tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    if request.param == "archive":
        fx.make_tar(home / "wmt14" / "wmt14.tgz", _members())
    else:
        fx.write_tree(home / "wmt14", _members())
    return home


def test_train_samples_and_length_filter(home):
    samples = list(wmt14.train(30000)())
    assert samples == [
        ([0, 3, 4, 1], [0, 3, 4], [3, 4, 1]),
        ([0, 3, 4, 5, 1], [0, 3, 5, 4], [3, 5, 4, 1]),
        ([0, 4, 2, 1], [0, 2, 4], [2, 4, 1]),
    ]


def test_test_and_gen(home):
    assert list(wmt14.test(30000)()) == [([0, 3, 4, 1], [0, 3, 4], [3, 4, 1])]
    assert list(wmt14.gen(30000)()) == [([0, 5, 1], [0, 5], [5, 1])]


def test_dict_size_truncates(home):
    src, trg = wmt14.get_dict(4, reverse=False)
    assert src == {"<s>": 0, "<e>": 1, "<unk>": 2, "le": 3}
    assert trg == {"<s>": 0, "<e>": 1, "<unk>": 2, "the": 3}
    src_rev, _ = wmt14.get_dict(4)
    assert src_rev == {0: "<s>", 1: "<e>", 2: "<unk>", 3: "le"}
    assert list(wmt14.test(4)()) == [([0, 3, 2, 1], [0, 3, 2], [3, 2, 1])]
    assert wmt14.UNK_IDX == 2


def test_tiny_dict_size_is_typed(home):
    with pytest.raises(common.CorruptFileError, match="at least 3"):
        wmt14.get_dict(1)


def test_missing_archive_names_md5(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError, match="0791583d57d5beb693b9414c5b36798c"):
        wmt14.train(10)


def test_real_wmt14_is_absent_or_usable(monkeypatch):
    archive = fx.shared_or_skip("wmt14", "wmt14.tgz")
    fx.use_home(archive.parent.parent, monkeypatch)
    src, trg = wmt14.get_dict(30000)
    assert [src[i] for i in range(3)] == ["<s>", "<e>", "<unk>"] and len(trg) == 30000
