"""Tests of paddle_lite.dataset.common: data home, md5, download, split, shards."""

from __future__ import annotations

import glob
import hashlib
import os
import pickle

import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import common
from paddle_lite.errors import DataError, PaddleLiteError


def _ten():
    return lambda: iter(range(10))


def test_md5file_of_hello(tmp_path):
    path = tmp_path / "hello.txt"
    path.write_bytes(b"Hello\n")
    assert common.md5file(str(path)) == "09f7e02f1290be211da707a266f153b3"


def test_data_home_follows_env_at_call_time(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path / "a"))
    assert common.data_home() == str(tmp_path / "a")
    assert common.DATA_HOME == str(tmp_path / "a")
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path / "b"))
    assert common.DATA_HOME == str(tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_default_data_home_is_under_user_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PADDLE_LITE_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert common.data_home() == str(tmp_path / ".cache" / "paddle_lite" / "dataset")
    assert not (tmp_path / ".cache").exists()


def test_download_unreachable_raises_typed_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path / "home", monkeypatch)
    md5 = "0123456789abcdef0123456789abcdef"
    with pytest.raises(common.DownloadError) as info:
        common.download("http://127.0.0.1:9/x", "unit", md5)
    err = info.value
    assert isinstance(err, RuntimeError) and isinstance(err, PaddleLiteError)
    target = str(tmp_path / "home" / "unit" / "x")
    assert target in str(err) and md5 in str(err) and "retry limit 3" in str(err)
    assert (err.path, err.md5sum) == (target, md5)
    assert not (tmp_path / "home").exists()  # nothing is written when the server is unreachable


def test_download_existing_correct_file_needs_no_network(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path / "home", monkeypatch)
    tried = fx.block_network(monkeypatch)
    data = b"payload"
    fx.write(home / "unit" / "f.bin", data)
    path = common.download("http://example.invalid/f.bin", "unit", hashlib.md5(data).hexdigest())
    assert path == str(home / "unit" / "f.bin") and tried == []


def test_download_file_url_saves_verified_copy(tmp_path, monkeypatch, capsys):
    home = fx.use_home(tmp_path / "home", monkeypatch)
    src = fx.write(tmp_path / "src" / "data.bin", b"x" * 1000)
    md5 = hashlib.md5(b"x" * 1000).hexdigest()
    path = common.download(src.as_uri(), "unit", md5, save_name="saved.bin")
    assert path == str(home / "unit" / "saved.bin")
    assert common.md5file(path) == md5
    assert "saved.bin" in capsys.readouterr().err  # progress line


def test_download_md5_mismatch_raises_after_three_tries(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path / "home", monkeypatch)
    src = fx.write(tmp_path / "src" / "data.bin", b"abc")
    with pytest.raises(common.DownloadError, match="md5 mismatch"):
        common.download(src.as_uri(), "unit", "f" * 32)
    assert os.listdir(home / "unit") == []  # the wrong bytes are not kept


def test_download_replaces_a_wrong_existing_file(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path / "home", monkeypatch)
    stale = fx.write(home / "unit" / "data.bin", b"old")
    src = fx.write(tmp_path / "src" / "data.bin", b"new")
    md5 = hashlib.md5(b"new").hexdigest()
    assert common.download(src.as_uri(), "unit", md5) == str(stale)
    assert stale.read_bytes() == b"new"
    fx.block_network(monkeypatch)
    stale.write_bytes(b"old")
    with pytest.raises(common.DownloadError, match="already there has md5"):
        common.download(src.as_uri(), "unit", md5)


def test_url_file_name_decodes_percent_escapes():
    from paddle_lite._src.dataset.download import url_file_name

    assert url_file_name("https://h/imikolov%2Fsimple-examples.tgz") == "simple-examples.tgz"
    assert url_file_name("http://h/a/b/train-images-idx3-ubyte.gz") == "train-images-idx3-ubyte.gz"


def test_split_writes_three_files(tmp_path):
    pattern = str(tmp_path / "part-%05d.pickle")
    written = common.split(_ten(), 4, suffix=pattern)
    assert written == [pattern % i for i in range(3)]
    contents = []
    for name in written:
        with open(name, "rb") as f:
            contents.append(pickle.load(f))
    assert contents == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_split_rejects_uncallable_dumper(tmp_path):
    with pytest.raises(TypeError, match="dumper"):
        common.split(_ten(), 4, suffix=str(tmp_path / "%05d"), dumper="pickle")


def test_cluster_files_reader_reads_only_its_files(tmp_path):
    common.split(_ten(), 4, suffix=str(tmp_path / "part-%05d.pickle"))
    pattern = str(tmp_path / "part-*.pickle")
    assert list(common.cluster_files_reader(pattern, 5, 0)()) == [0, 1, 2, 3]
    assert list(common.cluster_files_reader(pattern, 2, 1)()) == [4, 5, 6, 7]
    reader = common.cluster_files_reader(pattern, 1, 0)
    assert list(reader()) == list(range(10)) == list(reader())
    with pytest.raises(TypeError, match="loader"):
        common.cluster_files_reader(pattern, 1, 0, loader=None)
    with pytest.raises(ValueError, match="trainer_id"):
        common.cluster_files_reader(pattern, 2, 2)


def test_convert_round_trip_and_truncation(tmp_path):
    samples = [(i, [i, i + 1], f"s{i}") for i in range(7)]
    written = common.convert(str(tmp_path / "out"), lambda: iter(samples), 3, "demo")
    assert [os.path.basename(p) for p in written] == ["demo-00000", "demo-00001", "demo-00002"]
    reader = common.converted_reader(str(tmp_path / "out" / "demo-*"))
    assert list(reader()) == samples
    assert list(common.converted_reader(written[:1])()) == samples[:3]
    with open(written[0], "r+b") as f:
        f.truncate(os.path.getsize(written[0]) - 2)
    with pytest.raises(common.CorruptFileError, match="demo-00000") as info:
        list(reader())
    assert isinstance(info.value, DataError)


def test_convert_rejects_bad_line_count(tmp_path):
    with pytest.raises(common.DatasetValueError, match="line_count"):
        common.convert(str(tmp_path), _ten(), 0, "x")


def test_fetch_all_without_network_raises_download_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path / "home", monkeypatch)
    tried = fx.block_network(monkeypatch)
    with pytest.raises(common.DownloadError, match="housing.data"):
        common.fetch_all()
    assert tried and all(url.endswith("housing.data") for url in tried)
    assert glob.glob(str(tmp_path / "home" / "**" / "*.data"), recursive=True) == []
