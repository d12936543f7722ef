"""Evaluators of scores and values: auc, precision_recall, pnpair, sum, column_sum.

Each follows the contract of ``Evaluator``: additive
per-batch statistics in pure jax, metrics from their sums on the host.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_dense_label,
    check_layer,
    check_weight,
    declare,
    evaluator_name,
    label_rows,
    multi_hot,
    rows,
    same_level,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base

MULTI_LABEL_THRESHOLD = 0.5  # v2's classification_threshold, which precision_recall leaves
# Scores fall in AUC_BINS + 1 bins of width 1/AUC_BINS. v2's kBinNum_ was 2**24 - 1 (bins
# 256 times narrower); two histograms that fine would be 128 MB of statistics per batch,
# which each training step adds to the pass totals and returns for EndIteration.
AUC_BINS = 65535


# auc --------------------------------------------------------------------------------
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


# precision / recall -----------------------------------------------------------------
def _precision(tp: float, fp: float) -> float:
    return tp / (tp + fp) if tp > 0 or fp > 0 else 1.0


def _f1(precision: float, recall: float) -> float:
    if precision > 0 or recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


class PrecisionRecall(Evaluator):
    """Per-class TP/FP/FN of the arg-max prediction; v2's precision/recall keys."""

    type = "precision_recall"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        n_class = x.shape[-1]
        if self.attrs.get("labels") == "sparse":  # v2 calcStatsInfoMulti: each column alone
            pred = (x >= MULTI_LABEL_THRESHOLD).astype(jnp.float32)
            truth, _ = rows(multi_hot(values[1], n_class), values[0])
        else:
            y = label_rows(values[1], values[0])
            pred = jax.nn.one_hot(jnp.argmax(x, axis=-1), n_class, dtype=jnp.float32)
            truth = jax.nn.one_hot(y, n_class, dtype=jnp.float32)
        w = self.weights(values, values[0], mask)[:, None]
        hit = pred * truth
        return {
            "tp": jnp.sum(hit * w, axis=0),
            "fp": jnp.sum((pred - hit) * w, axis=0),
            "fn": jnp.sum((truth - hit) * w, axis=0),
        }

    def result(self, stats):
        tp, fp, fn = (np.asarray(stats[k], np.float64) for k in ("tp", "fp", "fn"))
        label = self.attrs["positive_label"]
        if label is not None:
            p, r = _precision(tp[label], fp[label]), _precision(tp[label], fn[label])
            return self._keys(p, r, _f1(p, r))
        macro_p = float(np.mean([_precision(a, b) for a, b in zip(tp, fp, strict=True)]))
        macro_r = float(np.mean([_precision(a, b) for a, b in zip(tp, fn, strict=True)]))
        macro_f1 = _f1(macro_p, macro_r)
        out = self._keys(macro_p, macro_r, macro_f1)
        out[f"{self.name}.macro-average-precision"] = macro_p
        out[f"{self.name}.macro-average-recall"] = macro_r
        out[f"{self.name}.macro-average-F1-score"] = macro_f1
        micro_p = float(_precision(tp.sum(), fp.sum()))
        out[f"{self.name}.micro-average-precision"] = micro_p
        if self.attrs.get("labels") == "sparse":  # v2 adds these for multi-label data only
            micro_r = float(_precision(tp.sum(), fn.sum()))
            out[f"{self.name}.micro-average-recall"] = micro_r
            out[f"{self.name}.micro-average-F1-score"] = _f1(micro_p, micro_r)
        return out

    def _keys(self, p: float, r: float, f1: float) -> dict[str, float]:
        return {
            f"{self.name}.precision": float(p),
            f"{self.name}.recal": float(r),
            f"{self.name}.F1-score": float(f1),
        }


def _precision_recall_label(inp, label, where: str):
    """Class ids, or a sparse multi-label vector of the input's width (v2 read no dense
    multi-label: its check stopped on one)."""
    sparse = isinstance(label, Layer) and label.spec.dtype in ("sparse_binary", "sparse_float")
    if not sparse:
        return check_layer(label, where, "label", mode="ids")
    if label.spec.size != inp.spec.size:
        raise LayerConfigError(
            f"{where}: label '{label.name}' is a sparse vector of size {label.spec.size}; "
            f"a multi-label precision/recall needs the input's size {inp.spec.size}."
        )
    return label


def make_precision_recall(
    input,
    label,
    positive_label,
    weight,
    name,
    paired=False,
) -> Evaluator:
    where = where_of(name, "precision_recall")
    inp = check_layer(input, where, "input")
    lbl = _precision_recall_label(inp, label, where)
    same_level(where, inp, {"label": lbl}, paired)
    if positive_label is not None and positive_label != -1:
        if isinstance(positive_label, bool) or not isinstance(positive_label, int):
            raise LayerTypeError(
                f"{where}: positive_label must be an int class id; received {positive_label!r}."
            )
        if not 0 <= positive_label < inp.spec.size:
            raise LayerConfigError(
                f"{where}: positive_label is {positive_label}; expected a class id in "
                f"[0, {inp.spec.size})."
            )
    else:
        positive_label = None
    attrs = {
        "positive_label": positive_label,
        "labels": "ids" if lbl.spec.dtype == "int32" else "sparse",
        **({"paired": True} if paired else {}),
    }
    return build(PrecisionRecall, name, [inp, lbl], attrs, check_weight(weight, where, inp))


