"""The SSD training cost ``multibox_loss`` as v2's ``MultiBoxLossLayer`` computes it:
match priors to ground-truth boxes, mine hard negatives, and add a smooth-L1
localisation loss to a softmax confidence loss, both over the number of matches.

Everything runs under fixed shapes (a batch of images, all priors, the padded boxes of
each image), so the cost compiles once per batch shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.detection import boxes
from paddle_lite._src.specs import Spec


def match_priors(prior: Any, gt: Any, gt_valid: Any, threshold: float) -> tuple[Any, Any]:
    """v2's ``matchBBox`` for one image: ``(match [P], overlap [P])``.

    First bipartite: repeatedly the (prior, box) pair of largest overlap among unmatched
    priors and unused boxes (ties: lowest prior, then lowest box). Then every prior still
    unmatched takes its most overlapping box if that overlap is ``>= threshold``. Only
    overlaps ``> 1e-6`` count; ``overlap`` is a matched prior's overlap with its box and
    an unmatched prior's largest overlap (0 when none). Unmatched priors have match -1.
    """
    iou = boxes.jaccard(prior[:, None, :], gt[None, :, :])
    has = (iou > 1e-6) & gt_valid[None, :]
    ov = jnp.where(has, iou, 0.0)
    n_prior, n_gt = ov.shape

    def bipartite(_, carry):
        match, overlap, pool = carry
        cand = has & (match[:, None] < 0) & pool[None, :]
        flat = jnp.argmax(jnp.where(cand, ov, -1.0).reshape(-1))
        i, j = flat // n_gt, (flat % n_gt).astype(jnp.int32)
        found = jnp.any(cand)
        match = jnp.where(found, match.at[i].set(j), match)
        overlap = jnp.where(found, overlap.at[i].set(ov[i, j]), overlap)
        return match, overlap, jnp.where(found, pool.at[j].set(False), pool)

    start = (jnp.full((n_prior,), -1, jnp.int32), jnp.max(ov, axis=1), jnp.ones(n_gt, bool))
    match, overlap, _ = jax.lax.fori_loop(0, n_gt, bipartite, start)
    good = has & (ov >= threshold)
    best = jnp.argmax(jnp.where(good, ov, -1.0), axis=1).astype(jnp.int32)
    late = (match < 0) & jnp.any(good, axis=1)
    match = jnp.where(late, best, match)
    overlap = jnp.where(late, jnp.take_along_axis(ov, best[:, None], axis=1)[:, 0], overlap)
    return match, overlap


def best_object_score(conf: Any, background_id: int) -> Any:
    """v2's ``getMaxConfidenceScores``: the softmax probability of the most likely
    non-background class of each prior (``conf [..., C]`` are the raw scores)."""
    top = jnp.max(conf, axis=-1)
    objects = jnp.where(jnp.arange(conf.shape[-1]) == background_id, -jnp.inf, conf)
    total = jnp.sum(jnp.exp(conf - top[..., None]), axis=-1)
    return jnp.exp(jnp.max(objects, axis=-1) - top) / total


def hard_negatives(match: Any, overlap: Any, score: Any, attrs: Any) -> Any:
    """v2's negative mining for one image: of the unmatched priors with overlap
    ``< neg_overlap``, the ``num_pos * int(neg_pos_ratio)`` of highest ``score``."""
    cand = (match < 0) & (overlap < attrs["neg_overlap"])
    n_pos = jnp.sum(match >= 0)
    n_neg = jnp.minimum(n_pos * int(attrs["neg_pos_ratio"]), jnp.sum(cand))
    key = jnp.where(cand, jax.lax.stop_gradient(score), -jnp.inf)
    rank = jnp.argsort(jnp.argsort(-key, stable=True), stable=True)
    return cand & (rank < n_neg)


def _smooth_l1(diff: Any) -> Any:
    a = jnp.abs(diff)
    return jnp.where(a < 1.0, 0.5 * a * a, a - 0.5)


def multibox_terms(
    prior_row: Any, loc: Any, conf: Any, label: Any, attrs: Any, real: Any = None
) -> tuple:
    """``(loc_sum, conf_sum, matches)`` of a batch: the summed smooth-L1 and softmax losses
    and the number of matched priors (``loc [B, P, 4]``, ``conf [B, P, C]``); with
    ``real`` (bool ``[B]``), over the real images only."""
    prior = prior_row.reshape(-1, 8)
    rows, valid = boxes.label_boxes(label)
    match, overlap = jax.vmap(match_priors, (None, 0, 0, None))(
        prior[:, :4], rows[..., 1:5], valid, attrs["overlap_threshold"]
    )
    score = best_object_score(conf, attrs["background_id"])
    neg = jax.vmap(hard_negatives, (0, 0, 0, None))(match, overlap, score, attrs)
    pos = match >= 0
    if real is not None:  # padding images match and mine nothing
        pos, neg = pos & real[:, None], neg & real[:, None]
    picked = jnp.take_along_axis(rows, jnp.maximum(match, 0)[..., None], axis=1)
    target = boxes.encode(prior[None, :, :4], prior[None, :, 4:], picked[..., 1:5])
    target = jnp.where(pos[..., None], target, 0.0)
    loc_sum = jnp.sum(jnp.where(pos[..., None], _smooth_l1(loc - target), 0.0))
    n_class = conf.shape[-1]
    gt_class = jnp.clip(picked[..., 0].astype(jnp.int32), 0, n_class - 1)
    cls = jnp.where(pos, gt_class, attrs["background_id"])
    logp = jax.nn.log_softmax(conf, axis=-1)
    ce = -jnp.take_along_axis(logp, cls[..., None], axis=-1)[..., 0]
    conf_sum = jnp.sum(jnp.where(pos | neg, ce, 0.0))
    return loc_sum, conf_sum, jnp.sum(pos)


def _at_least_f32(value: Any) -> Any:
    return value.astype(jnp.promote_types(value.dtype, jnp.float32))


def predictions(inputs: list[Any], attrs: Any, first: int) -> tuple[Any, Any, Any]:
    """``(prior_row [P*8], loc [B, P, 4], conf [B, P, C])`` from the layer's inputs, the
    location inputs starting at ``first``; at least float32 (as v2) under low precision."""
    n, hw = attrs["input_num"], attrs["pixels"]
    prior_row = _at_least_f32(inputs[0][0])
    if prior_row.shape[0] % 8:
        raise LayerConfigError(
            f"the priorbox input has {prior_row.shape[0]} values; expected 8 per prior."
        )
    n_prior = prior_row.shape[0] // 8
    locs = [_at_least_f32(v) for v in inputs[first : first + n]]
    confs = [_at_least_f32(v) for v in inputs[first + n : first + 2 * n]]
    n_class = attrs["num_classes"]
    boxes.check_priors("location", n_prior, sum(v.shape[1] for v in locs), 4)
    boxes.check_priors("confidence", n_prior, sum(v.shape[1] for v in confs), n_class)
    loc = boxes.per_prior(locs, hw, 4, "location")
    conf = boxes.per_prior(confs, hw, n_class, "confidence")
    return prior_row, loc, conf


class MultiBoxLossKind(Kind):
    name = "multibox_loss"
    is_cost = True  # v2's MultiBoxLossLayer is a cost layer: its backward seeds itself
    uses_row_weights = True  # one loss over the batch's matches: padding images leave it

    def infer_spec(self, inputs, attrs):
        boxes.check_loss_label_spec(inputs[1])
        for i, spec in enumerate(inputs[:1] + inputs[2:]):
            base.expect(spec, "priorbox" if i == 0 else f"prediction input {i - 1}")
        return Spec(1)

    def apply(self, params, inputs, attrs, *, key, mode, row_weights=None):
        prior_row, loc, conf = predictions(inputs, attrs, 2)
        label = inputs[1]
        if hasattr(label, "lengths") and label.data.shape[-1] != 6:  # v2's reading
            label = boxes.packed_label_rows(label)
        real = None if row_weights is None else row_weights > 0
        loc_sum, conf_sum, matches = multibox_terms(prior_row, loc, conf, label, attrs, real)
        loss = (loc_sum + conf_sum) / jnp.maximum(matches, 1).astype(loc.dtype)
        # v2 writes the batch's loss into every row and back-propagates d loss (not the
        # sum of the rows): each of the B real rows carries 1/B of the gradient.
        images = loc.shape[0] if real is None else jnp.sum(real).astype(loc.dtype)
        fixed = jax.lax.stop_gradient(loss)
        row = fixed + (loss - fixed) / images
        return jnp.broadcast_to(row, (loc.shape[0], 1))


register_kind(MultiBoxLossKind())


def prediction_inputs(input_loc: Any, input_conf: Any, *, name: str) -> tuple[list, list]:
    """The location and confidence layers (one layer or a list each, as many of both)."""
    locs = base.as_layers(input_loc, layer=name, arg="input_loc")
    confs = base.as_layers(input_conf, layer=name, arg="input_conf")
    if len(locs) != len(confs):
        raise LayerConfigError(
            f"layer '{name}': {len(locs)} input_loc layers but {len(confs)} input_conf layers; "
            "expected one confidence input per location input."
        )
    return locs, confs


def class_attrs(num_classes: Any, background_id: Any, *, name: str) -> dict[str, int]:
    """``num_classes`` and ``background_id``, checked as v2's config does."""
    n = base.positive_int(num_classes, layer=name, arg="num_classes")
    bg = background_id
    if isinstance(bg, bool) or not isinstance(bg, int) or bg < 0 or bg >= n:
        raise LayerConfigError(
            f"layer '{name}': background_id must be an int in [0, num_classes={n}); received "
            f"{bg!r} (v2: 'Classes number must greater than background ID')."
        )
    return {"num_classes": n, "background_id": bg}


