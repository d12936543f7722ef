"""Tests of paddle_lite.dataset.mnist on generated IDX files and on the real files."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite._src.dataset import mnist as impl
from paddle_lite.dataset import common, mnist


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _images(n, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(n, 28, 28), dtype=np.uint8)


def _write_pair(folder, prefix, images, labels):
    fx.write_gz(folder / f"{prefix}-images-idx3-ubyte.gz", fx.idx_images(images))
    fx.write_gz(folder / f"{prefix}-labels-idx1-ubyte.gz", fx.idx_labels(labels))


def test_test_reader_scales_to_minus_one_one(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    images = _images(7)
    images[0, 0, :3] = [0, 255, 51]
    labels = np.array([3, 1, 4, 1, 5, 9, 2])
    _write_pair(home / "mnist", "t10k", images, labels)
    samples = list(mnist.test()())
    assert len(mnist.test()) == 7  # the labels header's count: a progress bar's total
    assert [label for _, label in samples] == labels.tolist()
    assert all(type(label) is int for _, label in samples)
    pixels = np.stack([x for x, _ in samples])
    assert pixels.dtype == np.float32 and pixels.shape == (7, 784)
    np.testing.assert_allclose(pixels, images.reshape(7, 784) / 255.0 * 2 - 1, atol=1e-6)
    assert pixels[0, :3].tolist() == pytest.approx([-1.0, 1.0, 51 / 255 * 2 - 1])


def test_reader_keeps_last_partial_buffer(tmp_path):
    _write_pair(tmp_path, "x", _images(7), np.arange(7) % 10)
    reader = mnist.reader_creator(
        str(tmp_path / "x-images-idx3-ubyte.gz"), str(tmp_path / "x-labels-idx1-ubyte.gz"), 3
    )
    assert [label for _, label in reader()] == list(range(7))
    assert len(list(reader())) == 7


def test_train_prefers_full_files(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist", "train", _images(5), np.full(5, 7))
    _write_pair(home / "mnist" / impl.SUBSET_DIR, "train", _images(3), np.full(3, 2))
    assert [label for _, label in mnist.train()()] == [7] * 5


def test_train_falls_back_to_subset_pair_with_a_warning(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist" / impl.SUBSET_DIR, "train", _images(3), np.array([2, 0, 1]))
    fx.write_gz(home / "mnist" / "train-labels-idx1-ubyte.gz", fx.idx_labels(np.zeros(60)))
    with pytest.warns(
        UserWarning,
        match=r"train-images-idx3-ubyte.gz is missing.*subset.*"
        r"fewer images",
    ) as record:
        reader = mnist.train()
    assert impl.SUBSET_DIR in str(record[0].message)
    assert [label for _, label in reader()] == [2, 0, 1]


def test_truncated_gz_names_the_file(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist", "t10k", _images(20), np.zeros(20))
    path = home / "mnist" / "t10k-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(common.CorruptFileError) as info:
        list(mnist.test()())
    assert str(path) in str(info.value) and impl.TEST_IMAGE_MD5 in str(info.value)


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        ([2049, 2, 28, 28], "magic number 2049"),
        ([2051, 3, 28, 28], "announces 3 items"),
        ([2051, 2, 32, 32], "image size"),
    ],
)
def test_bad_header_is_a_typed_error(tmp_path, monkeypatch, header, problem):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist", "t10k", _images(2), np.zeros(2))
    body = np.array(header, dtype=">u4").tobytes() + _images(2).tobytes()
    fx.write_gz(home / "mnist" / "t10k-images-idx3-ubyte.gz", body)
    with pytest.raises(common.CorruptFileError, match=problem):
        list(mnist.test()())


def test_label_count_mismatch(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist", "t10k", _images(4), np.zeros(3))
    with pytest.raises(common.CorruptFileError, match="3 labels for the 4 images"):
        list(mnist.test()())


def test_missing_files_raise_download_error(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(common.DownloadError, match=impl.TEST_IMAGE_MD5):
        mnist.test()


def test_real_test_set(monkeypatch):
    folder = fx.shared_or_skip("mnist", "t10k-images-idx3-ubyte.gz").parent
    fx.use_home(folder.parent, monkeypatch)
    samples = list(mnist.test()())
    assert len(samples) == 10000
    pixels = np.stack([x for x, _ in samples])
    assert pixels.shape == (10000, 784) and pixels.dtype == np.float32
    assert pixels.min() == -1.0 and pixels.max() == 1.0
    assert sorted({label for _, label in samples}) == list(range(10))


def test_real_train_subset_reads_every_image(tmp_path, monkeypatch):
    folder = fx.shared_or_skip("mnist", impl.SUBSET_DIR)
    full_labels = fx.shared_or_skip("mnist", "train-labels-idx1-ubyte.gz")
    if (folder.parent / "train-images-idx3-ubyte.gz").exists():
        fx.link_home(tmp_path, monkeypatch, {f"mnist/{impl.SUBSET_DIR}": folder})
    else:
        fx.use_home(folder.parent.parent, monkeypatch)
    with pytest.warns(UserWarning, match="instead of the full 60,000 training images"):
        reader = mnist.train()
    labels = [label for _, label in reader()]
    assert len(labels) == 24345
    with gzip.open(full_labels) as f:
        original = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    assert labels == original[:24345].tolist()


def test_len_of_a_damaged_labels_file_is_a_typed_error(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _write_pair(home / "mnist", "t10k", _images(2), np.zeros(2))
    fx.write_gz(home / "mnist" / "t10k-labels-idx1-ubyte.gz", np.array([2051, 2], ">u4").tobytes())
    with pytest.raises(common.CorruptFileError, match="not an IDX labels file"):
        len(mnist.test())
    fx.write(home / "mnist" / "t10k-labels-idx1-ubyte.gz", b"not gzip at all")
    with pytest.raises(common.CorruptFileError, match="t10k-labels-idx1-ubyte.gz"):
        len(mnist.test())
