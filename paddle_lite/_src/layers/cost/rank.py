"""Cost layers: ranking (rank, less_than, LambdaRank) and binary judgements.

Same contract as ``cost``: every cost outputs float32
``[batch, 1]``, the per-sample cost (times ``weight`` where v2 has one), summed over
the valid steps of a sequence; ``coeff`` scales only the gradient.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError, LayerConfigWarning, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import (
    CostChecks,
    CostKind,
    as_target,
    build_cost,
    clip_value_only,
    safe_log,
    v2_note,
)
from paddle_lite._src.tracebacks import user_stacklevel


# binary judgements and pairwise ranking --------------------------------------------
def logistic_loss(o: Any, target: Any) -> Any:
    """v2's ``logisticRegressionLoss`` (BaseMatrix.cu): ``log(1 + e^x) - P x``, with
    ``x = o`` clipped to [-40, 40]; its backward, ``sigmoid(x) - P``, also beyond the clip.
    """
    x = clip_value_only(o, 40.0)
    return jax.nn.softplus(x) - target * x


class ShouldBeTrueKind(CostKind):
    name = "should_be_true"
    args = ("input",)

    def check(self, specs, attrs):
        base.expect(specs["input"], "input", size=1, why=" (one probability per sample)")

    def step_cost(self, values, attrs):
        return -safe_log(values[0][..., 0])


class ShouldBeFalseKind(ShouldBeTrueKind):
    name = "should_be_false"

    def step_cost(self, values, attrs):
        return -safe_log(1.0 - values[0][..., 0])


def _label_as_number(position: int, inputs: Any, attrs: Any) -> float | None:
    """v2 copies an id label (input 2) into the target P as a number."""
    return math.inf if position == 2 else None


class RankKind(CostKind):
    name = "rank_cost"
    v2 = V2Layer(type="rank-cost")
    args = ("left", "right", "label")
    scales_by_coeff = False  # v2's RankingCost is a Layer, not a CostLayer: no coeff

    host = CostChecks(id_bounds=_label_as_number)

    def check(self, specs, attrs):
        base.expect(specs["left"], "left", size=1, why=" (one score per sample)")
        base.expect(specs["right"], "right", size=1, why=" (one score per sample)")
        if specs["label"].dtype != "int32":
            base.expect(specs["label"], "label", size=1, why=" (the target probability P)")

    def step_cost(self, values, attrs):
        left, right, label = values
        return logistic_loss(left[..., 0] - right[..., 0], as_target(label, left))


class LessThanKind(CostKind):
    name = "less_than"
    args = ("left", "right")

    def check(self, specs, attrs):
        base.expect(specs["left"], "left", size=1, why=" (one score per sample)")
        base.expect(specs["right"], "right", size=1, why=" (one score per sample)")

    def step_cost(self, values, attrs):
        left, right = values
        return logistic_loss(left[..., 0] - right[..., 0], 0.0)


# LambdaRank ------------------------------------------------------------------------
def _order(v: Any, valid: Any) -> Any:
    """Indices sorting each row by ``v`` descending, padding last; ties keep step order."""
    return jnp.lexsort((-jnp.where(valid, v, 0.0), (~valid).astype(jnp.int32)), axis=-1)


def _dcg(rel: Any, top: Any) -> Any:
    """``sum_{i in top} (2^rel_i - 1) / ln(i + 2)`` per row."""
    disc = 1.0 / jnp.log(jnp.arange(rel.shape[1]) + 2.0)
    return jnp.where(top, (2.0**rel - 1.0) * disc, 0.0).sum(axis=1)


def _lambda_weights(rel: Any, lengths: Any, max_dcg: Any, max_sort_size: int) -> Any:
    """v2's pair weights ``|dcgDif_ij| / maxDCG`` over steps sorted by relevance ``[B, T, T]``."""
    pos = jnp.arange(rel.shape[1])
    i, j = pos[None, :, None], pos[None, None, :]
    n = lengths[:, None, None]
    sort_size = n if max_sort_size == -1 else jnp.minimum(max_sort_size, n)
    pair = (i < j) & (j < n) & (i < sort_size)
    log_i, log_j = jnp.log(i + 2.0), jnp.log(j + 2.0)
    den = jnp.where(pair, jnp.where(j < sort_size, log_i - log_j, log_i), 1.0)
    gain = 2.0 ** rel[:, :, None] - 2.0 ** rel[:, None, :]
    scale = jnp.where(max_dcg > 0, 1.0 / jnp.where(max_dcg > 0, max_dcg, 1.0), 0.0)
    return jnp.where(pair, jnp.abs(gain / den), 0.0) * scale[:, None, None]