@base.layer_function
def multibox_loss(
    input_loc: Layer | Sequence[Layer],
    input_conf: Layer | Sequence[Layer],
    priorbox: Layer,
    label: Layer,
    num_classes: int,
    overlap_threshold: float = 0.5,
    neg_pos_ratio: float = 3.0,
    neg_overlap: float = 0.5,
    background_id: int = 0,
    name: str | None = None,
) -> Layer:
    """The SSD cost: localisation and confidence losses of matched priors (v2 ``multibox_loss``).

    Per image, priors are matched to its ground-truth boxes (bipartite first, then each
    remaining prior to its best box if the overlap is ``>= overlap_threshold``). Of the
    unmatched priors overlapping every box by ``< neg_overlap``, the
    ``matched * int(neg_pos_ratio)`` with the highest best-object probability are the
    negatives. With ``N`` matches in the batch:

    $$
    loss = \\frac{1}{N} \\Big(\\sum_{matched} smoothL1(loc - encode(gt, prior))
    + \\sum_{matched \\cup negatives} -\\log softmax(conf)[class]\\Big)
    $$

    (class: the box's label, background for negatives; ``encode`` uses the prior's
    variances). Every row of the output holds the batch's loss, as in v2; training
    follows ``d loss`` (0 when nothing matched).

    Args:
        input_loc: the location predictions (a layer or list; NCHW, 4 per prior).
        input_conf: the class scores (a layer or list; NCHW, ``num_classes`` per prior).
        priorbox: the priors (a ``priorbox`` layer, or several joined with ``concat``).
        label: per image a sequence of ``[class, xmin, ymin, xmax, ymax, difficult]``
            rows (``paddle.data_type.dense_vector_sequence(6)``).
        num_classes: classes including the background.
        overlap_threshold, neg_pos_ratio, neg_overlap, background_id: as above.
        name: the layer name (default ``__multibox_loss_<n>__``).

    Returns:
        A cost layer of size 1.

    Example:
        >>> loc = paddle.layer.img_conv(input=conv, filter_size=3, num_filters=4 * 4,
        ...     padding=1, act=paddle.activation.Linear())
        >>> conf = paddle.layer.img_conv(input=conv, filter_size=3, num_filters=4 * 3,
        ...     padding=1, act=paddle.activation.Linear())
        >>> boxes = paddle.layer.data(
        ...     name="boxes", type=paddle.data_type.dense_vector_sequence(6))
        >>> prior = paddle.layer.priorbox(input=conv, image=img, aspect_ratio=[2.0],
        ...     variance=[0.1, 0.1, 0.2, 0.2], min_size=[3], max_size=[6])
        >>> cost = paddle.layer.multibox_loss(input_loc=loc, input_conf=conf,
        ...     priorbox=prior, label=boxes, num_classes=3)
        >>> cost.size
        1
    """
    name = base.layer_name(name, "multibox_loss")
    locs, confs = prediction_inputs(input_loc, input_conf, name=name)
    prior = base.as_layer(priorbox, layer=name, arg="priorbox")
    lbl = base.as_layer(label, layer=name, arg="label")
    attrs = {
        **class_attrs(num_classes, background_id, name=name),
        "input_num": len(locs),
        "pixels": tuple(boxes.pixels(layer.spec) for layer in locs),
        "overlap_threshold": base.number(overlap_threshold, layer=name, arg="overlap_threshold"),
        "neg_pos_ratio": base.number(neg_pos_ratio, layer=name, arg="neg_pos_ratio"),
        "neg_overlap": base.number(neg_overlap, layer=name, arg="neg_overlap"),
    }
    inputs = [prior, lbl, *locs, *confs]
    return base.build("multibox_loss", name=name, inputs=inputs, attrs=attrs)
