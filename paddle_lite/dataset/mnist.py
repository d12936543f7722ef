"""MNIST handwritten digits (v2 ``paddle.v2.dataset.mnist``)."""

from paddle_lite._src.compat.aliases import module_getattr
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

# the names of earlier v2 versions, with a DeprecationWarning (see _src/compat/early_names.py)
__getattr__ = module_getattr("dataset.mnist")