@base.layer_function
def precision_recall(
    input: Layer,
    label: Layer,
    positive_label: int | None = None,
    weight: Layer | None = None,
    name: str | None = None,
) -> Evaluator:
    """Precision, recall and F1 of the arg-max prediction (v2 ``precision_recall``).

    $$
    P_c = TP_c / (TP_c + FP_c), \\quad R_c = TP_c / (TP_c + FN_c),
    \\quad F1 = 2PR / (P + R)
    $$

    (a ratio with a zero denominator is 1, F1 of P = R = 0 is 0). With
    ``positive_label=c`` the keys ``name.precision``, ``name.recal`` (v2's spelling)
    and ``name.F1-score`` hold class ``c``'s values. Without it they hold the macro
    averages (mean of the per-class P and R, and their F1), also given as
    ``name.macro-average-precision``, ``name.macro-average-recall``,
    ``name.macro-average-F1-score``, plus ``name.micro-average-precision``
    (= accuracy for single-label data). v2 left ``name.precision``, ``name.recal`` and
    ``name.F1-score`` unset (uninitialised memory) without ``positive_label``; here they
    repeat the macro averages.

    With a ``sparse_binary_vector(classes)`` label (multi-label data) each class is
    predicted on its own, where its score is at least 0.5 (v2's ``calcStatsInfoMulti``),
    and ``name.micro-average-recall`` and ``name.micro-average-F1-score`` are added.

    Args:
        input: the prediction, a dense ``[B, classes]`` layer (or sequence).
        label: an ``integer_value(classes)`` layer, or a ``sparse_binary_vector(classes)``.
        positive_label: a class id, or None / -1 for the macro averages.
        weight: optional size-1 layer of per-sample weights.
        name: the key prefix (default ``__precision_recall_evaluator_<n>__``).

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; 3 metrics (one class) or 7
        (macro/micro; 9 with a sparse label).

    Example:
        ```python
        paddle.evaluator.precision_recall(input=prob, label=lbl, positive_label=1)
        ```
    """
    name = evaluator_name(name, "precision_recall_evaluator")
    return declare(make_precision_recall(input, label, positive_label, weight, name))


# pnpair -----------------------------------------------------------------------------
class PnPair(Evaluator):
    """Positive/negative pair ratio of the last column within each query; key ``name``."""

    type = "pnpair"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        score = x[:, -1]
        y = label_rows(values[1], values[0]).astype(jnp.float32)
        query = label_rows(values[2], values[0])
        w = self.weights(values, values[0], mask)
        n = score.shape[0]
        pair = (query[:, None] == query[None, :]) & (y[:, None] != y[None, :])
        pair &= mask[:, None] & mask[None, :] & (jnp.arange(n)[:, None] < jnp.arange(n)[None, :])
        agree = jnp.sign(score[:, None] - score[None, :]) * jnp.sign(y[:, None] - y[None, :])
        pw = jnp.where(pair, (w[:, None] + w[None, :]) / 2.0, 0.0)
        return {
            "pos": jnp.sum(jnp.where(agree > 0, pw, 0.0)),
            "neg": jnp.sum(jnp.where(agree < 0, pw, 0.0)),
            "special": jnp.sum(jnp.where(agree == 0, pw, 0.0)),
        }

    def result(self, stats):
        neg = float(stats["neg"])
        return {self.name: float(stats["pos"]) / (neg if neg > 0 else 1.0)}


def _pnpair(input, label, query_id, weight, name) -> Evaluator:
    where = where_of(name, "pnpair")
    inp = check_layer(input, where, "input")
    lbl = check_layer(label, where, "label", mode="dense_or_ids")
    qid = check_layer(query_id, where, "query_id", mode="ids")
    check_dense_label(lbl, where, "expected ids or a size-1 dense relevance")
    same_level(where, inp, {"label": lbl, "query_id": qid})
    return build(PnPair, name, [inp, lbl, qid], {}, check_weight(weight, where, inp))


@base.layer_function
def pnpair(
    input: Layer,
    label: Layer,
    query_id: Layer | None = None,
    weight: Layer | None = None,
    name: str | None = None,
    info: Layer | None = None,
) -> Evaluator:
    """Positive-negative pair ratio of a ranking score (v2 ``pnpair``).

    Over every pair of rows with the same ``query_id`` and different labels, a pair
    is positive when the scores (last column of ``input``) order it like the labels
    and negative when they order it the other way (equal scores count neither). The
    pair weight is the mean of the two rows' weights.

    $$
    pnpair = \\sum_{pos} w / \\sum_{neg} w \\quad (\\text{denominator 1 when 0})
    $$

    Pairs are formed **within each batch** (so the statistics stay additive and
    O(batch²) on the device); v2 buffered the whole pass on the host and also paired
    rows of one query that fell in different batches. Keep each query's rows in one
    batch to get v2's value.

    Args:
        input: the score layer (last column used).
        label: relevance ids (or a size-1 dense relevance).
        query_id: an ``integer_value`` layer: the query each row belongs to.
        weight: optional size-1 layer of per-sample weights.
        name: the metric key (default ``__pnpair_evaluator_<n>__``).
        info: v2 0.10's name for ``query_id`` (give one of the two).

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: pos / neg}``.

    Example:
        ```python
        paddle.evaluator.pnpair(input=score, label=rel, query_id=qid)
        ```
    """
    name = evaluator_name(name, "pnpair_evaluator")
    where = where_of(name, "pnpair")
    if (query_id is None) == (info is None):
        raise LayerTypeError(
            f"{where}: give the query ids once, as query_id= (or v2 0.10's info=); received "
            f"query_id={query_id!r}, info={info!r}."
        )
    qid = query_id if query_id is not None else info
    return declare(_pnpair(input, label, qid, weight, name))


# sum / column_sum -------------------------------------------------------------------
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
