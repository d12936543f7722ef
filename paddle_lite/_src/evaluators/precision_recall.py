"""v2's ``precision_recall`` evaluator: precision, recall and F1 of the arg-max prediction
(or, for multi-label data, of each class on its own).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
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
