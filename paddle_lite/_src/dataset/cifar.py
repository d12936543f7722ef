"""CIFAR-10 and CIFAR-100: 50,000 training and 10,000 test colour images of 32x32 pixels.

The archives hold pickled batches: dicts with ``data`` (uint8 ``[N, 3072]``: the R, G and B
planes, each 32x32 row by row) and ``labels`` (CIFAR-10) or ``fine_labels`` (CIFAR-100). A
sample is ``(float32[3072] = data / 255 in [0, 1], int label)``.

Sources, in order: ``<data home>/cifar/cifar-10-python.tar.gz`` (or ``cifar-100-python.tar.gz``),
the extracted folder ``cifar-10-batches-py/`` (``cifar-100-python/``), then a download. Batches are
read with a restricted unpickler that only rebuilds numpy arrays, lists, dicts, strings, bytes
and numbers; a batch that references any other Python object is refused.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator

import numpy as np

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import (
    download,
    download_or_explain,
    module_home,
    url_file_name,
)
from paddle_lite._src.dataset.sources import CorruptFileError, corrupt, iter_members
from paddle_lite._src.files import safe_pickle

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
CIFAR100_MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
_FOLDERS = {CIFAR10_URL: "cifar-10-batches-py", CIFAR100_URL: "cifar-100-python"}

Sample = tuple[np.ndarray, int]


class UnsafePickleError(CorruptFileError):
    """A pickled batch references a Python object outside the allowed numpy helpers."""


class RestrictedUnpickler(safe_pickle.RestrictedUnpickler):
    """Unpickler that rebuilds numpy arrays and plain containers and refuses everything else,
    with ``UnsafePickleError`` for a refused global.

    Args:
      file: a binary file object.
      source: the file or ``archive:member`` name, used in errors.
    """

    def refusal(self, module: str, name: str) -> Exception:
        """The ``UnsafePickleError`` naming the refused object and the file."""
        return UnsafePickleError(
            f"Refusing to unpickle {self.source}: it references the Python object "
            f"{module}.{name}, but a data batch may only contain numpy arrays, lists, dicts, "
            "strings, bytes and numbers. Replace the file with the official data set.",
            path=self.source,
        )


def load_batch(content: bytes, source: str = "<pickle>") -> dict:
    """Unpickle one CIFAR batch with
    [`RestrictedUnpickler`][paddle_lite.dataset.cifar.RestrictedUnpickler] and normalise its keys.

    Args:
      content: the pickled bytes.
      source: the file name used in errors.

    Returns:
      The batch dict with ``str`` keys.

    Raises:
      UnsafePickleError: the pickle references a forbidden object.
      CorruptFileError: the bytes are not a pickled dict.
    """
    try:
        batch = RestrictedUnpickler(io.BytesIO(content), source).load()
    except CorruptFileError:
        raise
    except Exception as exc:
        raise corrupt(source, f"not a pickled batch ({type(exc).__name__}: {exc})") from exc
    if not isinstance(batch, dict):
        raise corrupt(source, f"a batch must be a dict, received {type(batch).__name__}")
    return {k.decode("latin-1") if isinstance(k, bytes) else k: v for k, v in batch.items()}


def _batch_samples(batch: dict, source: str) -> Iterator[Sample]:
    """Yield the ``(pixels / 255, label)`` samples of one batch dict."""
    data = batch.get("data")
    labels = batch.get("labels", batch.get("fine_labels"))
    if not isinstance(data, np.ndarray) or data.ndim != 2 or data.shape[1] != 3072:
        shape = getattr(data, "shape", None)
        raise corrupt(source, f"'data' must be a [N, 3072] array, received {shape}")
    if labels is None or len(labels) != len(data):
        got = None if labels is None else len(labels)
        raise corrupt(source, f"expected {len(data)} 'labels' or 'fine_labels', received {got}")
    for row, label in zip(data, labels, strict=True):
        yield (row / 255.0).astype(np.float32), int(label)


def _source(url: str, md5sum: str) -> str:
    """Return the archive or extracted folder to read, downloading the archive if needed."""
    home = module_home("cifar")
    archive = os.path.join(home, url_file_name(url))
    folder = os.path.join(home, _FOLDERS[url])
    if os.path.isfile(archive):
        return archive
    if os.path.isdir(folder):
        return folder
    alternative = f"The extracted folder {folder} is accepted too."
    return download_or_explain(url, "cifar", md5sum, alternative=alternative)


def reader_creator(url: str, md5sum: str, sub_name: str) -> Callable[[], Iterator[Sample]]:
    """Create a reader over the batches whose member name contains ``sub_name``.

    Args:
      url: the archive URL (selects CIFAR-10 or CIFAR-100).
      md5sum: the archive's md5.
      sub_name: ``"data_batch"``/``"test_batch"`` (CIFAR-10) or ``"train"``/``"test"``.

    Returns:
      A reader yielding ``(float32[3072] in [0, 1], int label)``.
    """
    path = _source(url, md5sum)

    def reader() -> Iterator[Sample]:
        def match(name: str) -> bool:
            return sub_name in name.rsplit("/", 1)[-1]

        for name, content in iter_members(path, match, md5sum):
            source = f"{path}:{name}"
            yield from _batch_samples(load_batch(content, source), source)

    return reader


def train10() -> Callable[[], Iterator[Sample]]:
    """Create the CIFAR-10 training reader (50,000 samples, labels 0..9)."""
    return reader_creator(CIFAR10_URL, CIFAR10_MD5, "data_batch")


def test10() -> Callable[[], Iterator[Sample]]:
    """Create the CIFAR-10 test reader (10,000 samples, labels 0..9)."""
    return reader_creator(CIFAR10_URL, CIFAR10_MD5, "test_batch")


def train100() -> Callable[[], Iterator[Sample]]:
    """Create the CIFAR-100 training reader (50,000 samples, fine labels 0..99)."""
    return reader_creator(CIFAR100_URL, CIFAR100_MD5, "train")


def test100() -> Callable[[], Iterator[Sample]]:
    """Create the CIFAR-100 test reader (10,000 samples, fine labels 0..99)."""
    return reader_creator(CIFAR100_URL, CIFAR100_MD5, "test")


def fetch() -> None:
    """Download both CIFAR archives into the data home."""
    download(CIFAR10_URL, "cifar", CIFAR10_MD5)
    download(CIFAR100_URL, "cifar", CIFAR100_MD5)


def convert(path: str) -> None:
    """Write the four CIFAR sets as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, train100(), 1000, "cifar_train100")
    common.convert(path, test100(), 1000, "cifar_test100")
    common.convert(path, train10(), 1000, "cifar_train10")
    common.convert(path, test10(), 1000, "cifar_test10")
