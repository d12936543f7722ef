"""CoNLL-2005 semantic role labelling (v2 ``paddle.v2.dataset.conll05``)."""

from paddle_lite._src.dataset.conll05 import (
    UNK_IDX,
    convert,
    fetch,
    get_dict,
    get_embedding,
    load_dict,
    load_label_dict,
    test,
)

__all__ = [
    "UNK_IDX",
    "convert",
    "fetch",
    "get_dict",
    "get_embedding",
    "load_dict",
    "load_label_dict",
    "test",
]
