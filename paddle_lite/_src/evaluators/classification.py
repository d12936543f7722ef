"""Classification error and the evaluators a cost layer attaches to itself.

``classification_cost`` attaches ``classification_error``, keyed
``classification_error_evaluator`` as v2 named it; ``auc`` and ``precision_recall`` can be
attached the same way. The evaluator contract is in ``evaluators.base``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.auc import make_auc
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
    positive_int,
    rows,
    same_level,
    where_of,
)
from paddle_lite._src.evaluators.precision_recall import make_precision_recall
from paddle_lite._src.graph import Layer, current_scope
from paddle_lite._src.layers import base


# classification error ----------------------------------------------------------------
def first_max(x: Any) -> Any:
    """``jnp.argmax(x, axis=-1)`` (the first largest entry; the first NaN where a row has
    one) as two plain reductions: a max, then the least index that holds it. XLA
    compiles ``argmax`` to a reduction over (value, index) pairs that does not
    vectorize; this costs what a sum does (measured on a CPU)."""
    top = jnp.max(x, axis=-1, keepdims=True)  # NaN where the row has a NaN
    hit = (x == top) | jnp.isnan(x)
    index = jnp.arange(x.shape[-1], dtype=jnp.int32)
    return jnp.min(jnp.where(hit, index, x.shape[-1]), axis=-1)


class ClassificationError(Evaluator):
    """Weighted fraction of rows whose prediction is wrong; key ``name``.

    ``attrs["labels"]`` says how the label is read: ``"ids"`` (a class id per row),
    ``"dense"`` (a 0/1 value per column, v2's ``binaryClassificationError``) or
    ``"sparse"`` (the listed columns, v2's ``classificationErrorMulti``)."""

    type = "classification_error"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        if self.attrs["labels"] == "ids":
            wrong = self._id_errors(x, label_rows(values[1], values[0]))
        else:
            label = values[1]
            if self.attrs["labels"] == "sparse":
                label = multi_hot(label, x.shape[-1])
            y, _ = rows(label, values[0])
            wrong = multi_label_errors(x, y, self.attrs["threshold"], self.attrs["labels"])
        w = self.weights(values, values[0], mask)
        return {"errors": jnp.sum(jnp.where(mask, wrong * w, 0.0)), "samples": jnp.sum(w)}

    def _id_errors(self, x, y):
        if x.shape[-1] == 1:  # v2 stopped on a label other than 0 here; class x > threshold
            return ((x[:, 0] > self.attrs["threshold"]) != (y != 0)).astype(jnp.float32)
        if self.attrs["top_k"] == 1:
            return (first_max(x) != y).astype(jnp.float32)
        top = jax.lax.top_k(x, self.attrs["top_k"])[1]
        return (~jnp.any(top == y[:, None], axis=-1)).astype(jnp.float32)

    def result(self, stats):
        n = float(stats["samples"])
        return {self.name: float(stats["errors"]) / n if n else 0.0}


def multi_label_errors(x: Any, y: Any, threshold: float, labels: str) -> Any:
    """Per-row errors ``[N]`` of scores ``x`` against 0/1 labels ``y`` (both ``[N, C]``).

    ``"dense"`` (v2 ``BaseMatrix::binaryClassificationError``): the number of columns
    with ``(x > t) != (y > t)``, not divided by ``C``. ``"sparse"`` (v2
    ``CpuMatrix::classificationErrorMulti``): the fraction of columns with
    ``(x >= t) != (y = 1)``.
    """
    if labels == "dense":
        return jnp.sum((x > threshold) != (y > threshold), axis=-1, dtype=jnp.float32)
    return jnp.mean(((x >= threshold) != (y > 0)).astype(jnp.float32), axis=-1)


def _label_kind(inp: Layer, label: Any, where: str) -> tuple[Layer, str]:
    """The checked label and how ``classification_error`` reads it (see ``ClassificationError``)."""
    if inp.spec.size == 1:
        lbl = check_layer(label, where, "label", mode="dense_or_ids")
        check_dense_label(lbl, where, "a size-1 input needs 0/1 ids or a size-1 dense label")
        return lbl, "ids" if lbl.spec.dtype == "int32" else "dense"
    ids = isinstance(label, Layer) and label.spec.dtype == "int32"
    lbl = check_layer(label, where, "label", mode="ids" if ids else "values")
    if ids:
        return lbl, "ids"
    if lbl.spec.size != inp.spec.size:
        raise LayerConfigError(
            f"{where}: label '{lbl.name}' holds {lbl.spec.size} values per row; a "
            f"multi-label error needs one per column of input '{inp.name}' "
            f"({inp.spec.size}). For one class id per row use paddle.data_type.integer_value."
        )
    return lbl, "dense" if lbl.spec.dtype == "float32" else "sparse"


def _classification_error(
    input,
    label,
    name,
    weight,
    top_k,
    threshold,
    paired=False,
) -> Evaluator:
    where = where_of(name, "classification_error")
    inp = check_layer(input, where, "input")
    lbl, labels = _label_kind(inp, label, where)
    same_level(where, inp, {"label": lbl}, paired)
    k = 1 if top_k is None else positive_int(top_k, where, "top_k")
    if k > max(inp.spec.size, 1):
        raise LayerConfigError(
            f"{where}: top_k is {k}; expected at most the input size {inp.spec.size}."
        )
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, (int, float))
    ):
        raise LayerTypeError(f"{where}: threshold must be a number; received {threshold!r}.")
    thr = 0.5 if threshold is None else float(threshold)
    attrs = {
        "top_k": k,
        "threshold": thr,
        "labels": labels,
        **({"paired": True} if paired else {}),
    }
    return build(ClassificationError, name, [inp, lbl], attrs, check_weight(weight, where, inp))


