"""paddle_lite: the PaddlePaddle v2 Python API on JAX/XLA.

Use it as ``import paddle_lite as paddle``.
"""

from paddle_lite import (
    activation,
    attr,
    data_feeder,
    data_type,
    dataset,
    evaluator,
    event,
    image,
    inference,
    initializer,
    layer,
    master,
    minibatch,
    networks,
    op,
    optimizer,
    parameters,
    plot,
    pooling,
    reader,
    topology,
    trainer,
)
from paddle_lite._src.config import init
from paddle_lite._src.inference import infer
from paddle_lite._src.trainer import test_fn as test
from paddle_lite._src.trainer import train_fn as train
from paddle_lite.minibatch import batch

__version__ = "0.1.0"

__all__ = [
    "activation",
    "attr",
    "batch",
    "data_feeder",
    "data_type",
    "dataset",
    "evaluator",
    "event",
    "image",
    "infer",
    "inference",
    "init",
    "initializer",
    "layer",
    "master",
    "minibatch",
    "networks",
    "op",
    "optimizer",
    "parameters",
    "plot",
    "pooling",
    "reader",
    "test",
    "topology",
    "train",
    "trainer",
]
