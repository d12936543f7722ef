"""Operators on layers (v2 ``paddle.op``): unary maths and arithmetic.

``paddle.op.exp(x)`` is a mixed identity projection with an ``Exp`` activation;
``layer + layer``, ``layer * 2.0`` ... also work directly on layers.
"""

from paddle_lite._src.layers.arith import (
    abs,
    add,
    exp,
    log,
    mul,
    neg,
    reciprocal,
    relu,
    sigmoid,
    softmax,
    sqrt,
    square,
    sub,
    tanh,
)

__all__ = [
    "abs",
    "add",
    "exp",
    "log",
    "mul",
    "neg",
    "reciprocal",
    "relu",
    "sigmoid",
    "softmax",
    "sqrt",
    "square",
    "sub",
    "tanh",
]
