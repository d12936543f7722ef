"""Selecting parts of sequences by index: the top-k steps of a score sequence
(``kmax_seq_score``), chosen sub-sequences of a nested sequence (``sub_nested_seq``)
and one window per sequence (``sub_seq``).

v2 passes selected indices as dense float rows (its C++ casts them to int) in which
``-1`` means "no index": a row's indices end at its first ``-1``. Outputs whose length
varies per sample keep the input's padded bound (``T`` steps; ``K`` sub-sequences for
``K`` indices), so a network compiles once per input shape; steps past a length are
padding, and are zero here.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, as_activation
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, step_mask


def index_prefix(indices: Any) -> tuple[Any, Any]:
    """``(int32 indices, valid)`` of float index rows ``[..., K]``.

    ``valid`` marks the entries before a row's first ``-1`` (v2 stops reading a row
    there); floats are truncated to int as v2's C++ casts them.
    """
    valid = jnp.cumprod(indices != -1, axis=-1).astype(bool)
    return indices.astype(jnp.int32), valid


def batch_rows(value: Any, counts: Any, n_slots: int) -> Any:
    """Index rows ``[B, n_slots, K]`` matched to (sub-)sequences as v2 matches them.

    v2 reads the rows of ``value`` in batch order (one per sample, or the valid steps
    of a sequence one after another) and gives the ``r``-th row to the ``r``-th
    (sub-)sequence of the batch; sample ``b`` has ``counts[b]`` of those. Slots past a
    count, or past the rows given, hold ``-1``.
    """
    if isinstance(value, Seq):
        b, t = value.data.shape[:2]
        flat = jnp.asarray(value.data).reshape(b * t, -1)
        ends = jnp.cumsum(value.lengths)
        total = ends[-1]
    else:
        flat, total = jnp.asarray(value), value.shape[0]
    counts = counts.astype(jnp.int32)
    r = (jnp.cumsum(counts) - counts)[:, None] + jnp.arange(n_slots)[None, :]
    valid = (jnp.arange(n_slots)[None, :] < counts[:, None]) & (r < total)
    if isinstance(value, Seq):
        sample = jnp.clip(jnp.searchsorted(ends, r, side="right"), 0, b - 1)
        r = sample * t + r - (ends - value.lengths)[sample]
    rows = flat[jnp.clip(r, 0, flat.shape[0] - 1)]
    return jnp.where(valid[..., None], rows, -1.0)


def refuse_level(spec: Spec, arg: str, levels: tuple[int, ...], what: str) -> None:
    """Refuse ``spec`` unless its sequence level is one of ``levels``."""
    if spec.seq_level not in levels:
        names = {0: "a non-sequence", 1: "a sequence", 2: "a nested sequence"}
        raise LayerConfigError(
            f"{arg} is {names[spec.seq_level]} (seq_level {spec.seq_level}); expected {what}."
        )


def _zero_padding(seq: Seq) -> Seq:
    mask = step_mask(seq)
    return seq._replace(data=jnp.where(mask[..., None], seq.data, 0.0))


# kmax_seq_score ----------------------------------------------------------------------
def top_k_steps(scores: Any, lengths: Any, k: int) -> Any:
    """Indices ``[..., k]`` of the ``k`` largest of ``scores [..., T]`` among the first
    ``lengths`` steps, best first (ties: the earlier step first); ``-1`` past a length."""
    t = scores.shape[-1]
    valid = jnp.arange(t) < lengths[..., None]
    masked = jnp.where(valid, scores, -jnp.inf)
    if t < k:
        pad = [(0, 0)] * (masked.ndim - 1) + [(0, k - t)]
        masked = jnp.pad(masked, pad, constant_values=-jnp.inf)
    _, idx = jax.lax.top_k(jax.lax.stop_gradient(masked), k)
    found = jnp.arange(k) < jnp.minimum(lengths, t)[..., None]
    return jnp.where(found, idx, -1).astype(jnp.float32)


class KmaxSeqScoreKind(Kind):
    name = "kmax_seq_score"
    v2 = V2Layer(size=0)  # v2 writes no size

    def infer_spec(self, inputs, attrs):
        (inp,) = inputs
        base.expect(inp, size=1, why=" (one score per step)")
        refuse_level(inp, "input", (1, 2), "a sequence or a nested sequence of scores")
        return Spec(attrs["beam_size"], seq_level=inp.seq_level - 1)

    def apply(self, params, inputs, attrs, *, key, mode):
        seq = inputs[0]
        scores = seq.data[..., 0]
        if seq.sub_lengths is None:
            return top_k_steps(scores, seq.lengths, attrs["beam_size"])
        rows = jnp.arange(scores.shape[1])[None, :] < seq.lengths[:, None]
        lengths = jnp.where(rows, seq.sub_lengths, 0)
        return Seq(top_k_steps(scores, lengths, attrs["beam_size"]), seq.lengths)


register_kind(KmaxSeqScoreKind())


@base.layer_function
def kmax_seq_score(input: Layer, name: str | None = None, beam_size: int = 1) -> Layer:
    """The indices of the ``beam_size`` best-scored steps of each sequence.

    For a sequence of scores ``s_0 .. s_{n-1}``: ``out = [i_0, i_1, ...]`` with
    ``s_{i_0} >= s_{i_1} >= ...`` (ties: the earlier step first), as floats; when
    ``n < beam_size`` the row ends with ``-1`` s. For a nested sequence, one row per
    sub-sequence. No gradient flows back (v2).

    Args:
        input: a sequence (or nested sequence) layer of size 1: one score per step.
        name: the layer name (default ``__kmax_seq_score_layer_<n>__``).
        beam_size: how many indices per sequence (default 1).

    Returns:
        A layer of size ``beam_size``: one row per sample for a sequence input; for a
        nested input a sequence with one row per sub-sequence.

    Example:
        >>> score = paddle.layer.fc(input=emb, size=1, act=paddle.activation.Exp())
        >>> best = paddle.layer.kmax_seq_score(input=score, beam_size=3)
        >>> best.size
        3
    """
    name = base.layer_name(name, "kmax_seq_score_layer")
    inp = base.as_layer(input, layer=name, arg="input")
    attrs = {"beam_size": base.positive_int(beam_size, layer=name, arg="beam_size")}
    return base.build("kmax_seq_score", name=name, inputs=[inp], attrs=attrs)


# sub_nested_seq ----------------------------------------------------------------------
class SubNestedSeqKind(Kind):
    name = "sub_nested_seq"

    def infer_spec(self, inputs, attrs):
        inp, sel = inputs
        base.expect(inp)
        refuse_level(inp, "input", (2,), "a nested sequence")
        base.expect(sel, "selected_indices")
        refuse_level(sel, "selected_indices", (0, 1), "rows of sub-sequence indices")
        return Spec(inp.size, seq_level=2)

    def apply(self, params, inputs, attrs, *, key, mode):
        seq, sel = inputs
        ones = jnp.ones_like(seq.lengths)
        idx, valid = index_prefix(batch_rows(sel, ones, 1)[:, 0])
        valid = valid & (idx >= 0) & (idx < seq.lengths[:, None])
        idx = jnp.clip(idx, 0, seq.data.shape[1] - 1)
        data = jnp.take_along_axis(seq.data, idx[:, :, None, None], axis=1)
        sub = jnp.where(valid, jnp.take_along_axis(seq.sub_lengths, idx, axis=1), 0)
        return _zero_padding(Seq(data, valid.sum(axis=1).astype(jnp.int32), sub))


register_kind(SubNestedSeqKind())


@base.layer_function
def sub_nested_seq(input: Layer, selected_indices: Layer, name: str | None = None) -> Layer:
    """Chosen sub-sequences of a nested sequence, in the order chosen.

    Sample ``b`` with index row ``[j_0, j_1, ..., -1, ...]`` gives the nested sequence
    ``[x_{b,j_0}, x_{b,j_1}, ...]`` (up to the first ``-1``); an index may repeat.

    Args:
        input: a nested sequence layer.
        selected_indices: a row of ``K`` float indices per sample (rows taken in batch
            order), such as ``kmax_seq_score`` over a sequence with one score per
            sub-sequence.
        name: the layer name (default ``__sub_nested_seq_layer_<n>__``).

    Returns:
        A nested sequence layer of size ``input.size`` with at most ``K``
        sub-sequences (padded to ``K``), each as long as the input's padding.

    Example:
        >>> sents = paddle.layer.data(
        ...     name="sents", type=paddle.data_type.dense_vector_sub_sequence(8))
        >>> sent_score = paddle.layer.data(
        ...     name="sent_score", type=paddle.data_type.dense_vector_sequence(1))
        >>> best = paddle.layer.kmax_seq_score(input=sent_score, beam_size=2)
        >>> picked = paddle.layer.sub_nested_seq(input=sents, selected_indices=best)
        >>> picked.size
        8
    """
    name = base.layer_name(name, "sub_nested_seq_layer")
    inputs = [
        base.as_layer(input, layer=name, arg="input"),
        base.as_layer(selected_indices, layer=name, arg="selected_indices"),
    ]
    return base.build("sub_nested_seq", name=name, inputs=inputs, attrs={})


# sub_seq -----------------------------------------------------------------------------
def first_number(value: Any) -> Any:
    """One int32 per sample from an id or dense-size-1 input, a sequence's first step."""
    data = value.data if isinstance(value, Seq) else value
    if isinstance(value, Seq):
        data = data[:, 0]
    if data.ndim == 2:
        data = data[:, 0]
    return data.astype(jnp.int32)