def lambda_rank(out: Any, rel: Any, lengths: Any, ndcg_num: int, max_sort_size: int) -> Any:
    """Per sequence: value ``1 - NDCG@ndcg_num``, gradient v2's LambdaRank gradient ``[B]``.

    ``out`` (model scores) and ``rel`` (relevance) are ``[B, T]``. The gradient comes
    from the surrogate ``sum_ij w_ij log(1 + exp(o_j - o_i))`` over pairs ``i`` ranked
    above ``j`` by relevance, ``w_ij`` v2's ``|dcgDif| / maxDCG``.
    """
    valid = jnp.arange(out.shape[1])[None, :] < lengths[:, None]
    out = jnp.where(valid, out, 0.0)
    rel = jax.lax.stop_gradient(jnp.where(valid, rel, 0.0))
    top = jnp.arange(out.shape[1])[None, :] < jnp.minimum(ndcg_num, lengths)[:, None]
    by_rel = _order(rel, valid)
    rel_sorted = jnp.take_along_axis(rel, by_rel, axis=1)
    max_dcg = _dcg(rel_sorted, top)
    dcg = _dcg(jnp.take_along_axis(rel, _order(jax.lax.stop_gradient(out), valid), axis=1), top)
    ndcg = jnp.where(max_dcg > 0, dcg / jnp.where(max_dcg > 0, max_dcg, 1.0), 1.0)
    w = _lambda_weights(rel_sorted, lengths, max_dcg, max_sort_size)
    o = jnp.take_along_axis(out, by_rel, axis=1)
    surrogate = (w * jax.nn.softplus(o[:, None, :] - o[:, :, None])).sum(axis=(1, 2))
    return (1.0 - ndcg) + surrogate - jax.lax.stop_gradient(surrogate)


class LambdaKind(CostKind):
    name = "lambda_cost"
    args = ("input", "score")

    def check(self, specs, attrs):
        with v2_note(
            "its LambdaRank reads one score per document",
            "score each document with one value, e.g. paddle.layer.fc(input=..., size=1, "
            "act=paddle.activation.Linear())",
        ):
            base.expect(specs["input"], "input", size=1, why=" (one model score per step)")
            base.expect(specs["score"], "score", size=1, why=" (one relevance per step)")
        with v2_note(
            "its LambdaRank reads the documents of a query as a sequence",
            "declare the documents of one query as a sequence (e.g. "
            "paddle.data_type.dense_vector_sequence)",
        ):
            if specs["input"].seq_level != 1:
                raise LayerConfigError(
                    f"input has seq_level {specs['input'].seq_level}; expected 1 (a sequence: "
                    "the list of documents of one query)."
                )

    def apply(self, params, inputs, attrs, *, key, mode):
        out, rel = inputs
        cost = lambda_rank(
            out.data[..., 0],
            rel.data[..., 0],
            out.lengths,
            attrs["NDCG_num"],
            attrs["max_sort_size"],
        )
        return cost[:, None].astype(jnp.float32)


for _kind in (
    ShouldBeTrueKind(),
    ShouldBeFalseKind(),
    RankKind(),
    LessThanKind(),
    LambdaKind(),
):
    register_kind(_kind)


# public functions ------------------------------------------------------------------
@base.layer_function
def should_be_true(input: Layer, name: str | None = None, coeff: float = 1.0) -> Layer:
    """Cost ``-log(p)`` pushing a size-1 probability ``p`` towards 1 (v2 design doc).

    As in every cost, a zero ``p`` costs about 85.2 (``log`` of ``max(p, 1e-37)``).

    Args:
        input: a size-1 layer holding a probability (a Sigmoid output).
        name: the layer name (default ``__should_be_true_<n>__``).
        coeff: the gradient's multiplier (the reported cost is unscaled).

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> real = paddle.layer.fc(input=x, size=1, act=paddle.activation.Sigmoid())
        >>> cost = paddle.layer.should_be_true(input=real)
    """
    name = base.layer_name(name, "should_be_true")
    return build_cost("should_be_true", name=name, args=[("input", input)], coeff=coeff)


@base.layer_function
def should_be_false(input: Layer, name: str | None = None, coeff: float = 1.0) -> Layer:
    """Cost ``-log(1 - p)`` pushing a size-1 probability ``p`` towards 0 (v2 design doc).

    As in every cost, ``p = 1`` costs about 85.2 (``log`` of ``max(1 - p, 1e-37)``).

    Args:
        input: a size-1 layer holding a probability (a Sigmoid output).
        name: the layer name (default ``__should_be_false_<n>__``).
        coeff: the gradient's multiplier (the reported cost is unscaled).

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> fake = paddle.layer.fc(input=x, size=1, act=paddle.activation.Sigmoid())
        >>> cost = paddle.layer.should_be_false(input=fake)
    """
    name = base.layer_name(name, "should_be_false")
    return build_cost("should_be_false", name=name, args=[("input", input)], coeff=coeff)


