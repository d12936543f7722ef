"""Running a step function over padded sequences: the scan under recurrent, lstmemory, grumemory.

``scan_sequence`` runs one ``lax.scan`` over time and ignores padding exactly: at a
padded step the state is carried unchanged and the output is 0; ``reverse=True`` runs
every sequence from its own last valid step back to its first (each sequence is
reversed within its length, scanned forward and reversed back). A nested sequence is run
as v2 ran it, over each whole outer sequence: its sub-sequences' steps one after another,
the state carried across their boundaries, the output keeping the nesting. ``as_sequence`` and
``like_input`` let the layers take plain ``[B, n]`` values as one-step sequences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.values import Seq, step_mask


def as_sequence(value: Any) -> Seq:
    """``value`` as a sequence: a plain ``[B, n]`` array becomes one-step sequences."""
    data = value.data if isinstance(value, Seq) else value
    if not jnp.issubdtype(data.dtype, jnp.floating):
        raise LayerConfigError(
            "a recurrent layer received integer ids; it needs dense values. Project the ids "
            "first (paddle.layer.embedding, fc or mixed)."
        )
    if isinstance(value, Seq):
        return value
    return Seq(value[:, None, :], jnp.ones(value.shape[:1], jnp.int32))


def like_input(value: Any, out: Seq) -> Any:
    """``out`` shaped like the layer's input: plain values stay plain."""
    return out if isinstance(value, Seq) else out.data[:, 0, :]


def reverse_within_length(data: Any, lengths: Any) -> Any:
    """Reverse each sequence of ``data`` ``[B, T, ...]`` within its own length.

    Step ``t < length`` takes step ``length - 1 - t``; padded steps stay in place, so
    applying it twice gives back ``data``.
    """
    steps = jnp.arange(data.shape[1])[None, :]
    idx = jnp.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)
    idx = idx.reshape(idx.shape + (1,) * (data.ndim - 2))
    return jnp.take_along_axis(data, idx, axis=1)


def scan_sequence(step: Callable, carry: Any, seq: Seq, reverse: bool) -> Any:
    """Run ``step(carry, x_t) -> (carry, out_t)`` over the valid steps of ``seq``.

    Padded steps carry the state unchanged and output 0; their inputs are zeroed
    first so garbage there reaches neither the values nor the gradients.

    Returns:
        The outputs ``[B, T, out]`` (``[B, S, T, out]`` for a nested sequence), aligned
        with the input steps.
    """
    if seq.sub_lengths is not None:
        return _scan_nested(step, carry, seq, reverse)
    mask = step_mask(seq)
    xs = jnp.where(mask[:, :, None], seq.data, 0.0)
    if reverse:
        xs = reverse_within_length(xs, seq.lengths)

    outs = _masked_scan(step, carry, xs, mask)
    return reverse_within_length(outs, seq.lengths) if reverse else outs


def _scan_nested(step: Callable, carry: Any, seq: Seq, reverse: bool) -> Any:
    """``scan_sequence`` over a nested sequence: one scan over its ``S * T`` slots, the
    padding slots (between and after sub-sequences) carrying the state unchanged, so the
    valid steps run in order, or backwards with ``reverse``, as one sequence."""
    b, s, t = seq.data.shape[:3]
    inner = jnp.arange(t)[None, None, :] < seq.sub_lengths[:, :, None]
    outer = jnp.arange(s)[None, :, None] < seq.lengths[:, None, None]
    mask = (inner & outer).reshape(b, s * t)
    xs = jnp.where(mask[:, :, None], seq.data.reshape(b, s * t, -1), 0.0)

    return _masked_scan(step, carry, xs, mask, reverse).reshape(b, s, t, -1)


def _masked_scan(step: Callable, carry: Any, xs: Any, mask: Any, reverse: bool = False) -> Any:
    """``step`` scanned over the steps of ``xs`` ``[B, T, ...]`` (backwards with
    ``reverse``); where ``mask`` ``[B, T]`` is False the state is kept and the output is 0."""

    def body(state, inp):
        x_t, m_t = inp
        new_state, out = step(state, x_t)
        keep = m_t[:, None]
        state = jax.tree_util.tree_map(lambda n, o: jnp.where(keep, n, o), new_state, state)
        return state, jnp.where(keep, out, 0.0)

    _, outs = lax.scan(body, carry, (jnp.swapaxes(xs, 0, 1), mask.T), reverse=reverse)
    return jnp.swapaxes(outs, 0, 1)


def zero_state(seq: Seq, width: int) -> Any:
    """A zero state ``[B, width]`` in the dtype of ``seq``."""
    return jnp.zeros((seq.data.shape[0], width), seq.data.dtype)
