"""Optimizers, regularization and model averaging (v2 ``paddle.optimizer``)."""

from paddle_lite._src.optim.optimizers import Optimizer
from paddle_lite._src.optim.regularizers import L1Regularization, L2Regularization, ModelAverage
from paddle_lite._src.optim.rules import (
    AdaDelta,
    AdaGrad,
    Adam,
    Adamax,
    DecayedAdaGrad,
    Momentum,
    RMSProp,
)

__all__ = [
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "Adamax",
    "DecayedAdaGrad",
    "L1Regularization",
    "L2Regularization",
    "ModelAverage",
    "Momentum",
    "Optimizer",
    "RMSProp",
]
