"""WMT14 French-English translation, shrunk (v2 ``paddle.v2.dataset.wmt14``)."""

from paddle_lite._src.dataset.wmt14 import (
    UNK_IDX,
    convert,
    fetch,
    gen,
    get_dict,
    model,
    test,
    train,
)

__all__ = [
    "UNK_IDX",
    "convert",
    "fetch",
    "gen",
    "get_dict",
    "model",
    "test",
    "train",
]
