"""Shared type aliases and the device representation of sequence values."""

from __future__ import annotations

from typing import Any, NamedTuple, Union

import jax
import jax.numpy as jnp

Array = jax.Array
Shape = tuple[int, ...]
# The feed of per-row weights of a padded batch (float ``[batch]``: 1 a real row, 0 a
# padding row); a batch without it has only real rows.
VALID = "__valid__"


class Seq(NamedTuple):
    """A padded batch of sequences (a jax pytree).

    ``data`` is ``[batch, T, ...]`` (``T`` is a bucketed maximum length),
    ``lengths`` is int32 ``[batch]``. Nested sequences also carry
    ``sub_lengths`` int32 ``[batch, S]`` (steps per sub-sequence) and then ``data`` is
    ``[batch, S, T, ...]``. Steps at or beyond a length are padding and are ignored.
    """

    data: Any
    lengths: Any
    sub_lengths: Any = None


Value = Union[Array, Seq]  # noqa: UP007 - a runtime alias on Python 3.10


class Sparse(NamedTuple):
    """A padded batch of sparse vectors (a jax pytree).

    ``ids`` int32 ``[batch, K]`` and ``values`` float32 ``[batch, K]``; padding
    entries have id 0 and value 0, so ``sum_k values * W[ids]`` ignores them. Binary
    (non-value) inputs have value 1 for every real id.
    """

    ids: Any
    values: Any


def data_of(value: Any) -> Any:
    """The array inside a value (the padded data of a sequence)."""
    return value.data if isinstance(value, Seq) else value


def with_data(template: Any, data: Any) -> Any:
    """``data`` wrapped like ``template``: a sequence keeps its lengths."""
    return template._replace(data=data) if isinstance(template, Seq) else data


def step_mask(seq: Seq) -> Any:
    """Bool mask of the valid steps: ``[B, T]``, or ``[B, S, T]`` for nested sequences."""
    if seq.sub_lengths is None:
        return jnp.arange(seq.data.shape[1])[None, :] < seq.lengths[:, None]
    n_sub, n_step = seq.data.shape[1], seq.data.shape[2]
    outer = jnp.arange(n_sub)[None, :] < seq.lengths[:, None]
    inner = jnp.arange(n_step)[None, None, :] < seq.sub_lengths[:, :, None]
    return outer[:, :, None] & inner
