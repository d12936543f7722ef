"""paddle_lite: the PaddlePaddle v2 Python API on JAX/XLA.

Use it as ``import paddle_lite as paddle``.
"""

from paddle_lite import (
    activation,
    attr,
    data_type,
    initializer,
    layer,
    op,
    parameters,
    pooling,
    topology,
)

from paddle_lite._src.config import init

__version__ = "0.1.0"

__all__ = [
    "activation",
    "attr",
    "data_type",
    "initializer",
    "init",
    "layer",
    "op",
    "parameters",
    "pooling",
    "topology",
]
