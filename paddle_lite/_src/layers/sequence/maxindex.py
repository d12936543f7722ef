"""``pooling(pooling_type=Max(output_max_index=True))``: where each maximum was found.

v2's ``MaxLayer`` with ``output_max_index`` writes, for each feature of each pooled
(sub-)sequence, the index of the instance holding the maximum, counted over the whole
batch's instances laid end to end (the (sub-)sequence's start position plus the step),
as a float. The first maximum wins (v2 replaces it only on a strictly greater value); an
empty (sub-)sequence gives its start position. No bias and no activation are applied,
and the layer has no gradient: v2 refuses its backward ("backward is not available when
output_max_index is set"), so differentiating through it raises ``LayerConfigError``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.values import Seq


def instance_index(value: Any) -> Any:
    """The batch-wide instance index of every step of ``value``, laid out like it:
    int32 ``[B, 1]`` (a non-sequence), ``Seq([B, T, 1])`` or nested ``Seq([B, S, T, 1])``.

    Instances are counted as v2 packs them: sample by sample, sub-sequence by
    sub-sequence, valid steps only (padding steps get indices no valid step uses)."""
    if not isinstance(value, Seq):
        return jnp.arange(value.shape[0], dtype=jnp.int32)[:, None]
    lengths = value.lengths.astype(jnp.int32)
    if value.sub_lengths is None:
        start = jnp.cumsum(lengths) - lengths
        steps = jnp.arange(value.data.shape[1], dtype=jnp.int32)
        return Seq((start[:, None] + steps[None, :])[..., None], value.lengths)
    n_sub, n_step = value.data.shape[1], value.data.shape[2]
    valid = jnp.arange(n_sub)[None, :] < lengths[:, None]
    sub = jnp.where(valid, value.sub_lengths.astype(jnp.int32), 0)
    total = sub.sum(axis=1)
    sub_start = (jnp.cumsum(total) - total)[:, None] + jnp.cumsum(sub, axis=1) - sub
    steps = jnp.arange(n_step, dtype=jnp.int32)
    index = sub_start[:, :, None] + steps[None, None, :]
    return Seq(index[..., None], value.lengths, value.sub_lengths)


def first_max_index(x: Any, mask: Any, index: Any) -> Any:
    """Per feature, ``index`` of the first valid step holding the maximum of ``x``.

    ``x [..., K, D]``, ``mask [..., K]``, ``index [..., K, 1]``; a row with no valid
    step gives the index of its first step. Returns float32 ``[..., D]``."""
    m = mask[..., None]
    top = jnp.max(jnp.where(m, x, -jnp.inf), axis=-2, keepdims=True)
    hit = m & (x == top)
    first = jnp.argmax(hit, axis=-2)
    picked = jnp.take_along_axis(jnp.broadcast_to(index, x.shape), first[..., None, :], axis=-2)
    return picked[..., 0, :].astype(jnp.float32)


def max_index(value: Any, reduce: Any, layer: str) -> Any:
    """The layer's output: ``reduce(value) -> (x, mask, lengths)`` lays out the steps
    each output row pools (and ``reduce(instance_index(value))`` their indices); any
    gradient through the result raises ``LayerConfigError`` naming ``layer``."""
    return _indices(layer, reduce, value)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def _indices(layer: str, reduce: Any, value: Any) -> Any:
    x, mask, lengths = reduce(value)
    index, _, _ = reduce(instance_index(value))
    out = first_max_index(x, mask, index)
    return out if lengths is None else Seq(out, lengths)


def _indices_fwd(layer: str, reduce: Any, value: Any) -> tuple[Any, None]:
    return _indices(layer, reduce, value), None


def _indices_bwd(layer: str, reduce: Any, residuals: None, grad: Any) -> Any:
    raise LayerConfigError(
        f"layer '{layer}' (max): pooling with Max(output_max_index=True) has no gradient "
        "(v2: 'backward is not available when output_max_index is set'); it can be "
        "inferred but not trained through. Use Max() to pool the values."
    )


_indices.defvjp(_indices_fwd, _indices_bwd)
