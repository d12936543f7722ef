"""Optimizers, regularization and model averaging (v2 ``paddle.optimizer``)."""

from paddle_lite._src.optimizer_rules import (
    AdaDelta,
    AdaGrad,
    Adam,
    Adamax,
    DecayedAdaGrad,
    Momentum,
    RMSProp,
)
from paddle_lite._src.optimizers import Optimizer
from paddle_lite._src.regularizers import L1Regularization, L2Regularization, ModelAverage

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