@base.layer_function
def classification_error(
    input: Layer,
    label: Layer,
    name: str | None = None,
    weight: Layer | None = None,
    top_k: int | None = None,
    threshold: float | None = None,
) -> Evaluator:
    """Classification error rate: the (weighted) fraction of wrong predictions.

    $$
    error = \\sum_i w_i [pred_i \\ne label_i] / \\sum_i w_i
    $$

    ``pred`` is the arg-max class; with ``top_k=k`` a row is wrong when its label is
    not among the ``k`` largest scores. A size-1 input predicts class
    ``p > threshold`` (default 0.5). Over sequences every step is a row.

    Multi-label data (one 0/1 label per column) count as v2 counted them: against a
    ``sparse_binary_vector`` label (the positive columns) a row's error is the fraction
    of columns with ``(p >= threshold) != listed``; against a dense label of the input's
    width it is the *number* of columns with ``(p > threshold) != (label > threshold)``
    (v2 did not divide it by the width).

    Args:
        input: the prediction, a dense layer (``[B, classes]``) or a sequence of them.
        label: an ``integer_value`` layer (a size-1 input also takes a size-1 dense label,
            class ``label > threshold``), or a multi-label ``sparse_binary_vector`` /
            dense layer of the input's size.
        name: the metric key (default ``__classification_error_evaluator_<n>__``).
        weight: optional size-1 layer: per-sample (or per-step) weights.
        top_k: count a row right when the label is among the top ``k`` scores.
        threshold: decision threshold of a size-1 input and of multi-label columns.

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: error rate}``.

    Example:
        ```python
        paddle.evaluator.classification_error(input=prob, label=lbl, top_k=5)
        ```
    """
    name = evaluator_name(name, "classification_error_evaluator")
    return declare(_classification_error(input, label, name, weight, top_k, threshold))


# the evaluators a cost attaches -----------------------------------------------------
AUTO_EVALUATORS = ("auc", "classification_error", "precision_recall")


def _auto(evaluator: str, pred: Layer, label: Layer, weight: Layer | None) -> Evaluator:
    name = f"{evaluator}_evaluator"
    paired = pred.spec.seq_level != label.spec.seq_level  # the cost pairs one row per sample
    if evaluator == "classification_error":
        return _classification_error(pred, label, name, weight, None, None, paired)
    if evaluator == "auc":
        return make_auc(pred, label, name, weight, paired)
    return make_precision_recall(pred, label, None, weight, name, paired)


def auto_evaluators(layer: Layer) -> list[Evaluator]:
    """The evaluators a cost layer attaches itself (``attrs["evaluators"]``), undeclared.

    ``classification_cost`` attaches ``"classification_error"``: an evaluator keyed
    ``classification_error_evaluator`` over the cost's prediction (``inputs[0]``),
    label (``inputs[1]``) and weight (``inputs[2]`` when weighted), as v2 named it.
    ``"auc"`` and ``"precision_recall"`` are keyed ``auc_evaluator`` and
    ``precision_recall_evaluator``.

    Returns:
        A list of ``Evaluator`` (empty for layers that attach none).

    Example:
        ```python
        cost = paddle.layer.classification_cost(input=prob, label=lbl)
        [ev] = auto_evaluators(cost)      # ev.name == "classification_error_evaluator"
        ```
    """
    names = layer.attrs.get("evaluators") or ()
    if not names:
        return []
    pred, label = layer.inputs[0], layer.inputs[1]
    weight = layer.inputs[2] if layer.attrs.get("weighted", False) else None
    for evaluator in names:
        if evaluator not in AUTO_EVALUATORS:
            raise LayerConfigError(
                f"layer '{layer.name}': a cost can attach the evaluators "
                f"{list(AUTO_EVALUATORS)}; received {evaluator!r}. Declare others with "
                "paddle.evaluator.<name>(...)."
            )
    return [_auto(e, pred, label, weight) for e in names]


def topology_evaluators(topology: Any) -> list[Any]:
    """The automatic evaluators of its costs, the declared ones it can compute (v2
    collected every evaluator of the config whose inputs are all in the network), and
    those passed in ``extra_layers``."""
    found = [ev for layer in topology.nodes for ev in auto_evaluators(layer)]
    present = {id(n) for n in topology.nodes}
    for ev in [*current_scope().evaluators, *topology.evaluators]:
        if all(id(layer) in present for layer in ev.inputs) and ev not in found:
            found.append(ev)
    return first_of_each_name(found)


def first_of_each_name(evaluators: list[Any]) -> list[Any]:
    """One evaluator per metric name, the first in config order. Several
    ``classification_cost`` layers each attach one named ``classification_error_evaluator``;
    v2 ran them all but reported, under that name, the first one's value (its
    CombinedEvaluator::getValue returns the first evaluator that has the name)."""
    kept: dict[str, Any] = {}
    for ev in evaluators:
        kept.setdefault(ev.name, ev)
    return list(kept.values())
