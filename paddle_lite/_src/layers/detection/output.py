"""The SSD inference head ``detection_output`` as v2's ``DetectionOutputLayer`` computes it:
decode the boxes, keep per class the confident ones that survive non-maximum
suppression, then the ``keep_top_k`` best per image.

v2's output is a matrix with one row ``[image_id, label, score, xmin, ymin, xmax, ymax]``
per kept detection, all images stacked, so its height depends on the data. Here the
computation runs under fixed shapes (it compiles once per batch shape): the value is a
sequence per image, padded to ``keep_top_k`` rows, whose length is the number of kept
detections. Its valid rows, image after image, are v2's matrix; that is what
``paddle.infer`` returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.detection import boxes
from paddle_lite._src.layers.detection.loss import class_attrs, prediction_inputs, predictions
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq


def nms_keep(box: Any, score: Any, valid: Any, threshold: float) -> Any:
    """Greedy non-maximum suppression (v2's ``applyNMSFast``) over candidates already in
    descending score order: a candidate is kept unless it overlaps a kept one by more
    than ``threshold``. ``box [K, 4]``, ``valid [K]``; returns the kept mask ``[K]``."""
    iou = boxes.jaccard(box[:, None, :], box[None, :, :])

    def step(i, keep):
        clash = jnp.any(keep & (iou[i] > threshold))
        return keep.at[i].set(valid[i] & ~clash)

    return jax.lax.fori_loop(0, box.shape[0], step, jnp.zeros(score.shape, bool))


def class_candidates(decoded: Any, prob: Any, attrs: Any) -> tuple[Any, Any, Any]:
    """One image, one class: the ``nms_top_k`` most confident priors above
    ``confidence_threshold`` (ties: lower prior first, as v2's stable sort), then NMS.
    Returns ``(prior index [K], score [K], kept [K])`` in descending score order."""
    n_prior = prob.shape[0]
    top = attrs["nms_top_k"]
    k = n_prior if top <= 0 else min(top, n_prior)
    thr = attrs["confidence_threshold"]
    score, index = jax.lax.top_k(jnp.where(prob > thr, prob, -jnp.inf), k)
    valid = score > thr
    kept = nms_keep(decoded[index], score, valid, attrs["nms_threshold"])
    return index, score, kept


def capacity(attrs: Any, n_prior: int) -> int:
    """Rows per image of the padded output: ``keep_top_k``, or every candidate when
    ``keep_top_k <= 0`` (v2 then keeps them all)."""
    if attrs["keep_top_k"] > 0:
        return attrs["keep_top_k"]
    top = attrs["nms_top_k"]
    k = n_prior if top <= 0 else min(top, n_prior)
    return k * (attrs["num_classes"] - 1)


def image_rows(image_id: Any, decoded: Any, prob: Any, attrs: Any, cap: int) -> tuple:
    """One image's ``(rows [cap, 7], count)``: the kept detections ordered by label, then
    by descending score (v2's map of label -> indices), at most ``keep_top_k`` of the
    highest scores."""
    labels = [c for c in range(prob.shape[1]) if c != attrs["background_id"]]
    cls = jnp.asarray(labels, jnp.int32)
    index, score, kept = jax.vmap(class_candidates, (None, 1, None))(decoded, prob[:, cls], attrs)
    index, score, kept = index.reshape(-1), score.reshape(-1), kept.reshape(-1)
    label = jnp.repeat(cls, index.shape[0] // cls.shape[0])
    if attrs["keep_top_k"] > 0:
        key = jnp.where(kept, score, -jnp.inf)
        rank = jnp.argsort(jnp.argsort(-key, stable=True), stable=True)
        kept = kept & (rank < attrs["keep_top_k"])
    box = jnp.clip(decoded[index], 0.0, 1.0)
    rows = jnp.concatenate(
        [
            jnp.broadcast_to(image_id, score.shape)[:, None],
            label[:, None].astype(box.dtype),
            jnp.where(kept, score, 0.0)[:, None],
            box,
        ],
        axis=1,
    )
    slot = jnp.where(kept, jnp.cumsum(kept) - 1, cap)
    out = jnp.zeros((cap, 7), rows.dtype).at[slot].set(rows, mode="drop")
    return out, jnp.sum(kept, dtype=jnp.int32)


class DetectionOutputKind(Kind):
    name = "detection_output"
    v2 = V2Layer(size=lambda n: n.attrs["keep_top_k"] * 7)  # 7 numbers per detection

    def infer_spec(self, inputs, attrs):
        for i, spec in enumerate(inputs):
            base.expect(spec, "priorbox" if i == 0 else f"prediction input {i - 1}")
        return Spec(7, seq_level=1)

    def apply(self, params, inputs, attrs, *, key, mode):
        prior_row, loc, conf = predictions(inputs, attrs, 1)
        prior = prior_row.reshape(-1, 8)
        decoded = boxes.decode(prior[None, :, :4], prior[None, :, 4:], loc)
        prob = jax.nn.softmax(conf, axis=-1)
        cap = capacity(attrs, prior.shape[0])
        ids = jnp.arange(loc.shape[0], dtype=loc.dtype)
        rows, count = jax.vmap(image_rows, (0, 0, 0, None, None))(ids, decoded, prob, attrs, cap)
        return Seq(rows, count)


register_kind(DetectionOutputKind())


@base.layer_function
def detection_output(
    input_loc: Layer | Sequence[Layer],
    input_conf: Layer | Sequence[Layer],
    priorbox: Layer,
    num_classes: int,
    nms_threshold: float = 0.45,
    nms_top_k: int = 400,
    keep_top_k: int = 200,
    confidence_threshold: float = 0.01,
    background_id: int = 0,
    name: str | None = None,
) -> Layer:
    """The SSD detections: decoded boxes after per-class NMS (v2 ``detection_output``).

    Per image: the class scores go through a softmax and the location predictions are
    decoded against the priors (with their variances). For each class but
    ``background_id``, the ``nms_top_k`` priors of probability ``> confidence_threshold``
    go through greedy NMS (a box is dropped when it overlaps a kept one by more than
    ``nms_threshold``). If more than ``keep_top_k`` detections remain, the
    ``keep_top_k`` most probable are kept. Rows are ordered by label, then by
    descending score; boxes are clipped to ``[0, 1]``.

    Args:
        input_loc: the location predictions (a layer or list; NCHW, 4 per prior).
        input_conf: the class scores (a layer or list; NCHW, ``num_classes`` per prior).
        priorbox: the priors (a ``priorbox`` layer, or several joined with ``concat``).
        num_classes: classes including the background.
        nms_threshold, nms_top_k, keep_top_k, confidence_threshold, background_id: as
            above (``nms_top_k <= 0`` / ``keep_top_k <= 0``: no limit).
        name: the layer name (default ``__detection_output_<n>__``).

    Returns:
        A sequence per image of rows ``[image_id, label, score, xmin, ymin, xmax, ymax]``
        (size 7; at most ``keep_top_k`` rows). ``paddle.infer`` returns v2's matrix: the
        rows of all images stacked. v2 declared the layer's size as ``keep_top_k * 7``.

    Example:
        >>> loc = paddle.layer.img_conv(input=conv, filter_size=3, num_filters=4 * 4,
        ...     padding=1, act=paddle.activation.Linear())
        >>> conf = paddle.layer.img_conv(input=conv, filter_size=3, num_filters=4 * 3,
        ...     padding=1, act=paddle.activation.Linear())
        >>> prior = paddle.layer.priorbox(input=conv, image=img, aspect_ratio=[2.0],
        ...     variance=[0.1, 0.1, 0.2, 0.2], min_size=[3], max_size=[6])
        >>> det = paddle.layer.detection_output(input_loc=loc, input_conf=conf,
        ...     priorbox=prior, num_classes=3, keep_top_k=10)
        >>> det.size
        7
    """
    name = base.layer_name(name, "detection_output")
    locs, confs = prediction_inputs(input_loc, input_conf, name=name)
    prior = base.as_layer(priorbox, layer=name, arg="priorbox")
    ints = {
        arg: _int(value, layer=name, arg=arg)
        for arg, value in (("nms_top_k", nms_top_k), ("keep_top_k", keep_top_k))
    }
    attrs = {
        **class_attrs(num_classes, background_id, name=name),
        **ints,
        "input_num": len(locs),
        "pixels": tuple(boxes.pixels(layer.spec) for layer in locs),
        "nms_threshold": base.number(nms_threshold, layer=name, arg="nms_threshold"),
        "confidence_threshold": base.number(
            confidence_threshold, layer=name, arg="confidence_threshold"
        ),
    }
    inputs = [prior, *locs, *confs]
    return base.build("detection_output", name=name, inputs=inputs, attrs=attrs)


def _int(value: Any, *, layer: str, arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayerTypeError(f"layer '{layer}': {arg} must be an int; received {value!r}.")
    return value
