"""Oxford 102 Flowers (v2 ``paddle.v2.dataset.flowers``)."""

from paddle_lite._src.dataset.flowers import (
    convert,
    default_mapper,
    fetch,
    reader_creator,
    test,
    test_mapper,
    train,
    train_mapper,
    valid,
)

__all__ = [
    "convert",
    "default_mapper",
    "fetch",
    "reader_creator",
    "test",
    "test_mapper",
    "train",
    "train_mapper",
    "valid",
]
