"""paddle_lite: the PaddlePaddle v2 Python API on JAX/XLA.

Use it as ``import paddle_lite as paddle``.
"""

from paddle_lite import (
    activation,
    attr,
    config_base,
    data_feeder,
    data_type,
    dataset,
    errors,
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
from paddle_lite._src.compat.log import install as _install_v2_logging
from paddle_lite._src.compat.v2_imports import install as install_v2_imports
from paddle_lite._src.config import init
from paddle_lite._src.distributed.kubernetes import dist_train
from paddle_lite._src.inference import infer
from paddle_lite._src.training.functional import test_fn as test
from paddle_lite._src.training.functional import train_fn as train
from paddle_lite._src.version import __version__ as __version__
from paddle_lite.minibatch import batch

_install_v2_logging()  # the "paddle" logger prints at INFO, as after import paddle.v2

__all__ = [
    "activation",
    "attr",
    "batch",
    "config_base",
    "data_feeder",
    "data_type",
    "dataset",
    "dist_train",
    "errors",
    "evaluator",
    "event",
    "image",
    "infer",
    "inference",
    "init",
    "initializer",
    "install_v2_imports",
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
