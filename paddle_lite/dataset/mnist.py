"""MNIST handwritten digits (v2 ``paddle.v2.dataset.mnist``)."""

from paddle_lite._src.dataset.mnist import (
    convert,
    fetch,
    reader_creator,
    test,
    train,
)

__all__ = [
    "convert",
    "fetch",
    "reader_creator",
    "test",
    "train",
]
