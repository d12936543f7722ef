"""PASCAL VOC 2012 segmentation under v2's earlier name ``paddle.v2.dataset.voc_seg``.

v2 first shipped this data set as ``voc_seg`` (decoded with PIL) and later renamed it
``voc2012`` (decoded with OpenCV); v2's ``vocseg_test`` still imports ``voc_seg``. Both read
the same ``VOCtrainval_11-May-2012.tar`` from ``<data home>/voc2012/`` (or its extracted
``VOCdevkit/`` folder there), and both map ``train()`` to the ``trainval`` list (2,913
images), ``test()`` to ``train`` (1,464) and ``val()`` to ``val`` (1,449).

A sample is ``(image, label)`` as PIL decoded them: the JPEG as an **RGB** ``uint8``
``[H, W, 3]`` array and the class PNG as its palette indices, a ``uint8`` ``[H, W]`` array
of class ids (255 marks object borders). (``voc2012`` gives BGR images and grey levels.)
Decoding needs the ``image`` extra (Pillow).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import numpy as np

from paddle_lite._src import image
from paddle_lite._src.dataset import voc2012

Sample = tuple[np.ndarray, np.ndarray]


def _decode(data: bytes) -> np.ndarray:
    """An image file's pixels as PIL gives them (``np.array(Image.open(...))``)."""
    with image.pil_image().open(io.BytesIO(data)) as im:
        return np.array(im)


def reader_creator(sub_name: str) -> Callable[[], Iterator[Sample]]:
    """A reader of the images listed in ``ImageSets/Segmentation/<sub_name>.txt``.

    Example:
        ```python
        reader = paddle.dataset.voc_seg.reader_creator("val")
        ```
    """

    def reader() -> Iterator[Sample]:
        # voc2012 finds the tar or folder and indexes the archive once
        with voc2012.open_members(voc2012.data_source()) as get:
            for line in get(voc2012.SET_FILE.format(sub_name)).decode("utf-8").split():
                data = get(voc2012.DATA_FILE.format(line))
                label = get(voc2012.LABEL_FILE.format(line))
                yield _decode(data), _decode(label)

    return reader


def train() -> Callable[[], Iterator[Sample]]:
    """The ``trainval`` images (2,913): a reader of ``(RGB image, class-id map)``."""
    return reader_creator("trainval")


def test() -> Callable[[], Iterator[Sample]]:
    """The ``train`` images (1,464), v2's test split."""
    return reader_creator("train")


def val() -> Callable[[], Iterator[Sample]]:
    """The ``val`` images (1,449)."""
    return reader_creator("val")
