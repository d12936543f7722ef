"""``seq_slice``: one or several slices of every sequence, by start and/or end indices.

Each sequence (each sub-sequence of a nested input) has a row of ``K`` float indices
in ``starts`` and/or ``ends``; slice ``k`` is steps ``starts_k .. ends_k`` (both
included; from step 0 without ``starts``, to the last step without ``ends``), and a
row's slices end at its first ``-1``. As in v2's SequenceSliceLayer:

- a sequence with ``K = 1`` gives a sequence (a sequence without a slice gives an
  empty one, where v2 drops it from the batch);
- a sequence with ``K > 1`` gives a nested sequence of its slices (v2 returns each
  slice as a sequence of its own, so layers after it see ``B*K`` samples there);
- a nested sequence gives a nested sequence: the slices of its sub-sequences, in
  order, padded to ``S*K`` sub-sequences.

Index rows go to the (sub-)sequences in batch order, as in v2: the ``r``-th row (one
per sample of a non-sequence, or the valid steps of a sequence one after another)
indexes the ``r``-th (sub-)sequence of the batch. Slices keep the input's padded
length ``T``. Steps of a slice outside its (sub-)sequence are zero (v2 read the rows
of the sequences after it in the batch, or past the batch's end).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.sequence.select import batch_rows, index_prefix, refuse_level
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq


def _as_nested(seq: Seq) -> Seq:
    """A plain sequence as a nested one with one sub-sequence per sample."""
    if seq.sub_lengths is not None:
        return seq
    ones = jnp.ones_like(seq.lengths)
    return Seq(seq.data[:, None], ones, seq.lengths[:, None])


def _slices(seq: Seq, starts: Any, ends: Any) -> tuple[Any, Any, Any]:
    """``(valid [B, S, K], begin [B, S, K], length [B, S, K])`` of every slice."""
    rows = starts if starts is not None else ends
    valid = jnp.ones(rows.shape, bool)
    begin = jnp.zeros(rows.shape, jnp.int32)
    end = jnp.broadcast_to(seq.sub_lengths[..., None] - 1, rows.shape)
    if starts is not None:
        begin, ok = index_prefix(starts)
        valid = valid & ok
    if ends is not None:
        end, ok = index_prefix(ends)
        valid = valid & ok
    n_sub = rows.shape[1]
    valid = valid & (jnp.arange(n_sub)[None, :, None] < seq.lengths[:, None, None])
    length = jnp.clip(end - begin + 1, 0, seq.data.shape[2])
    return valid, begin, jnp.where(valid, length, 0)


def pack_valid(valid: Any) -> tuple[Any, Any]:
    """``(source, count)``: for each output slot the flat index of the slice that
    fills it (valid slices in order, sub-sequence by sub-sequence), and the count."""
    b, n = valid.shape
    rank = jnp.cumsum(valid, axis=1) - 1
    slot = jnp.where(valid, rank, n)
    source = jnp.zeros((b, n), jnp.int32)
    source = source.at[jnp.arange(b)[:, None], slot].set(
        jnp.broadcast_to(jnp.arange(n, dtype=jnp.int32), (b, n)), mode="drop"
    )
    return source, valid.sum(axis=1).astype(jnp.int32)


def slice_sequences(seq: Seq, starts: Any, ends: Any) -> Seq:
    """The nested sequence of all slices ``[B, S*K, T, D]`` (see the module doc)."""
    nested = _as_nested(seq)
    n_sub, t = nested.data.shape[1], nested.data.shape[2]
    starts = None if starts is None else batch_rows(starts, nested.lengths, n_sub)
    ends = None if ends is None else batch_rows(ends, nested.lengths, n_sub)
    valid, begin, length = _slices(nested, starts, ends)
    k = valid.shape[-1]
    source, count = pack_valid(valid.reshape(valid.shape[0], -1))
    pick = lambda a: jnp.take_along_axis(a.reshape(a.shape[0], -1), source, axis=1)  # noqa: E731
    begin, length = pick(begin), pick(length)
    filled = jnp.arange(source.shape[1])[None, :] < count[:, None]
    length = jnp.where(filled, length, 0)
    pos = begin[..., None] + jnp.arange(t)
    rows = jnp.arange(seq.data.shape[0])[:, None, None]
    data = nested.data[rows, (source // k)[..., None], jnp.clip(pos, 0, t - 1)]
    inside = jnp.take_along_axis(nested.sub_lengths, source // k, axis=1)[..., None]
    keep = (jnp.arange(t) < length[..., None]) & (pos >= 0) & (pos < inside)
    return Seq(jnp.where(keep[..., None], data, 0.0), count, length)


class SeqSliceKind(Kind):
    name = "seq_slice"

    def infer_spec(self, inputs, attrs):
        inp, *indices = inputs
        base.expect(inp)
        refuse_level(inp, "input", (1, 2), "a sequence or a nested sequence")
        names = self._index_names(attrs)
        widths = set()
        for spec, arg in zip(indices, names, strict=True):
            base.expect(spec, arg)
            refuse_level(spec, arg, (0, 1), "rows of indices (one row per sequence)")
            widths.add(spec.size)
        if len(widths) > 1:
            raise LayerConfigError(
                f"starts and ends must have the same width; received {indices[0].size} and "
                f"{indices[1].size}."
            )
        nested = inp.seq_level == 2 or widths.pop() > 1
        return Spec(inp.size, seq_level=2 if nested else 1)

    @staticmethod
    def _index_names(attrs):
        first = attrs["select_first"]
        return ("starts", "ends") if first is None else ("starts",) if first else ("ends",)

    def apply(self, params, inputs, attrs, *, key, mode):
        seq, *indices = inputs
        given = dict(zip(self._index_names(attrs), indices, strict=True))
        out = slice_sequences(seq, given.get("starts"), given.get("ends"))
        if seq.sub_lengths is None and out.data.shape[1] == 1:
            return Seq(out.data[:, 0], out.sub_lengths[:, 0])
        return out


register_kind(SeqSliceKind())


@base.layer_function
def seq_slice(
    input: Layer,
    starts: Layer | None,
    ends: Layer | None,
    name: str | None = None,
) -> Layer:
    """Slices of each sequence, from ``starts`` and/or to ``ends`` (both included).

    Slice ``k`` of a sequence ``x`` is ``[x_{s_k}, ..., x_{e_k}]`` with ``s_k`` from
    ``starts`` (0 when ``starts`` is None) and ``e_k`` from ``ends`` (the last step
    when ``ends`` is None); a row of indices ends at its first ``-1``.

    Args:
        input: a dense sequence or nested sequence layer.
        starts: float start indices, a row of ``K`` per sequence (per sub-sequence of
            a nested input), taken in batch order: e.g. ``kmax_seq_score`` of a
            sequence (a row per sample) or of a nested sequence (a sequence of rows,
            one per sub-sequence). None for none.
        ends: end indices of the same shape as ``starts``, or None (not both None).
        name: the layer name (default ``__seq_slice_layer_<n>__``).

    Returns:
        A layer of size ``input.size``: a sequence for a sequence input and ``K = 1``;
        else a nested sequence of the slices (see the module doc), ``T`` steps each.

    Example:
        >>> span = paddle.layer.data(name="span", type=paddle.data_type.dense_vector(1))
        >>> tail = paddle.layer.seq_slice(input=emb, starts=span, ends=None)
        >>> tail.size
        16
    """
    name = base.layer_name(name, "seq_slice_layer")
    inp = base.as_layer(input, layer=name, arg="input")
    if starts is None and ends is None:
        raise LayerConfigError(
            f"layer '{name}': starts and ends are both None; give at least one of them."
        )
    inputs = [inp]
    inputs += [] if starts is None else [base.as_layer(starts, layer=name, arg="starts")]
    inputs += [] if ends is None else [base.as_layer(ends, layer=name, arg="ends")]
    select_first = None if len(inputs) == 3 else starts is not None
    attrs = {"select_first": select_first}
    return base.build("seq_slice", name=name, inputs=inputs, attrs=attrs)
