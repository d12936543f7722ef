"""Oxford 102 Flowers (v2 ``paddle.v2.dataset.flowers``): 8,189 images of 102 classes.

Files under ``<data home>/flowers/``: ``102flowers.tgz`` (or its extracted ``jpg/``
folder), ``imagelabels.mat`` and ``setid.mat``; each missing file is downloaded with its
md5 checked. The ``.mat`` files are read without SciPy (``matfile``).

As in v2, ``train()`` reads the images listed under ``tstid`` (6,149) and ``test()`` those
under ``trnid`` (1,020) — the official split swapped on purpose, the test list being the
larger — and ``valid()`` those under ``valid`` (1,020). Images come in archive order and
labels are ``imagelabels - 1`` (0-based, v2's later code; v2 0.10 kept 1..102). The default
mapper decodes the JPEG and applies ``paddle.image.simple_transform(256 -> 224, mean =
[103.94, 116.78, 123.68])`` (BGR), flattening to 150,528 float32 values; with
``use_xmap=True`` (the default) it runs in ``cpu_count()`` threads and, as v2's
``xmap_readers``, the order of the samples is not kept. v2 cached the images as pickled
batches beside the archive first; here they are read from the archive directly.
Decoding needs the ``image`` extra (Pillow).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

from paddle_lite._src import image
from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, existing_or_download, module_home
from paddle_lite._src.dataset.matfile import read_mat
from paddle_lite._src.dataset.sources import iter_members, read_file
from paddle_lite._src.readers.decorator import map_readers
from paddle_lite._src.readers.parallel import xmap_readers

BASE = "http://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
DATA_URL, DATA_MD5 = BASE + "102flowers.tgz", "33bfc11892f1e405ca193ae9a9f2a118"
LABEL_URL, LABEL_MD5 = BASE + "imagelabels.mat", "e0620be6f572b9609742df49c70aed4d"
SETID_URL, SETID_MD5 = BASE + "setid.mat", "a5357ecc9cb78c4bef273ce3793fc85c"
TRAIN_FLAG, TEST_FLAG, VALID_FLAG = "tstid", "trnid", "valid"
MEAN = [103.94, 116.78, 123.68]


def default_mapper(is_train: bool, sample: tuple[bytes, int]) -> tuple[Any, int]:
    """Decode, resize to 256, crop 224 (random in training, with a random flip), CHW
    float32 minus the BGR mean, flattened: v2's mapper."""
    img, label = sample
    img = image.simple_transform(image.load_image_bytes(img), 256, 224, is_train, mean=MEAN)
    return img.flatten().astype("float32"), label


train_mapper = functools.partial(default_mapper, True)
test_mapper = functools.partial(default_mapper, False)


def _file(url: str, md5: str) -> str:
    return existing_or_download(url, "flowers", md5)


def _images() -> str:
    home = module_home("flowers")
    if not os.path.isfile(os.path.join(home, "102flowers.tgz")) and os.path.isdir(
        os.path.join(home, "jpg")
    ):
        return home
    alternative = f"The extracted folder {os.path.join(home, 'jpg')} is accepted too."
    return existing_or_download(DATA_URL, "flowers", DATA_MD5, alternative=alternative)


def reader_creator(
    dataset_name: str,
    mapper: Callable[[Any], Any],
    buffered_size: int = 1024,
    use_xmap: bool = True,
) -> Callable[[], Iterator[Any]]:
    """A reader of the images whose ids ``setid.mat`` lists under ``dataset_name``.

    Example:
        ```python
        reader = paddle.dataset.flowers.reader_creator("valid", flowers.test_mapper)
        ```
    """

    def raw() -> Iterator[tuple[bytes, int]]:
        labels = read_mat(read_file(_file(LABEL_URL, LABEL_MD5)))["labels"].ravel()
        ids = read_mat(read_file(_file(SETID_URL, SETID_MD5)))[dataset_name].ravel()
        img2label = {f"jpg/image_{int(i):05d}.jpg": int(labels[int(i) - 1]) - 1 for i in ids}
        source = _images()
        md5 = DATA_MD5 if source.endswith(".tgz") else ""
        for name, content in iter_members(source, lambda n: n in img2label, md5):
            yield content, img2label[name]

    if use_xmap:
        return xmap_readers(mapper, raw, os.cpu_count() or 1, buffered_size)
    return map_readers(mapper, raw)


def train(
    mapper: Callable[[Any], Any] = train_mapper, buffered_size: int = 1024, use_xmap: bool = True
) -> Callable[[], Iterator[Any]]:
    """The ``tstid`` images (6,149): a reader of ``(float32[150528], label 0..101)``."""
    return reader_creator(TRAIN_FLAG, mapper, buffered_size, use_xmap)


def test(
    mapper: Callable[[Any], Any] = test_mapper, buffered_size: int = 1024, use_xmap: bool = True
) -> Callable[[], Iterator[Any]]:
    """The ``trnid`` images (1,020), center-cropped."""
    return reader_creator(TEST_FLAG, mapper, buffered_size, use_xmap)


def valid(
    mapper: Callable[[Any], Any] = test_mapper, buffered_size: int = 1024, use_xmap: bool = True
) -> Callable[[], Iterator[Any]]:
    """The ``valid`` images (1,020), center-cropped."""
    return reader_creator(VALID_FLAG, mapper, buffered_size, use_xmap)


def fetch() -> None:
    """Download the three flowers files into the data home."""
    download(DATA_URL, "flowers", DATA_MD5)
    download(LABEL_URL, "flowers", LABEL_MD5)
    download(SETID_URL, "flowers", SETID_MD5)


def convert(path: str) -> None:
    """Write the train, test and valid sets as shards under ``path`` (``common.convert``)."""
    common.convert(path, train(), 1000, "flowers_train")
    common.convert(path, test(), 1000, "flowers_test")
    common.convert(path, valid(), 1000, "flowers_valid")
