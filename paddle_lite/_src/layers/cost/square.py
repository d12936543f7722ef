"""Cost layers of values: the squared error and the sum.

The shared machinery (``CostKind``, ``build_cost``) and the contract every cost follows
are in ``cost.base`` and ``cost.basic``.
"""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import (
    CostKind,
    build_cost,
    check_same_size,
)
from paddle_lite._src.values import Sparse


class SquareErrorKind(CostKind):
    name = "square_error"

    def check(self, specs, attrs):
        check_same_size(specs, "values")

    def step_cost(self, values, attrs):
        y, t = values
        if not isinstance(t, Sparse):
            return ((y - t) ** 2).sum(axis=-1)
        # v2's CpuMatrix::sumOfSquares over a sparse label, entry by entry:
        # sum_j y_j^2 + sum_k (v_k^2 - 2 v_k y[c_k]) (a binary label has v_k = 1).
        y_on = jnp.take_along_axis(y, jnp.clip(t.ids, 0, y.shape[-1] - 1), axis=-1)
        return (y**2).sum(axis=-1) + (t.values * (t.values - 2.0 * y_on)).sum(axis=-1)


class SumCostKind(CostKind):
    name = "sum_cost"
    args = ("input",)

    def check(self, specs, attrs):
        base.expect(specs["input"], "input")

    def step_cost(self, values, attrs):
        return values[0].sum(axis=-1)


for _kind in (SquareErrorKind(), SumCostKind()):
    register_kind(_kind)


@base.layer_function
def square_error_cost(
    input: Layer,
    label: Layer,
    weight: Layer | None = None,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Sum of squared errors per sample, no 1/2: ``w * sum_j (y_j - t_j)^2``.

    Alias: ``regression_cost`` (``mse_cost``, v2 0.10's name, warns). As in v2, ``coeff``
    scales only the gradient.

    Args:
        input: predictions ``y``.
        label: targets ``t`` of ``input.size``: dense, or a ``sparse_binary_vector`` /
            ``sparse_float_vector`` (zero where unlisted; a class listed twice counts
            twice, as in v2).
        weight: optional size-1 per-sample weight ``w``.
        name: the layer name (default ``__square_error_cost_<n>__``).
        coeff: the gradient's multiplier.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> pred = paddle.layer.fc(input=x, size=8, act=paddle.activation.Linear())
        >>> cost = paddle.layer.square_error_cost(input=pred, label=y)
    """
    name = base.layer_name(name, "square_error_cost")
    return build_cost(
        "square_error",
        name=name,
        args=[("input", input), ("label", label)],
        weight=weight,
        coeff=coeff,
        layer_attr=layer_attr,
    )


regression_cost = square_error_cost


@base.layer_function
def sum_cost(input: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None) -> Layer:
    """Use a layer's values as the cost: ``cost = sum_j x_j`` per sample.

    Args:
        input: a dense layer (or sequence) whose sum is to be minimised.
        name: the layer name (default ``__sum_cost_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> penalty = paddle.layer.fc(input=x, size=4, act=paddle.activation.Square())
        >>> cost = paddle.layer.sum_cost(input=penalty)
    """
    name = base.layer_name(name, "sum_cost")
    return build_cost("sum_cost", name=name, args=[("input", input)], layer_attr=layer_attr)
