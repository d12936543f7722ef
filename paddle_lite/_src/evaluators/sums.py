"""v2's ``sum`` and ``column_sum`` (``last-column-sum``) evaluators: the (weighted) mean per
sample of the values, or of their last column.
"""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_layer,
    check_weight,
    declare,
    evaluator_name,
    rows,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base


class Sum(Evaluator):
    """v2 ``sum``: the (weighted) sum of the values per sample (or step); key ``name``."""

    type = "sum"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        w = self.weights(values, values[0], mask)
        x = x.astype(jnp.float32).reshape(x.shape[0], -1)
        if self.attrs["last_column"]:
            x = x[:, -1:]
        total = jnp.sum(jnp.where(mask[:, None], x * w[:, None], 0.0))
        return {"sum": total, "samples": jnp.sum(w)}

    def result(self, stats):
        n = float(stats["samples"])
        return {self.name: float(stats["sum"]) / n if n else 0.0}


class ColumnSum(Sum):
    """v2 ``last-column-sum``: the (weighted) sum of the last column per sample."""

    type = "last-column-sum"


def _sum(cls: type[Sum], input, name, weight, last_column: bool) -> Evaluator:
    where = where_of(name, "column_sum" if last_column else "sum")
    mode = "dense" if last_column else "dense_or_ids"
    inp = check_layer(input, where, "input", mode=mode)
    attrs = {"last_column": last_column}
    return build(cls, name, [inp], attrs, check_weight(weight, where, inp))


@base.layer_function
def sum(input: Layer, name: str | None = None, weight: Layer | None = None) -> Evaluator:
    """Sum of the input values per sample, v2 ``sum`` (e.g. a token-error rate).

    $$
    value = \\sum_i w_i \\sum_j x_{ij} / \\sum_i w_i
    $$

    Like v2 it reports the (weighted) sum divided by the number of samples (the total
    weight when weighted; the number of valid steps for sequences), so summing a
    per-token 0/1 error layer gives the error rate. Ids inputs sum the ids.

    Args:
        input: a dense or ids layer (or sequence).
        name: the metric key (default ``__sum_evaluator_<n>__``).
        weight: optional size-1 layer of per-sample weights.

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: sum /
        samples}``.

    Example:
        ```python
        paddle.evaluator.sum(input=crf_dec)
        ```
    """
    name = evaluator_name(name, "sum_evaluator")
    return declare(_sum(Sum, input, name, weight, last_column=False))


@base.layer_function
def column_sum(input: Layer, name: str | None = None, weight: Layer | None = None) -> Evaluator:
    """The last column of the input summed over samples (v2 ``last-column-sum``).

    $$
    value = \\sum_i w_i x_{i, size-1} / \\sum_i w_i
    $$

    As in v2 the sum is divided by the number of samples (the total weight when
    weighted; valid steps for sequences).

    Args:
        input: a dense layer (or sequence).
        name: the metric key (default ``__column_sum_evaluator_<n>__``).
        weight: optional size-1 layer of per-sample weights.

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: last-column sum
        / samples}``.

    Example:
        ```python
        paddle.evaluator.column_sum(input=prob)
        ```
    """
    name = evaluator_name(name, "column_sum_evaluator")
    return declare(_sum(ColumnSum, input, name, weight, last_column=True))
