"""WMT16 Multi30K English-German translation (v2 ``paddle.dataset.wmt16``)."""

from paddle_lite._src.dataset.wmt16 import (
    convert,
    fetch,
    get_dict,
    test,
    tokenize,
    train,
    validation,
)

__all__ = [
    "convert",
    "fetch",
    "get_dict",
    "test",
    "tokenize",
    "train",
    "validation",
]
