"""Penn Treebank language-model data (v2 ``paddle.v2.dataset.imikolov``)."""

from paddle_lite._src.dataset.imikolov import (
    DataType,
    build_dict,
    convert,
    fetch,
    test,
    train,
)

__all__ = [
    "DataType",
    "build_dict",
    "convert",
    "fetch",
    "test",
    "train",
]