def window(seq: Seq, starts: Any, sizes: Any) -> Seq:
    """``out_{b,t} = x_{b, starts_b + t}`` for ``t < sizes_b`` (zero outside the input)."""
    t = seq.data.shape[1]
    pos = starts[:, None] + jnp.arange(t)[None, :]
    inside = (pos >= 0) & (pos < seq.lengths[:, None])
    rows = jnp.arange(seq.data.shape[0])[:, None]
    data = seq.data[rows, jnp.clip(pos, 0, t - 1)]
    lengths = jnp.clip(sizes, 0, t).astype(jnp.int32)
    keep = inside & (jnp.arange(t)[None, :] < lengths[:, None])
    return Seq(jnp.where(keep[..., None], data, 0.0), lengths)


def _one_number(spec: Spec, arg: str) -> None:
    base.expect(spec, arg, "dense_or_ids")
    refuse_level(spec, arg, (0, 1), "one number per sample (or a one-step sequence)")
    if spec.dtype == "float32" and spec.size != 1:
        raise LayerConfigError(
            f"{arg} is a dense input of size {spec.size}; expected ids or size 1 (one "
            "number per sequence)."
        )


def _counts_of_steps(position: int, inputs: Any, attrs: Any) -> float | None:
    """Offsets and sizes (inputs 1 and 2) are counts of steps, not ids."""
    return math.inf if position in (1, 2) else None


