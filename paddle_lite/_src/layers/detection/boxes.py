"""Box arithmetic shared by the SSD layers (``multibox_loss``, ``detection_output``) and the
``detection_map`` evaluator, written from v2's ``DetectionUtil``.

Boxes are ``[..., 4]`` arrays ``(xmin, ymin, xmax, ymax)`` in image-normalised
coordinates. A priorbox value holds one row of ``8`` numbers per prior: the box, then
its four variances. Location and confidence predictions come from convolution outputs
(NCHW); v2 reads them pixel by pixel, i.e. transposed to NHWC and concatenated over the
inputs, so prior ``p`` of the flattened list is (pixel, prior-at-that-pixel) in the same
order ``priorbox`` generates them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import kinds
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.specs import Spec


def jaccard(a: Any, b: Any) -> Any:
    """v2's ``jaccardOverlap``: 0 when the boxes are apart, else intersection over union.

    Broadcasts ``a [..., 4]`` against ``b [..., 4]``. Boxes that only touch (and empty
    boxes) give 0, as in v2.
    """
    apart = (
        (b[..., 0] > a[..., 2])
        | (b[..., 2] < a[..., 0])
        | (b[..., 1] > a[..., 3])
        | (b[..., 3] < a[..., 1])
    )
    iw = jnp.minimum(a[..., 2], b[..., 2]) - jnp.maximum(a[..., 0], b[..., 0])
    ih = jnp.minimum(a[..., 3], b[..., 3]) - jnp.maximum(a[..., 1], b[..., 1])
    inter = iw * ih
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    safe = jnp.where(apart | (union == 0), 1.0, union)
    return jnp.where(apart, 0.0, inter / safe)


def _center_size(box: Any) -> tuple[Any, Any, Any, Any]:
    w = box[..., 2] - box[..., 0]
    h = box[..., 3] - box[..., 1]
    return (box[..., 0] + box[..., 2]) / 2, (box[..., 1] + box[..., 3]) / 2, w, h


def encode(prior: Any, var: Any, gt: Any) -> Any:
    """v2's ``encodeBBoxWithVar``: the regression target of ``gt`` against ``prior``."""
    pcx, pcy, pw, ph = _center_size(prior)
    gcx, gcy, gw, gh = _center_size(gt)
    return jnp.stack(
        [
            (gcx - pcx) / pw / var[..., 0],
            (gcy - pcy) / ph / var[..., 1],
            jnp.log(jnp.abs(gw / pw)) / var[..., 2],
            jnp.log(jnp.abs(gh / ph)) / var[..., 3],
        ],
        axis=-1,
    )


def decode(prior: Any, var: Any, loc: Any) -> Any:
    """v2's ``decodeBBoxWithVar``: the box a location prediction ``loc`` makes of ``prior``."""
    pcx, pcy, pw, ph = _center_size(prior)
    cx = var[..., 0] * loc[..., 0] * pw + pcx
    cy = var[..., 1] * loc[..., 1] * ph + pcy
    w = jnp.exp(var[..., 2] * loc[..., 2]) * pw
    h = jnp.exp(var[..., 3] * loc[..., 3]) * ph
    return jnp.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=-1)


def pixels(spec: Spec) -> int:
    """The pixels ``H*W`` v2 transposes a prediction input over (1 for a non-image)."""
    return 1 if spec.image is None else spec.image[1] * spec.image[2]