@base.layer_function
def rank_cost(
    left: Layer,
    right: Layer,
    label: Layer,
    weight: Layer | None = None,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Pairwise ranking cost (RankNet); with ``o = left - right``:

        cost = -P o + log(1 + exp(o))

    the cross entropy between the target ``P`` and ``sigmoid(o)``, the modelled
    probability that ``left`` ranks above ``right``. As in v2, ``o`` is clipped to
    [-40, 40] in the cost, and the gradient is ``sigmoid(clipped o) - P`` (times the
    weight) everywhere.

    Args:
        left, right: size-1 scores of the two items.
        label: ``P``, the target probability that ``left`` ranks above ``right`` (a
            size-1 dense layer, or integer ids 0/1; v2 took a size-1 layer).
        weight: optional size-1 per-sample weight.
        name: the layer name (default ``__rank_cost_<n>__``).
        coeff: kept in the configuration but, as in v2 (whose ``RankingCost`` never
            read it), not applied: a value other than 1 warns.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> left = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
        >>> right = paddle.layer.fc(input=y, size=1, act=paddle.activation.Linear())
        >>> cost = paddle.layer.rank_cost(left=left, right=right, label=w)
    """
    name = base.layer_name(name, "rank_cost")
    if base.number(coeff, layer=name, arg="coeff") != 1.0:
        warnings.warn(
            f"rank_cost '{name}': coeff={coeff} does not scale the gradient; v2's RankingCost "
            "never applied coeff, and paddle_lite gives v2's results. Scale the learning rate "
            "instead.",
            LayerConfigWarning,
            stacklevel=user_stacklevel(),
        )
    return build_cost(
        "rank_cost",
        name=name,
        args=[("left", left), ("right", right), ("label", label)],
        weight=weight,
        coeff=coeff,
        layer_attr=layer_attr,
    )


@base.layer_function
def less_than(left: Layer, right: Layer, name: str | None = None, coeff: float = 1.0) -> Layer:
    """Cost that ``left`` should score below ``right`` (v2 design doc):

        cost = log(1 + exp(left - right))

    This is ``rank_cost(left, right, P=0)``, or equally ``rank_cost(right, left, P=1)``.

    Args:
        left, right: size-1 scores.
        name: the layer name (default ``__less_than_<n>__``).
        coeff: the gradient's multiplier (the reported cost is unscaled).

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> bad = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
        >>> good = paddle.layer.fc(input=y, size=1, act=paddle.activation.Linear())
        >>> cost = paddle.layer.less_than(left=bad, right=good)
    """
    name = base.layer_name(name, "less_than")
    return build_cost("less_than", name=name, args=[("left", left), ("right", right)], coeff=coeff)


@base.layer_function
def lambda_cost(
    input: Layer,
    score: Layer,
    name: str | None = None,
    NDCG_num: int = 5,
    max_sort_size: int = -1,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """LambdaRank over each sequence (one query's documents).

    The value is ``1 - NDCG@NDCG_num`` of the ranking by the model scores ``o`` with
    relevances ``r``: ``DCG = sum_{i < k} (2^r_(i) - 1) / ln(i + 2)``, divided by the
    DCG of the ideal order, ``k = min(NDCG_num, length)``. It is piecewise constant;
    its gradient is v2's LambdaRank gradient, the gradient of
    ``sum_ij w_ij log(1 + exp(o_j - o_i))`` over pairs with ``i`` ranked above ``j`` by
    relevance (``i < sort_size``), ``w_ij = |(2^r_i - 2^r_j) / (ln(i+2) - ln(j+2))| / maxDCG``
    (denominator ``ln(i+2)`` when ``j >= sort_size``). v2 instead emitted NDCG itself
    on every step and refused lists shorter than ``NDCG_num``; a list whose ideal DCG
    is 0 costs 0 here. Ties are broken by step order.

    Args:
        input: a sequence of size-1 model scores.
        score: a sequence of size-1 relevances (same lengths).
        name: the layer name (default ``__lambda_cost_<n>__``).
        NDCG_num: the NDCG truncation ``k``.
        max_sort_size: sort only the top ``max_sort_size`` by relevance for the pairs
            (-1: the whole list); must be ``-1`` or ``>= NDCG_num``.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``: one cost per sequence.

    Example:
        >>> rel = paddle.layer.data(name="rel",
        ...                         type=paddle.data_type.dense_vector_sequence(1))
        >>> doc_scores = paddle.layer.fc(input=emb, size=1, act=paddle.activation.Linear())
        >>> cost = paddle.layer.lambda_cost(input=doc_scores, score=rel, NDCG_num=3)
    """
    name = base.layer_name(name, "lambda_cost")
    ndcg_num = base.positive_int(NDCG_num, layer=name, arg="NDCG_num")
    if isinstance(max_sort_size, bool) or not isinstance(max_sort_size, int):
        raise LayerTypeError(
            f"layer '{name}': max_sort_size must be an int; received {max_sort_size!r}."
        )
    if max_sort_size != -1 and max_sort_size < ndcg_num:
        raise LayerConfigError(
            f"layer '{name}': max_sort_size must be -1 or >= NDCG_num ({ndcg_num}); "
            f"received {max_sort_size}."
        )
    return build_cost(
        "lambda_cost",
        name=name,
        args=[("input", input), ("score", score)],
        layer_attr=layer_attr,
        NDCG_num=ndcg_num,
        max_sort_size=max_sort_size,
    )