class SubSeqKind(Kind):
    name = "subseq"

    host = HostChecks(id_bounds=_counts_of_steps)

    def infer_spec(self, inputs, attrs):
        inp, offsets, sizes = inputs
        base.expect(inp)
        refuse_level(inp, "input", (1,), "a sequence")
        _one_number(offsets, "offsets")
        _one_number(sizes, "sizes")
        return Spec(inp.size, seq_level=1)

    def param_specs(self, inputs, attrs):
        if not attrs["bias"]:
            return []
        return [ParamDecl("wbias", (1, inputs[0].size), BiasAttr(), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        seq, offsets, sizes = inputs
        out = window(seq, first_number(offsets), first_number(sizes))
        if attrs["bias"]:
            out = out._replace(data=out.data + params["wbias"][0])
        return out


register_kind(SubSeqKind())


@base.layer_function
def sub_seq(
    input: Layer,
    offsets: Layer,
    sizes: Layer,
    act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    name: str | None = None,
) -> Layer:
    """One window of each sequence: ``out_{b,t} = act(x_{b, offset_b + t} + bias)``
    for ``t < size_b``.

    Args:
        input: a dense sequence layer.
        offsets: the first step of each window: an integer sequence with one id per
            sample (v2), or one integer / dense number per sample.
        sizes: the length of each window, given like ``offsets``.
        act: activation (default ``Linear``).
        bias_attr: only a ``paddle.attr.Param`` adds a bias (v2: ``True`` does not).
        name: the layer name (default ``__sub_seq_<n>__``).

    Returns:
        A sequence layer of size ``input.size`` with lengths ``sizes`` (padded to the
        input's ``T``); bias ``[1, size]``.

    Example:
        >>> start = paddle.layer.data(name="start", type=paddle.data_type.integer_value(100))
        >>> count = paddle.layer.data(name="count", type=paddle.data_type.integer_value(100))
        >>> part = paddle.layer.sub_seq(input=emb, offsets=start, sizes=count)
        >>> part.size
        16
    """
    name = base.layer_name(name, "sub_seq")
    inputs = [
        base.as_layer(input, layer=name, arg="input"),
        base.as_layer(offsets, layer=name, arg="offsets"),
        base.as_layer(sizes, layer=name, arg="sizes"),
    ]
    bias = None
    if isinstance(bias_attr, attrs_mod.ParamAttr):
        bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    attrs = {"act": as_activation(act, layer=name)}
    return base.build("subseq", name=name, inputs=inputs, attrs=attrs, bias=bias)