def per_prior(values: Sequence[Any], n_pixels: Sequence[int], width: int, what: str) -> Any:
    """Predictions ``[B, P, width]``: each NCHW input transposed to NHWC, concatenated.

    ``n_pixels[i]`` is the ``H*W`` of the i-th location input (v2 uses it for both the
    location and the confidence input of a pair).
    """
    parts = []
    for value, hw in zip(values, n_pixels, strict=True):
        b, size = value.shape
        if size % hw:
            raise LayerConfigError(
                f"{what} input of size {size} does not split over the {hw} pixels of its "
                "location input; expected a multiple."
            )
        parts.append(value.reshape(b, size // hw, hw).transpose(0, 2, 1).reshape(b, -1))
    flat = jnp.concatenate(parts, axis=1)
    if flat.shape[1] % width:
        raise LayerConfigError(
            f"the {what} inputs hold {flat.shape[1]} values per image; expected a multiple "
            f"of {width} (one row of {width} per prior)."
        )
    return flat.reshape(flat.shape[0], -1, width)


def check_priors(what: str, n_priors: int, per_image: int, width: int) -> None:
    """Refuse predictions that do not hold ``width`` values for each of ``n_priors`` priors."""
    if per_image != n_priors * width:
        raise LayerConfigError(
            f"the {what} inputs hold {per_image} values per image; expected {n_priors} "
            f"priors x {width} = {n_priors * width} (the priorbox input has {n_priors} priors)."
        )


def label_boxes(label: Any) -> tuple[Any, Any]:
    """``(rows [B, G, 6], valid [B, G])`` of a label value: a sequence of
    ``[class, xmin, ymin, xmax, ymax, difficult]`` rows per image, or a plain value of
    ``6 * G`` numbers (``G`` boxes per image)."""
    if hasattr(label, "lengths"):
        rows = label.data
        valid = jnp.arange(rows.shape[1])[None, :] < label.lengths[:, None]
        return rows, valid
    rows = label.reshape(label.shape[0], -1, 6)
    return rows, jnp.ones(rows.shape[:2], bool)


def check_label_spec(spec: Spec, where: str) -> None:
    """A label holds rows of 6: a dense sequence of size 6, or a plain value of 6 * G."""
    if spec.dtype != "float32" or spec.seq_level > 1:
        raise LayerConfigError(
            f"{where}: label holds {spec.dtype} values at sequence level {spec.seq_level}; "
            "expected a dense sequence of size 6 per box ([class, xmin, ymin, xmax, ymax, "
            "difficult]), paddle.data_type.dense_vector_sequence(6)."
        )
    if (spec.seq_level == 1 and spec.size != 6) or spec.size % 6:
        raise LayerConfigError(
            f"{where}: label has size {spec.size}; expected 6 per box ([class, xmin, ymin, "
            "xmax, ymax, difficult]) as a sequence, paddle.data_type.dense_vector_sequence(6)."
        )


def packed_label_rows(label: Any) -> Any:
    """A label sequence of rows of ``W != 6`` values as v2's ``MultiBoxLossLayer`` reads it:
    box ``j`` of image ``n`` is the 6 values starting at ``(start_n + j) * 6`` of the
    batch's label values laid end to end (``start_n``: the image's first row), whatever
    ``W`` is. Returns the sequence of those ``[B, T, 6]`` rows (same lengths)."""
    data, lengths = label.data, label.lengths.astype(jnp.int32)
    width = data.shape[-1]
    ends = jnp.cumsum(lengths)
    starts = ends - lengths
    box = starts[:, None] + jnp.arange(data.shape[1])[None, :]  # [B, T]
    flat = box[..., None] * 6 + jnp.arange(6)[None, None, :]  # [B, T, 6]
    row, col = flat // width, flat % width
    image = jnp.clip(jnp.searchsorted(ends, row, side="right"), 0, data.shape[0] - 1)
    step = jnp.clip(row - starts[image], 0, data.shape[1] - 1)
    return label._replace(data=data[image, step, col])


def check_loss_label_spec(spec: Spec) -> None:
    """The label of ``multibox_loss``. v2's config parser did not look at it, and its layer
    read the label's values 6 per box (see ``packed_label_rows``): a sequence of rows of
    another width ``>= 6`` ran on misread boxes (``kinds.suspicious``); other labels failed when
    run (``kinds.cannot_run``; a non-sequence label of ``6 * G`` values is paddle_lite's own)."""
    usage = (
        "expected a dense sequence of size 6 per box ([class, xmin, ymin, xmax, ymax, "
        "difficult]), paddle.data_type.dense_vector_sequence(6)."
    )
    if spec.dtype != "float32" or spec.seq_level > 1:
        kinds.cannot_run(
            f"label holds {spec.dtype} values at sequence level {spec.seq_level}; " + usage
        )
    elif spec.seq_level == 0 and spec.size % 6:
        kinds.cannot_run(f"label has size {spec.size}, not 6 per box; " + usage)
    elif spec.seq_level == 1 and spec.size < 6:
        kinds.cannot_run(f"label has size {spec.size}, less than the 6 values of a box; " + usage)
    elif spec.seq_level == 1 and spec.size != 6:
        kinds.suspicious(
            f"label has size {spec.size}; v2 reads the label's values 6 per box, so box j "
            "of an image is the 6 values from (its first row + j) * 6 of the batch's label "
            "values laid end to end, not a box of the declared rows; " + usage
        )
