"""The context window of a sequence: each step's neighbours side by side, v2's
``context_projection`` (a term of a mixed layer, ``mixed_terms``)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from paddle_lite._src.layers.sequence.reshape import as_steps, from_outer_steps, outer_steps
from paddle_lite._src.values import Seq


def context_padding_rows(context_start: int, context_len: int) -> tuple[int, int]:
    """``(rows before the start, rows after the end)`` of trainable context padding."""
    return max(0, -context_start), max(0, context_start + context_len - 1)


def context_window(x: Any, context_start: int, context_len: int, padding: Any = None) -> Any:
    """The context of every step: ``out_t = [x_{t+s}, ..., x_{t+s+len-1}]``, ``s = context_start``.

    A position ``p`` outside ``[0, len_b)`` gives zeros, or with ``padding`` (rows
    ``[before + after, D]``) the row ``p + before`` when ``p < 0`` and
    ``before + p - len_b`` when ``p >= len_b`` (v2's ContextProjection). A nested
    sequence is windowed over its outer sequence, its sub-sequences one after another,
    as v2's ContextProjection read only the outer start positions.

    Returns:
        The data ``[B, T, context_len * D]`` (``[B, S, T, context_len * D]`` for a nested
        sequence, ``[B, context_len * D]`` for a non-sequence).
    """
    if isinstance(x, Seq) and x.sub_lengths is not None:
        plain, slots = outer_steps(x)
        out = context_window(plain, context_start, context_len, padding)
        return from_outer_steps(out, slots, x)
    seq = as_steps(x)
    b, t, d = seq.data.shape
    lengths = seq.lengths.astype(jnp.int32)[:, None, None]
    pos = jnp.arange(t)[:, None] + jnp.arange(context_start, context_start + context_len)[None]
    src = seq.data[:, jnp.clip(pos, 0, t - 1)]  # [B, T, len, D]
    inside = (pos >= 0)[None] & (pos[None] < lengths)
    if padding is None:
        out = jnp.where(inside[..., None], src, 0.0)
    else:
        before = context_padding_rows(context_start, context_len)[0]
        row = jnp.where(pos[None] < 0, pos[None] + before, before + pos[None] - lengths)
        pad = padding[jnp.clip(row, 0, padding.shape[0] - 1)]
        out = jnp.where(inside[..., None], src, pad)
    out = out.reshape(b, t, context_len * d)
    return out if isinstance(x, Seq) else out[:, 0]
