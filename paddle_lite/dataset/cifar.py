"""CIFAR-10 and CIFAR-100 images (v2 ``paddle.v2.dataset.cifar``)."""

from paddle_lite._src.dataset.cifar import (
    RestrictedUnpickler,
    UnsafePickleError,
    convert,
    fetch,
    load_batch,
    test10,
    test100,
    train10,
    train100,
)

__all__ = [
    "RestrictedUnpickler",
    "UnsafePickleError",
    "convert",
    "fetch",
    "load_batch",
    "test10",
    "test100",
    "train10",
    "train100",
]
