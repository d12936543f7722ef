"""Activations (v2 ``paddle.activation``)."""

from paddle_lite._src.activations import (
    Abs,
    BaseActivation,
    BRelu,
    Exp,
    Identity,
    Linear,
    Log,
    Reciprocal,
    Relu,
    SequenceSoftmax,
    Sigmoid,
    Softmax,
    SoftRelu,
    SoftSign,
    Sqrt,
    Square,
    STanh,
    Tanh,
)
from paddle_lite._src.compat.aliases import module_getattr

__all__ = [
    "Abs",
    "BRelu",
    "BaseActivation",
    "Exp",
    "Identity",
    "Linear",
    "Log",
    "Reciprocal",
    "Relu",
    "STanh",
    "SequenceSoftmax",
    "Sigmoid",
    "SoftRelu",
    "SoftSign",
    "Softmax",
    "Sqrt",
    "Square",
    "Tanh",
]

# v2's ``activation.Base`` is BaseActivation.
__getattr__ = module_getattr("activation", {"Base": BaseActivation})
