"""Writes that fail (a missing folder, a folder that refuses files, a full disk) and data set
cache files that are damaged while downloads are blocked: the error names the file the
caller asked for, nothing half-written is left, and an older file survives unchanged.
"""

import errno
import gzip
import os
import pathlib
import tempfile
import urllib.request

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import DataError, DownloadError


def _params():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    return paddle.parameters.create(paddle.layer.fc(input=x, size=2, name="out"))


def _leftovers(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".tmp"))


def test_save_into_a_missing_folder(fault, tmp_path):
    fault.case(
        "files (failed writes)",
        "Parameters.save_npz into a folder that does not exist",
        "FileNotFoundError naming the target file and its missing folder",
    )
    target = tmp_path / "no" / "such" / "p.npz"
    with pytest.raises(FileNotFoundError) as info:
        _params().save_npz(str(target))
    assert info.value.filename == str(target) and "does not exist" in str(info.value)
    assert not (tmp_path / "no").exists()
    fault.observed(info.value)


def test_save_into_a_folder_refusing_files(fault, tmp_path, monkeypatch):
    fault.case(
        "files (failed writes)",
        "Topology.serialize into a folder that refuses new files (EACCES)",
        "PermissionError naming the target file; the old file is unchanged",
    )
    target = tmp_path / "net.json"
    target.write_bytes(b"old")

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    topology = paddle.topology.Topology(paddle.layer.fc(input=x, size=2))
    with pytest.raises(PermissionError) as info:
        topology.serialize(str(target))
    assert info.value.filename == str(target) and "not writable" in str(info.value)
    assert target.read_bytes() == b"old"
    fault.observed(info.value)


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_disk_full(fault, tmp_path, monkeypatch, where):
    fault.case(
        "files (failed writes)",
        f"Parameters.to_tar(path) over an existing file, ENOSPC at {where}",
        "OSError ENOSPC naming the target; old file unchanged; no temporary file left",
    )
    params = _params()
    target = str(tmp_path / "model.tar")
    params.to_tar(target)
    old = pathlib.Path(target).read_bytes()
    params.set("_out.w0", np.ones((3, 2), np.float32))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "fsync":
        monkeypatch.setattr(os, "fsync", full)
    else:
        real_open = open

        class FullFile:
            def __init__(self, f):
                self._f = f

            def __getattr__(self, name):
                return full if name == "write" else getattr(self._f, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self._f.close()

        def opener(path, *args, **kwargs):
            f = real_open(path, *args, **kwargs)
            return FullFile(f) if os.path.basename(str(path)).startswith(".model.tar") else f

        monkeypatch.setattr("builtins.open", opener)
    with pytest.raises(OSError) as info:
        params.to_tar(target)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC and info.value.filename == target
    assert pathlib.Path(target).read_bytes() == old and _leftovers(tmp_path) == []
    fault.observed(info.value)


@pytest.fixture
def offline_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path))

    def blocked(*args, **kwargs):
        raise OSError("network blocked")

    monkeypatch.setattr(urllib.request, "urlopen", blocked)
    return tmp_path


def test_truncated_mnist_cache(fault, offline_home):
    fault.case(
        "data set cache",
        "mnist t10k images cut to 3000 bytes, downloads blocked",
        "a DataError naming the file and its official md5",
    )
    (offline_home / "mnist").mkdir()
    images = gzip.compress(bytes(16 + 784 * 10))
    (offline_home / "mnist" / "t10k-images-idx3-ubyte.gz").write_bytes(images[:3000])
    labels = gzip.compress(bytes(8 + 10))
    (offline_home / "mnist" / "t10k-labels-idx1-ubyte.gz").write_bytes(labels)
    with pytest.raises(DataError, match=r"t10k-images-idx3-ubyte.gz") as info:
        list(paddle.dataset.mnist.test()())
    assert "9fb629c4189551a2d022fa330f9573f3" in str(info.value)
    fault.observed(info.value)


def test_wrong_md5_download_blocked(fault, offline_home):
    fault.case(
        "data set cache",
        "common.download over a cached file of the wrong md5, offline",
        "DownloadError naming the path, both md5s; the file is left in place",
    )
    (offline_home / "uci_housing").mkdir()
    cached = offline_home / "uci_housing" / "housing.data"
    cached.write_bytes(b"1 2 3\n")
    with pytest.raises(DownloadError) as info:
        paddle.dataset.common.download("http://x/housing.data", "uci_housing", "0" * 32)
    assert info.value.path == str(cached) and "md5" in str(info.value)
    assert cached.read_bytes() == b"1 2 3\n"
    fault.observed(info.value)


def test_truncated_table_cache(fault, offline_home):
    fault.case(
        "data set cache",
        "uci_housing housing.data cut mid-row, downloads blocked",
        "a DataError naming the file",
    )
    (offline_home / "uci_housing").mkdir()
    row = " ".join(["1.0"] * 14) + "\n"
    (offline_home / "uci_housing" / "housing.data").write_text(row * 20 + "1.0 2.0 3.0\n")
    with pytest.raises(DataError, match="housing.data") as info:
        next(iter(paddle.dataset.uci_housing.train()()))
    fault.observed(info.value)


def test_checkpoint_on_a_full_disk(fault, tmp_path, monkeypatch):
    fault.case(
        "checkpoints",
        "save_checkpoint over an existing checkpoint, ENOSPC at fsync",
        "OSError ENOSPC naming the checkpoint folder; the old checkpoint loads; no "
        "hidden folder left; the trainer trains on",
    )
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    cost = paddle.layer.square_error_cost(input=paddle.layer.fc(input=x, size=1), label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(learning_rate=0.01)
    )
    samples = [(np.ones(3, np.float32), np.ones(1, np.float32))] * 8
    reader = paddle.batch(lambda: iter(samples), 2)
    trainer.train(reader, num_passes=1)
    folder = str(tmp_path / "ck")
    trainer.save_checkpoint(folder)
    saved = {n: params.get(n).copy() for n in params.names()}
    trainer.train(reader, num_passes=1)

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as info:
        trainer.save_checkpoint(folder)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC and info.value.filename == folder
    assert sorted(os.listdir(tmp_path)) == ["ck"]
    trainer.load_checkpoint(folder)
    assert all(np.array_equal(params.get(n), v) for n, v in saved.items())
    trainer.train(reader, num_passes=1)
    fault.observed(info.value)
