"""Sequence reshaping: concatenation in time, expansion over steps, reshaping of steps,
and the sliding context window of ``context_projection``.

As in ``sequence``, only the valid steps are read (the padding may hold anything)
and a non-sequence input counts as a batch of one-step sequences.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import jax.numpy as jnp
import numpy as np

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Linear, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerConfigWarning, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, LengthRule, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.sequence.aggregate import ExpandLevel, bucket
from paddle_lite._src.specs import Spec
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import Seq, Sparse, data_of, step_mask, with_data


def as_steps(value: Any) -> Seq:
    """A plain sequence: a non-sequence ``[B, D]`` becomes one-step sequences, a nested
    one its outer sequences (``outer_steps``)."""
    if isinstance(value, Seq):
        return value if value.sub_lengths is None else outer_steps(value)[0]
    return Seq(value[:, None, :], jnp.ones(value.shape[:1], jnp.int32))


def _bias_decl(attrs: Any, size: int) -> list[ParamDecl]:
    if not attrs["bias"]:
        return []
    return [ParamDecl("wbias", (1, size), BiasAttr(), attrs_mod.SMART)]


def _add_bias(params: Any, attrs: Any, out: Any) -> Any:
    if not attrs["bias"]:
        return out
    return with_data(out, data_of(out) + params["wbias"][0])


def outer_steps(seq: Seq) -> tuple[Seq, Any]:
    """A nested sequence as v2's layers that read only its outer start positions saw it:
    each sample's sub-sequences one after another, one plain sequence ``[B, S*T, ...]``.

    Returns:
        ``(plain, slots)``: ``slots`` ``[B, S*T]`` is the plain position of each nested
        step (``S*T`` for padding); ``from_outer_steps`` puts a result back.
    """
    b, s, t = seq.data.shape[:3]
    feat = seq.data.shape[3:]
    mask = step_mask(seq)
    starts = jnp.cumsum(seq.sub_lengths, axis=1) - seq.sub_lengths
    slots = jnp.where(mask, starts[:, :, None] + jnp.arange(t), s * t).reshape(b, s * t)
    flat = jnp.zeros((b, s * t + 1, *feat), seq.data.dtype)
    flat = flat.at[jnp.arange(b)[:, None], slots].set(seq.data.reshape(b, s * t, *feat))
    lengths = jnp.sum(jnp.where(mask.any(axis=2), seq.sub_lengths, 0), axis=1)
    return Seq(flat[:, : s * t], lengths.astype(jnp.int32)), slots


def from_outer_steps(data: Any, slots: Any, nested: Seq) -> Any:
    """``data`` ``[B, S*T, ...]`` over ``outer_steps``' plain sequence, back in the
    nested layout ``[B, S, T, ...]`` of ``nested`` (zero at its padding)."""
    b, s, t = nested.data.shape[:3]
    data = jnp.concatenate([data, jnp.zeros_like(data[:, :1])], axis=1)
    return data[jnp.arange(b)[:, None], slots].reshape(b, s, t, *data.shape[2:])


# seq_concat ------------------------------------------------------------------------
class SeqConcatKind(Kind):
    name = "seqconcat"

    def infer_spec(self, inputs, attrs):
        a, b = inputs
        for spec, arg in ((a, "a"), (b, "b")):
            base.expect(spec, arg)
        if a.size != b.size:
            raise LayerConfigError(
                f"a and b must have the same size; received a.size={a.size}, b.size={b.size}."
            )
        return Spec(a.size, seq_level=1)

    def param_specs(self, inputs, attrs):
        return _bias_decl(attrs, inputs[0].size)

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = (as_steps(v) for v in inputs)
        ta, tb = a.data.shape[1], b.data.shape[1]
        la = a.lengths[:, None]
        t = jnp.arange(bucket(ta + tb))[None, :]
        rows = jnp.arange(a.data.shape[0])[:, None]
        from_a = a.data[rows, jnp.clip(t, 0, ta - 1)]
        from_b = b.data[rows, jnp.clip(t - la, 0, tb - 1)]
        out = jnp.where((t < la)[..., None], from_a, from_b)
        return _add_bias(params, attrs, Seq(out, a.lengths + b.lengths))


register_kind(SeqConcatKind())


@base.layer_function
def seq_concat(
    a: Layer,
    b: Layer,
    act: BaseActivation | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
) -> Layer:
    """Concatenate two sequences in time: the valid steps of ``a``, then those of ``b``.

    ``out_b = act([a_b,0 .. a_b,la-1, b_b,0 .. b_b,lb-1] + bias)``, of length
    ``la + lb``; the padded length is the power of two >= ``T_a + T_b``.

    Args:
        a, b: dense sequence layers of equal size (a non-sequence counts as
            one-step sequences; a nested one, as in v2, as its sub-sequences one after
            another: the output is a plain sequence).
        act: activation (default ``Identity``).
        name: the layer name (default ``__seqconcat_<n>__``).
        bias_attr: ``None`` (default) or ``False`` no bias; ``True`` or a ``Param`` adds one.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A sequence layer of size ``a.size``; bias ``[1, size]``.

    Example:
        >>> tag_emb = paddle.layer.embedding(input=tags, size=16)
        >>> both = paddle.layer.seq_concat(a=emb, b=tag_emb)
        >>> both.size
        16
    """
    name = base.layer_name(name, "seqconcat")
    inputs = [base.as_layer(a, layer=name, arg="a"), base.as_layer(b, layer=name, arg="b")]
    attrs = {
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    return base.build("seqconcat", name=name, inputs=inputs, attrs=attrs, bias=bias)


# expand ----------------------------------------------------------------------------
def _steps_shape(value: Any) -> tuple[int, ...]:
    """The time axes ``(B, T)`` or ``(B, S, T)`` of a sequence value of any dtype."""
    data = value.data.ids if isinstance(value.data, Sparse) else value.data
    return tuple(data.shape[: 3 if value.sub_lengths is not None else 2])


class _ExpandChecks(HostChecks):
    def aligned_inputs(self, inputs, attrs):
        """``FROM_SEQUENCE`` pairs step ``s`` of ``input`` with sub-sequence ``s`` of
        ``expand_as``: each sample needs as many of both (v2 paired the batch's rows)."""
        return (0, 1) if (inputs[0].seq_level, inputs[1].seq_level) == (1, 2) else ()


class ExpandKind(Kind):
    name = "expand"
    host = _ExpandChecks(aligns_rows=True, lengths_of=1)  # the output has expand_as's lengths

    def infer_spec(self, inputs, attrs):
        inp, like = inputs
        base.expect(inp)
        want = (0, None) if attrs["expand_level"] == ExpandLevel.FROM_NO_SEQUENCE else (1, 2)
        if inp.seq_level != want[0] or (want[1] is not None and like.seq_level != want[1]):
            # v2's config parser took any levels; its ExpandLayer failed when run
            base.cannot_run(
                f"expand_level {attrs['expand_level']!r} expands a "
                + (
                    "non-sequence input (seq_level 0)"
                    if want[1] is None
                    else "sequence input (seq_level 1) over a nested expand_as (seq_level 2)"
                )
                + f"; received input seq_level {inp.seq_level}, expand_as seq_level "
                f"{like.seq_level} (v2's ExpandLayer wants one input row per "
                + ("sequence" if want[1] is None else "sub-sequence")
                + " of expand_as)."
            )
        return Spec(inp.size, seq_level=like.seq_level)

    def param_specs(self, inputs, attrs):
        return _bias_decl(attrs, inputs[0].size)

    def apply(self, params, inputs, attrs, *, key, mode):
        x, like = inputs
        if not isinstance(like, Seq):
            return _add_bias(params, attrs, x)
        shape = _steps_shape(like)
        if attrs["expand_level"] == ExpandLevel.FROM_NO_SEQUENCE:
            rows = x.reshape(x.shape[:1] + (1,) * (len(shape) - 1) + x.shape[-1:])
        else:
            sub = jnp.clip(jnp.arange(shape[1]), 0, x.data.shape[1] - 1)
            rows = x.data[:, sub, None, :]
        out = jnp.broadcast_to(rows, shape + rows.shape[-1:])
        return _add_bias(params, attrs, Seq(out, like.lengths, like.sub_lengths))


register_kind(ExpandKind())


@base.layer_function
def expand(
    input: Layer,
    expand_as: Layer,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = False,
    expand_level: str = ExpandLevel.FROM_NO_SEQUENCE,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Repeat a vector over the steps of another layer: ``out_{b,t} = x_b + bias``.

    With ``FROM_NO_SEQUENCE`` each sample's vector fills every step of ``expand_as``
    (a sequence or a nested sequence); with ``FROM_SEQUENCE`` step ``s`` of the
    sequence ``input`` fills every step of sub-sequence ``s`` of the nested
    ``expand_as`` (``input`` needs one step per sub-sequence).

    Args:
        input: a dense layer (a sequence for ``FROM_SEQUENCE``).
        expand_as: the layer whose sequence structure the output takes.
        name: the layer name (default ``__expand_layer_<n>__``).
        bias_attr: only a ``Param`` adds a bias (v2: ``True`` does not).
        expand_level: ``ExpandLevel.FROM_NO_SEQUENCE`` (default) or ``FROM_SEQUENCE``.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``input.size`` with ``expand_as``'s lengths and sequence level.

    Example:
        >>> tiled = paddle.layer.expand(input=x, expand_as=emb)
        >>> tiled.size
        8
    """
    name = base.layer_name(name, "expand_layer")
    inputs = [
        base.as_layer(input, layer=name, arg="input"),
        base.as_layer(expand_as, layer=name, arg="expand_as"),
    ]
    if expand_level not in (ExpandLevel.FROM_NO_SEQUENCE, ExpandLevel.FROM_SEQUENCE):
        raise LayerTypeError(
            f"layer '{name}': expand_level must be ExpandLevel.FROM_NO_SEQUENCE ('non-seq') or "
            f"ExpandLevel.FROM_SEQUENCE ('seq'); received {expand_level!r}."
        )
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    bias = None
    if isinstance(bias_attr, attrs_mod.ParamAttr):
        bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    attrs = {"expand_level": expand_level}
    return base.build("expand", name=name, inputs=inputs, attrs=attrs, bias=bias)


# seq_reshape -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class WholeSteps(LengthRule):
    """Each sequence of ``width``-value steps re-cut into steps of ``new_width`` values
    fills whole new steps: ``length * width`` is a multiple of ``new_width``."""

    position: int
    width: int
    new_width: int

    def broken(self, lengths: np.ndarray) -> np.ndarray:
        return lengths * self.width % self.new_width != 0

    def says(self, row: int, length: int) -> str:
        return (
            f"has {length} steps of {self.width} values in sample {row}: "
            f"{length * self.width} values, not a multiple of the new step width "
            f"{self.new_width}. v2's SequenceReshapeLayer stopped on such a sequence; give "
            f"each sequence a length whose values fill whole steps of {self.new_width}."
        )


class _ReshapeChecks(HostChecks):
    def length_rules(self, inputs, attrs):
        if inputs[0].seq_level != 1:
            return ()
        return (WholeSteps(0, inputs[0].size, attrs["reshape_size"]),)


class SeqReshapeKind(Kind):
    name = "seqreshape"
    host = _ReshapeChecks()

    def infer_spec(self, inputs, attrs):
        (inp,) = inputs
        base.expect(inp)
        n = attrs["reshape_size"]
        if inp.seq_level == 0 and inp.size % n:
            raise LayerConfigError(
                f"a non-sequence input of size {inp.size} cannot be cut into steps of "
                f"reshape_size {n}; expected a divisor of {inp.size}."
            )
        return Spec(n, seq_level=1)

    def param_specs(self, inputs, attrs):
        return _bias_decl(attrs, attrs["reshape_size"])

    def apply(self, params, inputs, attrs, *, key, mode):
        seq, n = as_steps(inputs[0]), attrs["reshape_size"]
        b, t, m = seq.data.shape
        steps = bucket(-(-t * m // n))
        flat = seq.data.reshape(b, t * m)
        flat = jnp.pad(flat, ((0, 0), (0, steps * n - t * m)))
        out = Seq(flat.reshape(b, steps, n), seq.lengths * m // n)
        return _add_bias(params, attrs, out)


register_kind(SeqReshapeKind())


@base.layer_function
def seq_reshape(
    input: Layer,
    reshape_size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
) -> Layer:
    """Re-cut each sequence's values into steps of width ``N = reshape_size``.

    A sequence of ``T`` steps of width ``M`` holds ``T*M`` values in step order; the
    output holds the same values as ``T*M/N`` steps of width ``N``. ``T*M`` must be a
    multiple of ``N`` for every sequence, as in v2: a data sequence that is not is a
    ``DataError`` naming the sample; for lengths computed on the device a trailing
    partial step is dropped (the length is ``floor(T*M/N)``).

    Args:
        input: a dense sequence layer (a non-sequence is one step: its size must be a
            multiple of ``reshape_size``; a nested one, as in v2, is re-cut over each
            sample's sub-sequences one after another, into a plain sequence).
        reshape_size: the new step width ``N``.
        act: accepted and, as in v2 (whose ``seq_reshape_layer`` never passed it on),
            not applied: the output is linear (a ``LayerConfigWarning`` says so for
            another activation).
        name: the layer name (default ``__seqreshape_<n>__``).
        bias_attr: ``None`` (default) or ``False`` no bias; ``True`` or a ``Param`` adds one.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A sequence layer of size ``reshape_size``; bias ``[1, reshape_size]``.

    Example:
        >>> pairs = paddle.layer.seq_reshape(input=emb, reshape_size=2 * emb.size)
        >>> pairs.size
        32
    """
    name = base.layer_name(name, "seqreshape")
    inp = base.as_layer(input, layer=name, arg="input")
    if as_activation(act, layer=name).name:
        warnings.warn(
            f"layer '{name}' (seq_reshape): v2's seq_reshape_layer took act={act!r} but "
            "never passed it to its layer, so the output is linear, in v2 and here; apply "
            "the activation in the layer that reads this one.",
            LayerConfigWarning,
            stacklevel=user_stacklevel(),
        )
    attrs = {
        "reshape_size": base.positive_int(reshape_size, layer=name, arg="reshape_size"),
        "act": Linear(),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    return base.build("seqreshape", name=name, inputs=[inp], attrs=attrs, bias=bias)
