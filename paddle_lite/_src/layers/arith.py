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
from paddle_lite._src.layers import base
from paddle_lite._src.layers.math.basic import scaling, slope_intercept
from paddle_lite._src.layers.math.tile import repeat
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
    return base.as_layer(value, layer=value.name, arg=f"the operand of '{op}'")


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
def _unary(
    op_name: str,
    act: type[acts.BaseActivation],
    input: Layer,
    name: str | None,
) -> Layer:
    name = base.layer_name(name, op_name)
    return mixed(input=[identity_projection(input=input)], name=name, act=act())


@base.layer_function
def exp(input: Layer, name: str | None = None) -> Layer:
    """``y = exp(x)`` elementwise: a mixed layer of one identity projection with the
    ``Exp`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__exp_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.exp(input=x)
        ```
    """
    return _unary("exp", acts.Exp, input, name)


@base.layer_function
def log(input: Layer, name: str | None = None) -> Layer:
    """``y = log(x)`` elementwise: a mixed layer of one identity projection with the
    ``Log`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__log_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.log(input=x)
        ```
    """
    return _unary("log", acts.Log, input, name)


@base.layer_function
def abs(input: Layer, name: str | None = None) -> Layer:
    """``y = |x|`` elementwise: a mixed layer of one identity projection with the
    ``Abs`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__abs_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.abs(input=x)
        ```
    """
    return _unary("abs", acts.Abs, input, name)


@base.layer_function
def sigmoid(input: Layer, name: str | None = None) -> Layer:
    """``y = 1 / (1 + exp(-x))`` elementwise: a mixed layer of one identity projection with the
    ``Sigmoid`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__sigmoid_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.sigmoid(input=x)
        ```
    """
    return _unary("sigmoid", acts.Sigmoid, input, name)


@base.layer_function
def tanh(input: Layer, name: str | None = None) -> Layer:
    """``y = tanh(x)`` elementwise: a mixed layer of one identity projection with the
    ``Tanh`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__tanh_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.tanh(input=x)
        ```
    """
    return _unary("tanh", acts.Tanh, input, name)


@base.layer_function
def square(input: Layer, name: str | None = None) -> Layer:
    """``y = x²`` elementwise: a mixed layer of one identity projection with the
    ``Square`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__square_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.square(input=x)
        ```
    """
    return _unary("square", acts.Square, input, name)


@base.layer_function
def relu(input: Layer, name: str | None = None) -> Layer:
    """``y = max(x, 0)`` elementwise: a mixed layer of one identity projection with the
    ``Relu`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__relu_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.relu(input=x)
        ```
    """
    return _unary("relu", acts.Relu, input, name)


@base.layer_function
def sqrt(input: Layer, name: str | None = None) -> Layer:
    """``y = sqrt(x)`` elementwise: a mixed layer of one identity projection with the
    ``Sqrt`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__sqrt_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.sqrt(input=x)
        ```
    """
    return _unary("sqrt", acts.Sqrt, input, name)


@base.layer_function
def reciprocal(input: Layer, name: str | None = None) -> Layer:
    """``y = 1 / x`` elementwise: a mixed layer of one identity projection with the
    ``Reciprocal`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__reciprocal_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.reciprocal(input=x)
        ```
    """
    return _unary("reciprocal", acts.Reciprocal, input, name)


@base.layer_function
def softmax(input: Layer, name: str | None = None) -> Layer:
    """``y_i = exp(x_i) / sum_j exp(x_j)`` over each row: a mixed layer of one identity
    projection with the ``Softmax`` activation.

    Args:
        input: a dense layer (or sequence).
        name: the layer's name (default ``__softmax_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        ```python
        y = paddle.op.softmax(input=x)
        ```
    """
    return _unary("softmax", acts.Softmax, input, name)


register_operators(add=add, sub=sub, neg=neg, mul=mul)
