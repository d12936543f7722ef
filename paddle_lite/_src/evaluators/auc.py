"""v2's ``auc`` evaluator (``last-column-auc``): the area under the ROC curve from score
histograms.

It follows the contract of ``Evaluator``: additive per-batch statistics in pure jax, the
metric from their sums on the host.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_dense_label,
    check_layer,
    check_weight,
    declare,
    evaluator_name,
    label_rows,
    rows,
    same_level,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base

# Scores fall in AUC_BINS + 1 bins of width 1/AUC_BINS. v2's kBinNum_ was 2**24 - 1 (bins
# 256 times narrower); two histograms that fine would be 128 MB of statistics per batch,
# which each training step adds to the pass totals and returns for EndIteration.
AUC_BINS = 65535


class Auc(Evaluator):
    """Area under the ROC curve of the last column, from score histograms; key ``name``."""

    type = "last-column-auc"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        y = label_rows(values[1], values[0])
        positive = (y.astype(jnp.int32) if jnp.issubdtype(y.dtype, jnp.floating) else y) != 0
        score = jnp.clip(x[:, -1], 0.0, 1.0)
        bins = jnp.floor(score * AUC_BINS).astype(jnp.int32)
        w = self.weights(values, values[0], mask)
        zero = jnp.zeros(AUC_BINS + 1, jnp.float32)
        return {
            "pos": zero.at[bins].add(jnp.where(positive, w, 0.0)),
            "neg": zero.at[bins].add(jnp.where(positive, 0.0, w)),
        }

    def result(self, stats):
        return {self.name: histogram_auc(stats["pos"], stats["neg"])}


def histogram_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """v2's ``calcAuc``: trapezoids of the ROC walked from the highest score bin down."""
    pos = np.asarray(pos, np.float64)[::-1]
    neg = np.asarray(neg, np.float64)[::-1]
    tp, fp = np.cumsum(pos), np.cumsum(neg)
    tp_prev = np.concatenate([[0.0], tp[:-1]])
    fp_prev = np.concatenate([[0.0], fp[:-1]])
    area = np.sum(np.abs(fp - fp_prev) * (tp + tp_prev) / 2.0)
    total_pos, total_neg = tp[-1], fp[-1]
    if total_pos > 0 and total_neg > 0:
        return float(area / total_pos / total_neg)
    return 0.0


def make_auc(input, label, name, weight, paired=False) -> Evaluator:
    where = where_of(name, "auc")
    inp = check_layer(input, where, "input")
    lbl = check_layer(label, where, "label", mode="dense_or_ids")
    check_dense_label(lbl, where, "expected 0/1 ids or a size-1 dense label")
    same_level(where, inp, {"label": lbl}, paired)
    attrs = {"paired": True} if paired else {}
    return build(Auc, name, [inp, lbl], attrs, check_weight(weight, where, inp))


@base.layer_function
def auc(
    input: Layer,
    label: Layer,
    name: str | None = None,
    weight: Layer | None = None,
) -> Evaluator:
    """Area under the ROC curve of a binary classifier (v2 ``last-column-auc``).

    The score is the last column of ``input`` (the positive-class probability of a
    2-column softmax, or a size-1 sigmoid output); label 0 is negative, any other
    label positive. Scores are clipped to [0, 1] and counted in a histogram of
    ``AUC_BINS + 1`` = 65536 bins; the AUC is
    ``sum_bins (FP_k - FP_{k-1}) (TP_k + TP_{k-1}) / 2 / (P N)`` walking the bins from
    the highest score down (v2's ``calcAuc``), so pairs of scores in one bin count as
    ties. v2 used ``2**24`` bins: scores closer than ``1/65535`` that v2 ordered count
    here as ties, so the two differ by at most the fraction of positive/negative pairs
    that share a bin here. 0 when a class is missing.

    Args:
        input: the prediction (dense), or a sequence of them.
        label: 0/1 ids, or a size-1 dense label.
        name: the metric key (default ``__auc_evaluator_<n>__``).
        weight: optional size-1 layer of per-sample weights.

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: auc}``.

    Example:
        ```python
        paddle.evaluator.auc(input=prob, label=lbl)
        ```
    """
    name = evaluator_name(name, "auc_evaluator")
    return declare(make_auc(input, label, name, weight))
