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


def paired_rows(values: list[Any]) -> tuple[list[Any], Any]:
    """``values`` with each sequence as its one row per sample, where plain values sit
    beside sequences (v2 paired the rows of the batch: a sequence of one row per sample
    meets a plain value row for row), and a bool ``[B]`` marking the samples whose
    sequences all hold exactly one row; ``(values, None)`` when there is nothing to pair.
    """
    seqs = [isinstance(v, Seq) for v in values]
    if all(seqs) or not any(seqs):
        return list(values), None
    ok = None
    out = []
    for v in values:
        if isinstance(v, Seq):
            ok = (v.lengths == 1) if ok is None else ok & (v.lengths == 1)
            v = v.data[:, 0]
        out.append(v)
    return out, ok


def lengths_agree(seqs: list[Seq], sub_lengths: bool = False) -> Any:
    """``[B]`` bool: the samples whose sequences all have the first one's lengths (and
    sub-sequence lengths, with ``sub_lengths``, where both are nested), or None where
    there is nothing to compare: fewer than two sequences, or sequences that carry the
    very same lengths arrays (layers over one data layer pass its lengths along)."""
    if not seqs:
        return None
    first = seqs[0]
    same = [s.lengths == first.lengths for s in seqs[1:] if s.lengths is not first.lengths]
    if sub_lengths:
        same += [
            jnp.all(s.sub_lengths == first.sub_lengths, axis=1)
            for s in seqs[1:]
            if s.sub_lengths is not None
            and first.sub_lengths is not None
            and s.sub_lengths is not first.sub_lengths
        ]
    return jnp.all(jnp.stack(same), axis=0) if same else None


def nan_unless(value: Any, agree: Any) -> Any:
    """``value`` (a ``Seq`` or an array of one row per sample) with NaN in the float rows
    of the samples ``agree`` marks False; ``value`` itself when ``agree`` is None or
    ``value`` holds no floats or no row per sample.

    The host refuses inputs of other lengths when it can trace them to data layers
    (``feeding.lengths``); for lengths computed on the device this makes training's
    non-finite check stop at the layer and name its inputs' lengths, and test and infer
    show NaN, not numbers of mismatched rows."""
    data = value.data if isinstance(value, Seq) else value
    if agree is None or not hasattr(data, "dtype") or not jnp.issubdtype(data.dtype, jnp.floating):
        return value
    if data.ndim == 0 or data.shape[0] != agree.shape[0]:
        return value
    marked = jnp.where(agree.reshape(agree.shape + (1,) * (data.ndim - 1)), data, jnp.nan)
    return value._replace(data=marked) if isinstance(value, Seq) else marked


def steps_alike(values: list[Any]) -> list[Any]:
    """``values`` with their sequences of one nesting padded to the most steps (and
    sub-sequences) any of them holds. Sequences of equal lengths computed apart (a
    ``seq_concat`` beside a data layer) may be padded to other widths; a layer pairing
    their rows needs one width. Padding steps are zero and lie past every length."""
    out = list(values)
    for axes in (1, 2):
        group = [
            i
            for i, v in enumerate(values)
            if isinstance(v, Seq) and hasattr(v.data, "shape") and _axes(v) == axes
        ]
        widths = {values[i].data.shape[1 : 1 + axes] for i in group}
        if len(widths) < 2:
            continue
        width = tuple(max(w[a] for w in widths) for a in range(axes))
        for i in group:
            out[i] = padded_to(values[i], width)
    return out


def _axes(seq: Seq) -> int:
    return 1 if seq.sub_lengths is None else 2


def padded_to(seq: Seq, width: tuple[int, ...]) -> Seq:
    """``seq`` with zero steps (and sub-sequences) appended up to ``width``, the padded
    size of its step axes (``(T,)``, or ``(S, T)`` when nested; each at least its own)."""
    have = seq.data.shape[1 : 1 + len(width)]
    pad = [(0, 0)] + [(0, w - h) for w, h in zip(width, have, strict=True)]
    data = jnp.pad(seq.data, pad + [(0, 0)] * (seq.data.ndim - len(pad)))
    sub = None if seq.sub_lengths is None else jnp.pad(seq.sub_lengths, pad[:2])
    return Seq(data, seq.lengths, sub)
