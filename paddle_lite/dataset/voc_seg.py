"""PASCAL VOC 2012 segmentation, v2's earlier ``paddle.v2.dataset.voc_seg`` (PIL decoding)."""

from paddle_lite._src.dataset.voc_seg import reader_creator, test, train, val

__all__ = ["reader_creator", "test", "train", "val"]
