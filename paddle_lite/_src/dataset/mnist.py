"""MNIST handwritten digits: 60,000 training and 10,000 test images of 28x28 pixels.

Files (gzip-compressed IDX, big-endian): images have a 16-byte header (magic 2051, count,
28, 28) then uint8 pixels row by row; labels an 8-byte header (magic 2049, count) then one
uint8 label 0-9 per image. A sample is ``(float32[784] scaled as x / 255 * 2 - 1 into [-1, 1],
int label)``.

Files are looked up in ``<data home>/mnist/``. For training, when the full
``train-images-idx3-ubyte.gz`` is absent but ``train_first24345/`` holds an images+labels pair
(a subset with a consistent header), that pair is used and a log message says so.
"""

from __future__ import annotations

import gzip
import os
import warnings
from collections.abc import Callable, Iterator

import numpy as np

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, existing_or_download, module_home
from paddle_lite._src.dataset.sources import corrupt, gunzip, read_file, reading
from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.length import SizedReader
from paddle_lite._src.tracebacks import user_stacklevel

URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"
SUBSET_DIR = "train_first24345"

IMAGE_MAGIC = 2051
LABEL_MAGIC = 2049
PIXELS = 28 * 28
_CHUNK = 1000

Sample = tuple[np.ndarray, int]


def _parse_idx(path: str, magic: int, md5sum: str) -> np.ndarray:
    """Parse one gzip IDX file, checking the header against the payload size.

    Args:
      path: the ``.gz`` file.
      magic: 2051 for images, 2049 for labels.
      md5sum: md5 of the official file, named in errors.

    Returns:
      uint8 array ``[count, 784]`` for images or ``[count]`` for labels.

    Raises:
      CorruptFileError: bad gzip data, wrong magic or dimensions, or a short payload.
    """
    raw = gunzip(read_file(path), path, md5sum)
    header_len = 16 if magic == IMAGE_MAGIC else 8
    if len(raw) < header_len:
        raise corrupt(path, f"the IDX header needs {header_len} bytes, received {len(raw)}", md5sum)
    header = np.frombuffer(raw[:header_len], dtype=">u4")
    if int(header[0]) != magic:
        raise corrupt(path, f"IDX magic number {int(header[0])}, expected {magic}", md5sum)
    count = int(header[1])
    if magic == IMAGE_MAGIC and tuple(int(v) for v in header[2:]) != (28, 28):
        raise corrupt(path, f"image size {tuple(header[2:])}, expected (28, 28)", md5sum)
    item = PIXELS if magic == IMAGE_MAGIC else 1
    payload = np.frombuffer(raw, dtype=np.uint8, offset=header_len)
    if payload.size != count * item:
        raise corrupt(
            path,
            f"the header announces {count} items ({count * item} bytes) but the file holds "
            f"{payload.size} bytes after the header",
            md5sum,
        )
    return payload.reshape(count, PIXELS) if item == PIXELS else payload


def _load_pair(image_path: str, label_path: str, image_md5: str, label_md5: str):
    """Load an images/labels file pair and check that their counts agree."""
    images = _parse_idx(image_path, IMAGE_MAGIC, image_md5)
    labels = _parse_idx(label_path, LABEL_MAGIC, label_md5)
    if len(images) != len(labels):
        raise corrupt(
            label_path,
            f"{len(labels)} labels for the {len(images)} images of {image_path}",
            label_md5,
        )
    return images, labels


def reader_creator(
    image_filename: str, label_filename: str, buffer_size: int = 100
) -> Callable[[], Iterator[Sample]]:
    """Create a reader over an IDX images/labels pair.

    Args:
      image_filename: gzip IDX images file.
      label_filename: gzip IDX labels file.
      buffer_size: images converted to float per step (every image is yielded, including a
        last partial buffer).

    Returns:
      A reader yielding ``(float32[784] in [-1, 1], int label)``.
    """
    return _pair_reader(image_filename, label_filename, size=max(int(buffer_size), 1))


