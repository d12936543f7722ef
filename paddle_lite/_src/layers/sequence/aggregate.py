"""Aggregating sequences over time: masked reductions of each sequence (or of each
sub-sequence of a nested one, or of windows of ``stride`` steps), and the levels they
aggregate to (``AggregateLevel``, ``ExpandLevel``). ``pooling``, ``last_seq`` and
``first_seq`` (``sequence.pooling``) are built on them."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, step_mask


class AggregateLevel:
    """What a sequence aggregates to: ``TO_NO_SEQUENCE`` one vector per sample;
    ``TO_SEQUENCE`` one vector per sub-sequence of a nested sequence."""

    TO_NO_SEQUENCE = "non-seq"
    TO_SEQUENCE = "seq"
    EACH_TIMESTEP = TO_NO_SEQUENCE  # v0.10 names
    EACH_SEQUENCE = TO_SEQUENCE


class ExpandLevel:
    """What ``expand`` repeats: ``FROM_NO_SEQUENCE`` a per-sample vector;
    ``FROM_SEQUENCE`` a per-sub-sequence vector (a sequence) over a nested sequence."""

    FROM_NO_SEQUENCE = AggregateLevel.TO_NO_SEQUENCE
    FROM_SEQUENCE = AggregateLevel.TO_SEQUENCE
    FROM_TIMESTEP = FROM_NO_SEQUENCE  # v0.10 name


_LEVELS = (AggregateLevel.TO_NO_SEQUENCE, AggregateLevel.TO_SEQUENCE)


def bucket(n: int) -> int:
    """The smallest power of two >= max(n, 1) (padded time lengths)."""
    return 1 << max(int(n) - 1, 0).bit_length()


# masked reductions ------------------------------------------------------------------
def masked_reduce(op: str, x: Any, mask: Any) -> Any:
    """Reduce ``x [..., K, D]`` over its valid steps ``mask [..., K]`` to ``[..., D]``.

    ``op`` is ``max``, ``sum``, ``average``, ``squarerootn``, ``first`` or ``last``;
    a row with no valid step gives 0. Padding never reaches the result (nor its gradient).
    ``max`` passes its whole gradient to the first step holding the maximum, as v2's
    ``maxSequenceBackward`` did (``jnp.max`` would split it among tied steps).
    """
    any_valid = mask.any(axis=-1)[..., None]
    if op in ("first", "last"):
        if op == "first":
            idx = jnp.argmax(mask, axis=-1)
        else:
            idx = mask.shape[-1] - 1 - jnp.argmax(mask[..., ::-1], axis=-1)
        picked = jnp.take_along_axis(x, idx[..., None, None], axis=-2)[..., 0, :]
        return jnp.where(any_valid, picked, 0.0)
    m = mask[..., None]
    if op == "max":
        masked = jnp.where(m, x, -jnp.inf)
        first = jnp.argmax(masked, axis=-2)[..., None, :]
        return jnp.where(any_valid, jnp.take_along_axis(masked, first, axis=-2)[..., 0, :], 0.0)
    total = jnp.sum(jnp.where(m, x, 0.0), axis=-2)
    count = jnp.maximum(mask.sum(axis=-1), 1).astype(x.dtype)[..., None]
    if op == "average":
        return total / count
    if op == "squarerootn":
        return total / jnp.sqrt(count)
    return total


def _steps(value: Any, level: int, agg: str) -> tuple[Any, Any, Any]:
    """``(x [B, ..., K, D], mask [B, ..., K], lengths)``: the steps each output reduces.

    ``lengths`` is None when the result is one vector per sample, else the lengths of
    the resulting sequence (nested ``TO_SEQUENCE``: one vector per sub-sequence).
    """
    if level == 0:
        x = value[:, None, :]
        return x, jnp.ones(x.shape[:2], bool), None
    mask = step_mask(value)
    if level == 2 and agg == AggregateLevel.TO_SEQUENCE:
        return value.data, mask, value.lengths
    b, d = value.data.shape[0], value.data.shape[-1]
    return value.data.reshape(b, -1, d), mask.reshape(b, -1), None


def _windows(seq: Seq, stride: int, from_end: bool) -> tuple[Any, Any, Any]:
    """Windows of ``stride`` steps: ``(x [B, W, stride, D], mask [B, W, stride], counts)``.

    Sample ``b`` has ``ceil(len_b / stride)`` windows; the short one is the last
    (``from_end=False``) or the first (``from_end=True``, v2's first_seq).
    """
    b, t, d = seq.data.shape
    lengths = seq.lengths.astype(jnp.int32)
    counts = (lengths + stride - 1) // stride
    shift = counts * stride - lengths if from_end else jnp.zeros_like(lengths)
    n_win = bucket(-(-t // stride))
    src = jnp.arange(n_win * stride)[None, :] - shift[:, None]
    valid = (src >= 0) & (src < lengths[:, None])
    x = seq.data[jnp.arange(b)[:, None], jnp.clip(src, 0, t - 1)]
    return x.reshape(b, n_win, stride, d), valid.reshape(b, n_win, stride), counts


def reduction(attrs: Any, level: int, from_end: bool = False) -> Any:
    """``value -> (x, mask, lengths)``: the steps each output of the layer reduces."""
    if attrs["stride"] > 0:
        return lambda value: _windows(value, attrs["stride"], from_end)
    return lambda value: _steps(value, level, attrs["agg_level"])


def aggregate(op: str, value: Any, attrs: Any, level: int, *, from_end: bool = False) -> Any:
    """The value of an aggregation layer (before its bias)."""
    x, mask, lengths = reduction(attrs, level, from_end)(value)
    out = masked_reduce(op, x, mask)
    return out if lengths is None else Seq(out, lengths)


def aggregate_spec(spec: Spec, attrs: Any) -> Spec:
    """The output spec of an aggregation over ``spec``.

    v2's config parser accepted any input level; its ``SequencePoolLayer`` failed when
    run on a nested sequence with a stride, or on a plain sequence with ``TO_SEQUENCE``.
    Those build here too, and compiling them raises (``base.cannot_run``).
    """
    base.expect(spec)
    agg, stride, level = attrs["agg_level"], attrs["stride"], spec.seq_level
    if stride > 0:
        if level != 1:
            base.cannot_run(
                f"stride={stride} pools windows of a plain sequence; received seq_level "
                f"{level} (v2: 'sequence stride pooling is invalid for hasSubseq'). Use "
                "stride=-1 for nested sequences."
            )
        return Spec(spec.size, seq_level=1)
    if agg == AggregateLevel.TO_SEQUENCE and level == 1:
        base.cannot_run(
            "agg_level TO_SEQUENCE aggregates each sub-sequence of a nested sequence; the "
            "input is a plain sequence (seq_level 1) (v2: 'when trans_type = seq, input must "
            "hasSubseq'). Use TO_NO_SEQUENCE, or feed a nested sequence."
        )
    return Spec(spec.size, seq_level=1 if level == 2 and agg == AggregateLevel.TO_SEQUENCE else 0)


def agg_args(agg_level: Any, stride: Any, *, layer: str) -> dict[str, Any]:
    if agg_level not in _LEVELS:
        raise LayerTypeError(
            f"layer '{layer}': agg_level must be AggregateLevel.TO_NO_SEQUENCE ('non-seq') or "
            f"AggregateLevel.TO_SEQUENCE ('seq'); received {agg_level!r}."
        )
    if isinstance(stride, bool) or not isinstance(stride, int) or (stride <= 0 and stride != -1):
        raise LayerTypeError(
            f"layer '{layer}': stride must be -1 (no windows) or a positive int; "
            f"received {stride!r}."
        )
    if stride > 0 and agg_level == AggregateLevel.TO_SEQUENCE:
        raise LayerConfigError(
            f"layer '{layer}': stride={stride} needs agg_level TO_NO_SEQUENCE; sub-sequences "
            "do not support stride windows (v2)."
        )
    return {"agg_level": agg_level, "stride": stride}
