"""Cost layers: robust regression (Huber, smooth L1) and margin classification (modified Huber).

Same contract as ``cost``: every cost outputs float32
``[batch, 1]``, the per-sample cost, summed over the valid steps of a sequence;
``coeff`` scales only the gradient.
"""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import CostKind, as_target, build_cost, check_same_size


class HuberRegressionKind(CostKind):
    name = "huber_regression"

    def check(self, specs, attrs):
        check_same_size(specs)

    def step_cost(self, values, attrs):
        y, t = values
        delta = attrs["delta"]
        a = jnp.abs(y - t)
        return jnp.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)).sum(axis=-1)


class SmoothL1Kind(CostKind):
    name = "smooth_l1"

    def check(self, specs, attrs):
        check_same_size(specs)

    def step_cost(self, values, attrs):
        y, t = values
        a = jnp.abs(y - t)
        return jnp.where(a < 1.0, 0.5 * a * a, a - 0.5).sum(axis=-1)


class HuberClassificationKind(CostKind):
    name = "huber_classification"

    def check(self, specs, attrs):
        base.expect(specs["input"], "input", size=1, why=" (one score per sample)")
        base.expect(specs["label"], "label", "ids")

    def step_cost(self, values, attrs):
        f, ids = values
        m = (2.0 * as_target(ids, f) - 1.0) * f[..., 0]
        return jnp.where(m < -1.0, -4.0 * m, jnp.where(m < 1.0, (1.0 - m) ** 2, 0.0))


for _kind in (HuberRegressionKind(), SmoothL1Kind(), HuberClassificationKind()):
    register_kind(_kind)


# public functions ------------------------------------------------------------------
@base.layer_function
def huber_regression_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    delta: float = 1.0,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Huber regression cost, summed over features; with ``r = |y - t|``:

        cost = 0.5 r^2              if r <= delta
               delta (r - delta/2)  otherwise

    Quadratic near the target, linear beyond ``delta``: less sensitive to outliers
    than the squared error.

    Args:
        input: predictions ``y``.
        label: dense targets ``t`` of ``input.size``.
        name: the layer name (default ``__huber_regression_cost_<n>__``).
        delta: where the cost turns from quadratic to linear (> 0).
        coeff: the gradient's multiplier (the reported cost is unscaled).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> pred = paddle.layer.fc(input=x, size=8, act=paddle.activation.Linear())
        >>> cost = paddle.layer.huber_regression_cost(input=pred, label=y, delta=0.5)
    """
    name = base.layer_name(name, "huber_regression_cost")
    delta = base.number(delta, layer=name, arg="delta")
    if delta <= 0:
        raise LayerConfigError(f"layer '{name}': delta must be positive; received {delta}.")
    return build_cost(
        "huber_regression",
        name=name,
        args=[("input", input), ("label", label)],
        coeff=coeff,
        layer_attr=layer_attr,
        delta=delta,
    )


@base.layer_function
def smooth_l1_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Smooth L1 cost (Fast R-CNN's), summed over features; with ``d = y - t``:

        cost = 0.5 d^2      if |d| < 1
               |d| - 0.5    otherwise

    This is ``huber_regression_cost`` with ``delta = 1``.

    Args:
        input: predictions ``y``.
        label: dense targets ``t`` of ``input.size``.
        name: the layer name (default ``__smooth_l1_cost_<n>__``).
        coeff: the gradient's multiplier (the reported cost is unscaled).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> box = paddle.layer.fc(input=x, size=8, act=paddle.activation.Linear())
        >>> cost = paddle.layer.smooth_l1_cost(input=box, label=y)
    """
    name = base.layer_name(name, "smooth_l1_cost")
    return build_cost(
        "smooth_l1",
        name=name,
        args=[("input", input), ("label", label)],
        coeff=coeff,
        layer_attr=layer_attr,
    )


@base.layer_function
def huber_classification_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Modified Huber loss of a binary classifier score ``f``, with ``y = 2*label - 1``:

        cost = -4 y f            if y f < -1
               (1 - y f)^2       if -1 <= y f < 1
               0                 otherwise

    Args:
        input: a size-1 score layer ``f`` (a linear activation).
        label: an ``integer_value(2)`` layer (0 or 1).
        name: the layer name (default ``__huber_classification_cost_<n>__``).
        coeff: the gradient's multiplier (the reported cost is unscaled).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> flag = paddle.layer.data(name="flag", type=paddle.data_type.integer_value(2))
        >>> score = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
        >>> cost = paddle.layer.huber_classification_cost(input=score, label=flag)
    """
    name = base.layer_name(name, "huber_classification_cost")
    return build_cost(
        "huber_classification",
        name=name,
        args=[("input", input), ("label", label)],
        coeff=coeff,
        layer_attr=layer_attr,
    )