def _pair_reader(
    image_path: str, label_path: str, image_md5: str = "", label_md5: str = "", size: int = _CHUNK
) -> Callable[[], Iterator[Sample]]:
    """A seekable reader that loads and checks the pair on every pass, then yields scaled
    samples; its ``len()`` is the count the labels file announces."""
    reader = seek.seekable(
        lambda: Scaled(*_load_pair(image_path, label_path, image_md5, label_md5), size)
    )
    return SizedReader(reader, lambda: _label_count(label_path, label_md5))


def _label_count(path: str, md5sum: str) -> int:
    """The number of labels the IDX header of ``path`` announces (the rest is not read)."""
    with reading(path, md5sum), gzip.open(path, "rb") as f:
        header = f.read(8)
    if len(header) < 8 or int.from_bytes(header[:4], "big") != LABEL_MAGIC:
        raise corrupt(path, f"not an IDX labels file (header {header!r})", md5sum)
    return int.from_bytes(header[4:], "big")


class Scaled(seek.Indexed):
    """The ``(x / 255 * 2 - 1, label)`` pairs of a pass, by index; iterating converts
    ``size`` images at a time."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, size: int) -> None:
        self.images, self.labels, self.size = images, labels, size

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, j: int) -> Sample:
        return self.images[j].astype(np.float32) / 255.0 * 2.0 - 1.0, int(self.labels[j])

    def __iter__(self) -> Iterator[Sample]:
        images, labels, size = self.images, self.labels, self.size
        for start in range(0, len(images), size):
            block = images[start : start + size].astype(np.float32) / 255.0 * 2.0 - 1.0
            for row, label in zip(block, labels[start : start + size], strict=True):
                yield row, int(label)


def _train_files() -> tuple[str, str, str, str]:
    """Return (images, labels, images md5, labels md5) for the training set."""
    home = module_home("mnist")
    full = os.path.join(home, "train-images-idx3-ubyte.gz")
    sub_images = os.path.join(home, SUBSET_DIR, "train-images-idx3-ubyte.gz")
    sub_labels = os.path.join(home, SUBSET_DIR, "train-labels-idx1-ubyte.gz")
    if not os.path.isfile(full) and os.path.isfile(sub_images) and os.path.isfile(sub_labels):
        warnings.warn(
            f"mnist: {full} is missing, so train() reads the subset in "
            f"{os.path.join(home, SUBSET_DIR)} instead of the full 60,000 training images; "
            "models will train on fewer images than v2's. Add train-images-idx3-ubyte.gz "
            f"(md5 {TRAIN_IMAGE_MD5}) to {home} to use the whole set.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return sub_images, sub_labels, "", ""
    images = existing_or_download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5)
    labels = existing_or_download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5)
    return images, labels, TRAIN_IMAGE_MD5, TRAIN_LABEL_MD5


def train() -> Callable[[], Iterator[Sample]]:
    """Create the MNIST training reader (60,000 samples with the full files).

    Returns:
      A reader yielding ``(pixels float32[784] in [-1, 1], label int 0..9)``.

    Raises:
      DownloadError: the files are absent and cannot be downloaded.
      CorruptFileError: a file is truncated or not IDX.
    """
    return _pair_reader(*_train_files())


def test() -> Callable[[], Iterator[Sample]]:
    """Create the MNIST test reader (10,000 samples).

    Returns:
      A reader yielding ``(pixels float32[784] in [-1, 1], label int 0..9)``.

    Raises:
      DownloadError: the files are absent and cannot be downloaded.
      CorruptFileError: a file is truncated or not IDX.
    """
    images = existing_or_download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5)
    labels = existing_or_download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5)
    return _pair_reader(images, labels, TEST_IMAGE_MD5, TEST_LABEL_MD5)


def fetch() -> None:
    """Download the four MNIST files into the data home."""
    download(TRAIN_IMAGE_URL, "mnist", TRAIN_IMAGE_MD5)
    download(TRAIN_LABEL_URL, "mnist", TRAIN_LABEL_MD5)
    download(TEST_IMAGE_URL, "mnist", TEST_IMAGE_MD5)
    download(TEST_LABEL_URL, "mnist", TEST_LABEL_MD5)


def convert(path: str) -> None:
    """Write the training and test sets as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, train(), 1000, "mnist_train")
    common.convert(path, test(), 1000, "mnist_test")
