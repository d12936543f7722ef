"""UCI Boston housing prices (v2 ``paddle.v2.dataset.uci_housing``)."""

from paddle_lite._src.dataset.uci_housing import (
    convert,
    feature_names,
    fetch,
    load_data,
    model,
    test,
    train,
)

__all__ = [
    "convert",
    "feature_names",
    "fetch",
    "load_data",
    "model",
    "test",
    "train",
]
