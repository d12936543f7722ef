"""The detection evaluator ``detection_map`` (v2 ``DetectionMAPEvaluator``): mean average
precision of ``detection_output`` against the ground-truth boxes.

v2 kept, per class, the list of every detection's score with a true / false positive
flag, and sorted it when reporting. Evaluator statistics here are additive arrays of
fixed shape (they are summed inside the jitted step), so the lists become histograms
over ``SCORE_BINS`` equal score bins per class: the precision-recall points are those
of v2 exactly when no two detections of a class share a bin; within a shared bin the
true positives are taken first.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_layer,
    declare,
    evaluator_name,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.detection import boxes
from paddle_lite._src.layers.detection.output import DetectionOutputKind

SCORE_BINS = 1 << 14
AP_TYPES = ("11point", "Integral")


def _image_flags(det: Any, det_valid: Any, gt: Any, gt_valid: Any, attrs: Any) -> tuple:
    """One image: ``(tp [T], fp [T])`` of its detections (v2's ``calcTFPos``): in
    descending score order, a detection whose best same-class box overlaps it by more
    than ``overlap_threshold`` is a true positive if that box is still unclaimed, a
    false positive if claimed, and counts nowhere if the box is difficult (unless
    ``evaluate_difficult``); any other detection is a false positive."""
    order = jnp.argsort(-jnp.where(det_valid, det[:, 2], -jnp.inf), stable=True)
    gt_class = gt[:, 0].astype(jnp.int32)
    hard = (jnp.abs(gt[:, 5]) >= 1e-6) & (not attrs["evaluate_difficult"])

    def step(visited, k):
        row, ok = det[k], det_valid[k]
        same = gt_valid & (gt_class == row[1].astype(jnp.int32))
        ov = jnp.where(same, boxes.jaccard(row[None, 3:7], gt[:, 1:5]), -jnp.inf)
        best = jnp.argmax(ov)
        hit = jnp.any(same) & (ov[best] > attrs["overlap_threshold"])
        counted = ok & ~(hit & hard[best])
        tp = counted & hit & ~visited[best]
        fp = counted & ~tp
        return visited.at[best].set(visited[best] | tp), (tp, fp)

    _, (tp, fp) = jax.lax.scan(step, jnp.zeros(gt.shape[0], bool), order)
    back = jnp.argsort(order)
    return tp[back], fp[back]


def _class_index(cls: Any, n_class: int) -> Any:
    """Class ids as histogram rows; ids outside ``[0, n_class)`` go to a dropped row."""
    return jnp.where((cls >= 0) & (cls < n_class), cls, n_class)


class DetectionMAP(Evaluator):
    """Mean average precision (x 100) over the classes that have both ground truth and
    detections, as v2 reports it."""

    type = "detection_map"

    def batch_stats(self, values, valid=None):
        det, label = values
        n_class = self.attrs["num_classes"]
        t = det.data.shape[1]
        det_valid = jnp.arange(t)[None, :] < det.lengths[:, None]
        gt, gt_valid = boxes.label_boxes(label)
        if valid is not None:
            real = jnp.asarray(valid, bool)[:, None]
            det_valid, gt_valid = det_valid & real, gt_valid & real
        tp, fp = jax.vmap(_image_flags, (0, 0, 0, 0, None))(
            det.data, det_valid, gt, gt_valid, self.attrs
        )
        cls = _class_index(det.data[..., 1].astype(jnp.int32), n_class).reshape(-1)
        score_bin = jnp.clip((det.data[..., 2] * SCORE_BINS).astype(jnp.int32), 0, SCORE_BINS - 1)
        score_bin = score_bin.reshape(-1)
        hist = jnp.zeros((n_class, SCORE_BINS), jnp.float32)
        counts = self.attrs["evaluate_difficult"] | (jnp.abs(gt[..., 5]) < 1e-6)
        gt_cls = _class_index(gt[..., 0].astype(jnp.int32), n_class).reshape(-1)
        return {
            "tp": hist.at[cls, score_bin].add(tp.reshape(-1).astype(jnp.float32), mode="drop"),
            "fp": hist.at[cls, score_bin].add(fp.reshape(-1).astype(jnp.float32), mode="drop"),
            "positives": jnp.zeros(n_class, jnp.float32)
            .at[gt_cls]
            .add((gt_valid & counts).reshape(-1).astype(jnp.float32), mode="drop"),
        }

    def result(self, stats):
        aps = []
        for c in range(self.attrs["num_classes"]):
            n_pos = float(stats["positives"][c])
            tp, fp = np.asarray(stats["tp"][c])[::-1], np.asarray(stats["fp"][c])[::-1]
            if n_pos == 0 or tp.sum() + fp.sum() == 0:
                continue
            reps = np.rint(np.stack([tp, fp], axis=1).reshape(-1)).astype(np.int64)
            flags = np.repeat(np.tile([1.0, 0.0], tp.shape[0]), reps)
            tp_sum = np.cumsum(flags)
            precision = tp_sum / np.arange(1, flags.shape[0] + 1)
            aps.append(average_precision(precision, tp_sum / n_pos, self.attrs["ap_type"]))
        return {self.name: float(np.mean(aps)) * 100 if aps else 0.0}


def average_precision(precision: np.ndarray, recall: np.ndarray, ap_type: str) -> float:
    """v2's AP of one class from its precision-recall points (descending score order):
    VOC2007 ``"11point"`` (the mean of the best precision at recall >= 0, 0.1, ..., 1)
    or the ``"Integral"`` of precision over recall."""
    if ap_type == "Integral":
        steps = np.abs(np.diff(recall, prepend=0.0))
        return float(np.sum(np.where(steps > 1e-6, precision * steps, 0.0)))
    best = [0.0] * 11
    start = len(recall) - 1
    for j in range(10, -1, -1):
        for i in range(start, -1, -1):
            if recall[i] < j / 10.0:
                start = i
                if j > 0:
                    best[j - 1] = best[j]
                break
            best[j] = max(best[j], float(precision[i]))
    return sum(best) / 11


def _input(input: Any, where: str) -> Any:
    if isinstance(input, (list, tuple)) and len(input) == 1:  # v2 wraps input in a list
        input = input[0]
    det = check_layer(input, where, "input")
    if not isinstance(get_kind(det.kind), DetectionOutputKind):
        raise LayerConfigError(
            f"{where}: input '{det.name}' is a {det.kind} layer; expected the output of "
            "paddle.layer.detection_output (its rows and num_classes)."
        )
    return det


@base.layer_function
def detection_map(
    input: Layer,
    label: Layer,
    overlap_threshold: float = 0.5,
    background_id: int = 0,
    evaluate_difficult: bool = False,
    ap_type: str = "11point",
    name: str | None = None,
) -> Evaluator:
    """Mean average precision of detections (v2 ``detection_map``), in percent.

    Per image and class, detections in descending score order are true positives when
    their best same-class ground-truth box overlaps them by more than
    ``overlap_threshold`` and is not yet claimed; difficult boxes count nowhere unless
    ``evaluate_difficult``. Per class, with precision ``P_i`` and recall ``R_i`` after
    the ``i`` best detections of the pass, AP is VOC2007's 11-point mean
    ``1/11 \\sum_{t=0,0.1..1} \\max_{R_i \\ge t} P_i`` (``"11point"``) or
    ``\\sum_i P_i |R_i - R_{i-1}|`` (``"Integral"``); mAP is the mean over the classes
    with both ground truth and detections, times 100. Scores are binned in
    ``SCORE_BINS`` bins (see the module docstring).

    Args:
        input: a ``paddle.layer.detection_output`` layer.
        label: per image a sequence of ``[class, xmin, ymin, xmax, ymax, difficult]``.
        overlap_threshold: the overlap a true positive exceeds.
        background_id: the background class (stored, as in v2; detections never have it).
        evaluate_difficult: whether difficult boxes count.
        ap_type: ``"11point"`` or ``"Integral"``.
        name: the metric key (default ``__detection_map_evaluator_<n>__``).

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``name``.

    Example:
        ```python
        paddle.evaluator.detection_map(input=det, label=boxes, ap_type="11point")
        ```
    """
    name = evaluator_name(name, "detection_map_evaluator")
    where = where_of(name, "detection_map")
    det = _input(input, where)
    lbl = check_layer(label, where, "label")
    boxes.check_label_spec(lbl.spec, where)
    if ap_type not in AP_TYPES:
        raise LayerConfigError(f"{where}: ap_type must be one of {AP_TYPES}; received {ap_type!r}.")
    if not isinstance(evaluate_difficult, (bool, int, np.bool_)):
        raise LayerTypeError(
            f"{where}: evaluate_difficult must be a bool; received {evaluate_difficult!r}."
        )
    attrs = {
        "num_classes": det.attrs["num_classes"],
        "overlap_threshold": base.number(overlap_threshold, layer=name, arg="overlap_threshold"),
        "background_id": background_id,
        "evaluate_difficult": bool(evaluate_difficult),
        "ap_type": ap_type,
    }
    return declare(build(DetectionMAP, name, [det, lbl], attrs))
