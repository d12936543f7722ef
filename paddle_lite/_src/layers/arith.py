"""Operators on layers: arithmetic (v2 ``layer_math``) and the unary ops (v2 ``paddle.op``).

Each operator builds ordinary layers from the public layer functions: ``a + b`` a mixed
layer of identity projections, ``a * 2.0`` a ``slope_intercept``, ``exp(a)`` a mixed
identity projection with an ``Exp`` activation; ``Layer.__add__`` and friends call here.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src import activations as acts
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer, register_operators
from paddle_lite._src.layers import _base
from paddle_lite._src.layers.math import repeat, scaling, slope_intercept
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import identity_projection


# arithmetic on layers (v2 layer_math) ---------------------------------------------
def _is_number(value: Any) -> bool:
    if isinstance(value, (bool, str, Layer)):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _operand(value: Any, op: str) -> Layer:
    if not isinstance(value, Layer):
        raise LayerTypeError(
            f"layer arithmetic '{op}': the operand must be a layer or a number; "
            f"received {value!r} of type {type(value).__name__}."
        )
    return _base.as_layer(value, layer=value.name, arg=f"the operand of '{op}'")


def add(a: Layer, other: Any) -> Layer:
    """``a + other``: slope_intercept for a number; a mixed layer of two identity
    projections for a layer of equal size (a size-1 layer is repeated first)."""
    if _is_number(other):
        return slope_intercept(input=a, intercept=float(other))
    a, other = _operand(a, "+"), _operand(other, "+")
    if a.size != other.size:
        if 1 not in (a.size, other.size):
            raise LayerConfigError(
                f"layer arithmetic '+': '{a.name}' (size {a.size}) and '{other.name}' (size "
                f"{other.size}) need equal sizes, or one of size 1."
            )
        if a.size == 1:
            a, other = other, a
        other = repeat(input=other, num_repeats=a.size)
    return mixed(input=[identity_projection(input=a), identity_projection(input=other)])


def neg(a: Layer) -> Layer:
    """``-a`` = slope_intercept(slope=-1)."""
    return slope_intercept(input=a, slope=-1.0)


def sub(a: Layer, other: Any) -> Layer:
    """``a - other``: slope_intercept(intercept=-other) for a number, else ``a + (-other)``."""
    if _is_number(other):
        return slope_intercept(input=a, intercept=-float(other))
    return add(a, neg(_operand(other, "-")))


def mul(a: Layer, other: Any) -> Layer:
    """``a * other``: slope_intercept(slope) for a number, scaling for a size-1 layer."""
    if _is_number(other):
        return slope_intercept(input=a, slope=float(other))
    a, other = _operand(a, "*"), _operand(other, "*")
    if a.size == 1:
        return scaling(input=other, weight=a)
    if other.size == 1:
        return scaling(input=a, weight=other)
    raise LayerConfigError(
        f"layer arithmetic '*': one operand must be a number or a layer of size 1; received "
        f"'{a.name}' (size {a.size}) and '{other.name}' (size {other.size})."
    )


# unary ops (v2 ``paddle.op``) -----------------------------------------------------
def _unary(op_name: str, act: type[acts.BaseActivation], maths: str):  # noqa: ANN202
    def op(input, name=None):  # noqa: A002
        name = _base.layer_name(name, op_name)
        return mixed(input=[identity_projection(input=input)], name=name, act=act())

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = (
        f"``y = {maths}`` elementwise: a mixed layer of one identity projection with the "
        f"{act.__name__} activation.\n\n    Returns:\n        A layer of the input's size "
        f"(auto name ``__{op_name}_<n>__``).\n\n    Example:\n        ```python\n"
        f"        y = paddle.op.{op_name}(input=x)\n        ```\n    "
    )
    return _base.layer_function(op)


exp = _unary("exp", acts.Exp, "exp(x)")
log = _unary("log", acts.Log, "log(x)")
abs = _unary("abs", acts.Abs, "|x|")  # noqa: A001
sigmoid = _unary("sigmoid", acts.Sigmoid, "1 / (1 + exp(-x))")
tanh = _unary("tanh", acts.Tanh, "tanh(x)")
square = _unary("square", acts.Square, "x²")
relu = _unary("relu", acts.Relu, "max(x, 0)")
sqrt = _unary("sqrt", acts.Sqrt, "sqrt(x)")
reciprocal = _unary("reciprocal", acts.Reciprocal, "1 / x")
softmax = _unary("softmax", acts.Softmax, "exp(x_i) / sum_j exp(x_j)")


register_operators(add=add, sub=sub, neg=neg, mul=mul)
