"""Tests of paddle_lite.dataset.cifar on generated pickle-batch archives."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite.dataset import cifar, common
from paddle_lite.errors import DataError


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _cifar10_members(byte_keys=True):
    folder = "cifar-10-batches-py"
    return {
        f"{folder}/batches.meta": pickle.dumps({"label_names": ["a"]}, protocol=2),
        f"{folder}/data_batch_1": fx.cifar_batch(4, 1, "labels", 10, byte_keys),
        f"{folder}/data_batch_2": fx.cifar_batch(3, 2, "labels", 10, byte_keys),
        f"{folder}/test_batch": fx.cifar_batch(2, 3, "labels", 10, byte_keys),
    }


def _expected(members, names, label_key):
    out = []
    for name in names:
        batch = pickle.loads(members[name], encoding="bytes")
        batch = {k.decode() if isinstance(k, bytes) else k: v for k, v in batch.items()}
        out += [
            ((row / 255.0).astype(np.float32), lab)
            for row, lab in zip(batch["data"], batch[label_key], strict=True)
        ]
    return out


def _assert_same(got, want):
    assert len(got) == len(want)
    for (x, y), (ex, ey) in zip(got, want, strict=True):
        assert x.dtype == np.float32 and x.shape == (3072,)
        np.testing.assert_array_equal(x, ex)
        assert y == ey and type(y) is int


def test_cifar10_archive_train_and_test(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    members = _cifar10_members()
    fx.make_tar(home / "cifar" / "cifar-10-python.tar.gz", members)
    names = ["cifar-10-batches-py/data_batch_1", "cifar-10-batches-py/data_batch_2"]
    reader = cifar.train10()
    _assert_same(list(reader()), _expected(members, names, "labels"))
    assert len(list(reader())) == 7
    _assert_same(
        list(cifar.test10()()), _expected(members, ["cifar-10-batches-py/test_batch"], "labels")
    )
    values = np.stack([x for x, _ in reader()])
    assert 0.0 <= values.min() and values.max() <= 1.0


def test_cifar10_extracted_folder_with_str_keys(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    members = _cifar10_members(byte_keys=False)
    fx.write_tree(home / "cifar", members)
    names = ["cifar-10-batches-py/data_batch_1", "cifar-10-batches-py/data_batch_2"]
    _assert_same(list(cifar.train10()()), _expected(members, names, "labels"))


def test_cifar100_uses_fine_labels(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    members = {
        "cifar-100-python/meta": pickle.dumps({"fine_label_names": []}, protocol=2),
        "cifar-100-python/train": fx.cifar_batch(5, 4, "fine_labels", 100),
        "cifar-100-python/test": fx.cifar_batch(2, 5, "fine_labels", 100),
    }
    fx.make_tar(home / "cifar" / "cifar-100-python.tar.gz", members)
    _assert_same(
        list(cifar.train100()()), _expected(members, ["cifar-100-python/train"], "fine_labels")
    )
    _assert_same(
        list(cifar.test100()()), _expected(members, ["cifar-100-python/test"], "fine_labels")
    )


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo unpickled > evil.txt",))


def test_restricted_unpickler_refuses_os_system(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blob = pickle.dumps({b"data": _Evil()}, protocol=2)
    with pytest.raises(cifar.UnsafePickleError, match=r"(posix|os|nt)\.system") as info:
        cifar.load_batch(blob, "evil_batch")
    assert isinstance(info.value, DataError) and "evil_batch" in str(info.value)
    assert not (tmp_path / "evil.txt").exists()


def test_archive_with_unsafe_member_is_refused(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    fx.make_tar(
        home / "cifar" / "cifar-10-python.tar.gz",
        {"cifar-10-batches-py/test_batch": pickle.dumps(_Evil(), protocol=2)},
    )
    with pytest.raises(cifar.UnsafePickleError, match="test_batch"):
        list(cifar.test10()())


def test_corrupted_archive_is_a_typed_error(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    path = fx.make_tar(home / "cifar" / "cifar-10-python.tar.gz", _cifar10_members())
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(common.CorruptFileError) as info:
        list(cifar.train10()())
    assert str(path) in str(info.value) and "c58f30108f718f92721af3b95e74349a" in str(info.value)


def test_batch_with_wrong_shape_is_a_typed_error():
    blob = pickle.dumps({"data": np.zeros((2, 10), np.uint8), "labels": [0, 1]}, protocol=2)
    batch = cifar.load_batch(blob, "b")
    from paddle_lite._src.dataset.cifar import _batch_samples

    with pytest.raises(common.CorruptFileError, match=r"\[N, 3072\]"):
        list(_batch_samples(batch, "b"))


def test_absent_archive_raises_download_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError, match="cifar-10-batches-py"):
        cifar.train10()


def test_real_cifar10_test_set(monkeypatch):
    path = fx.shared_or_skip("cifar", "cifar-10-python.tar.gz")
    fx.use_home(path.parent.parent, monkeypatch)
    labels = [label for _, label in cifar.test10()()]
    assert len(labels) == 10000 and sorted(set(labels)) == list(range(10))
