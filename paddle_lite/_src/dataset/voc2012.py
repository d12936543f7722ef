"""PASCAL VOC 2012 segmentation (v2 ``paddle.v2.dataset.voc2012``).

Sources, in order, under ``<data home>/voc2012/``: the official
``VOCtrainval_11-May-2012.tar``, the extracted folder ``VOCdevkit/``, then an md5-checked
download of the tar. ``train()`` reads the ``trainval`` list (2,913 images), ``test()`` the
``train`` list (1,464) and ``val()`` the ``val`` list (1,449), as v2 did.

A sample is ``(image, label)`` decoded as v2's OpenCV calls did (see ``paddle.image``): the
JPEG as a BGR ``uint8`` ``[H, W, 3]`` array and the class PNG read as **grayscale**
``uint8`` ``[H, W]`` — OpenCV turned the palette colours into grey levels, so the label
values are those grey levels, not class ids (v2's behaviour; map them back with the
palette if you need ids). Decoding needs the ``image`` extra (Pillow).
"""

from __future__ import annotations

import contextlib
import os
import tarfile
from collections.abc import Callable, Iterator

import numpy as np

from paddle_lite._src import image
from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import corrupt, read_file, reading

URL = "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar"
MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
ARCHIVE = "VOCtrainval_11-May-2012.tar"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"

Sample = tuple[np.ndarray, np.ndarray]


def data_source() -> str:
    """The tar, else the extracted folder, under ``<data home>/voc2012/``, else the tar
    downloaded there (md5-checked) or an error saying how to get it."""
    home = module_home("voc2012")
    if os.path.isfile(os.path.join(home, ARCHIVE)):
        return os.path.join(home, ARCHIVE)
    if os.path.isdir(os.path.join(home, "VOCdevkit")):
        return home
    alternative = f"The extracted folder {os.path.join(home, 'VOCdevkit')} is accepted too."
    return download_or_explain(URL, "voc2012", MD5, save_name=ARCHIVE, alternative=alternative)


def reader_creator(sub_name: str) -> Callable[[], Iterator[Sample]]:
    """A reader of the images listed in ``ImageSets/Segmentation/<sub_name>.txt``.

    Example:
        ```python
        reader = paddle.dataset.voc2012.reader_creator("val")
        ```
    """

    def reader() -> Iterator[Sample]:
        source = data_source()
        with open_members(source) as get:
            for line in get(SET_FILE.format(sub_name)).decode("utf-8").split():
                data, label = get(DATA_FILE.format(line)), get(LABEL_FILE.format(line))
                yield image.load_image_bytes(data), image.load_image_bytes(label, is_color=False)

    return reader


@contextlib.contextmanager
def open_members(source: str) -> Iterator[Callable[[str], bytes]]:
    """``get(name) -> bytes`` over the tar (indexed once) or the extracted folder."""
    if os.path.isdir(source):
        yield lambda name: read_file(os.path.join(source, name))
        return
    with reading(source, MD5), tarfile.open(source) as tf:
        index = {m.name.removeprefix("./"): m for m in tf.getmembers() if m.isfile()}

        def get(name: str) -> bytes:
            if name not in index:
                raise corrupt(source, f"it has no member {name!r}", MD5)
            return tf.extractfile(index[name]).read()

        yield get


def train() -> Callable[[], Iterator[Sample]]:
    """The ``trainval`` images (2,913): a reader of ``(BGR image, grey label map)``."""
    return reader_creator("trainval")


def test() -> Callable[[], Iterator[Sample]]:
    """The ``train`` images (1,464), v2's test split."""
    return reader_creator("train")


def val() -> Callable[[], Iterator[Sample]]:
    """The ``val`` images (1,449)."""
    return reader_creator("val")


def fetch() -> str:
    """Download the VOC 2012 trainval tar into the data home and return its path."""
    return download(URL, "voc2012", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write the train, test and val sets as shards under ``path`` (``common.convert``)."""
    common.convert(path, train(), 1000, "voc2012_train")
    common.convert(path, test(), 1000, "voc2012_test")
    common.convert(path, val(), 1000, "voc2012_val")
