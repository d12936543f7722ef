"""PASCAL VOC 2012 segmentation (v2 ``paddle.v2.dataset.voc2012``)."""

from paddle_lite._src.dataset.voc2012 import convert, fetch, reader_creator, test, train, val

__all__ = ["convert", "fetch", "reader_creator", "test", "train", "val"]
