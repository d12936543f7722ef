"""Activations (v2 ``paddle.activation``). ``Base`` is v2's name for the base class (v2
cut the suffix off v1's ``BaseActivation``), which is also kept under that name."""

from paddle_lite._src.absent import module_getattr
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
from paddle_lite._src.activations import BaseActivation as Base

__all__ = [
    "Abs",
    "BRelu",
    "Base",
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
