"""Sequence aggregation: pooling over time, and the first or last step of a sequence.

Sequences are padded ``Seq(data [B, T, D], lengths [B])`` (nested: ``data [B, S, T, D]``
with ``sub_lengths [B, S]``); every reduction here reads only the valid steps, so the
padding may hold anything. A non-sequence input counts as a batch of one-step
sequences (v2's convention), so these layers return it unchanged (plus a bias).
An empty sequence aggregates to 0.
"""

from __future__ import annotations

import logging
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import poolings
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.sequence import maxindex as sequence_maxindex
from paddle_lite._src.poolings import BasePoolingType
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, data_of, step_mask, with_data

_LOG = logging.getLogger(__name__)


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


def _reduction(attrs: Any, level: int, from_end: bool = False) -> Any:
    """``value -> (x, mask, lengths)``: the steps each output of the layer reduces."""
    if attrs["stride"] > 0:
        return lambda value: _windows(value, attrs["stride"], from_end)
    return lambda value: _steps(value, level, attrs["agg_level"])


def aggregate(op: str, value: Any, attrs: Any, level: int, *, from_end: bool = False) -> Any:
    """The value of an aggregation layer (before its bias)."""
    x, mask, lengths = _reduction(attrs, level, from_end)(value)
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


def _agg_args(agg_level: Any, stride: Any, *, layer: str) -> dict[str, Any]:
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


# pooling ---------------------------------------------------------------------------
_STRATEGIES = {"average": poolings.Avg, "sum": poolings.Sum, "squarerootn": poolings.SquareRootN}


def _pooling_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    strategy = _STRATEGIES[cfg.get("average_strategy", "average")]
    return pooling(
        input=ins[0],
        pooling_type=poolings.Max() if cfg["type"] == "max" else strategy(),
        name=cfg["name"],
        bias_attr=rebuild.bias(cfg),
        agg_level=cfg.get("trans_type"),
        stride=cfg.get("seq_pool_stride"),
    )


class SeqPoolKind(Kind):
    """Pooling over time; v2's layer types ``max`` and ``average``."""

    v2 = V2Layer(rebuild=_pooling_from_v2)

    def __init__(self, name: str, host: HostChecks) -> None:
        self.name, self.host = name, host

    def infer_spec(self, inputs, attrs):
        return aggregate_spec(inputs[0], attrs)

    def param_specs(self, inputs, attrs):
        if not attrs["bias"]:
            return []
        return [ParamDecl("wbias", (1, inputs[0].size), BiasAttr(), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        pool = attrs["pooling_type"]
        if isinstance(pool, poolings.Max) and pool.output_max_index:  # no bias (v2)
            reduce = _reduction(attrs, attrs["level"])
            return sequence_maxindex.max_index(inputs[0], reduce, attrs["layer"])
        op = "max" if isinstance(pool, poolings.Max) else pool.strategy
        out = aggregate(op, inputs[0], attrs, attrs["level"])
        if attrs["bias"]:
            out = with_data(out, data_of(out) + params["wbias"][0])
        return out


register_kind(SeqPoolKind("max", HostChecks(needs_a_step=True)))  # no steps: no maximum
register_kind(SeqPoolKind("average", HostChecks()))


def _pooling_type(pooling_type: Any, layer: str) -> poolings.BasePoolingType:
    pool = poolings.as_pooling(
        poolings.Max() if pooling_type is None else pooling_type, layer=layer, arg="pooling_type"
    )
    if type(pool) not in (poolings.Max, poolings.Avg, poolings.Sum, poolings.SquareRootN):
        raise LayerConfigError(
            f"layer '{layer}': sequence pooling takes Max, Avg, Sum or SquareRootN; received "
            f"{pool!r} (an image pooling type)."
        )
    return pool


@base.layer_function
def pooling(
    input: Layer,
    pooling_type: BasePoolingType | None = None,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = None,
    agg_level: str = AggregateLevel.TO_NO_SEQUENCE,
    stride: int = -1,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Pool a sequence over its valid steps: ``out = pool_{t < len} x_t + b``.

    ``Max`` takes the elementwise maximum, ``Avg()`` the mean ``sum_t x_t / len``,
    ``Avg('sum')``/``Sum`` the sum, ``Avg('squarerootn')``/``SquareRootN``
    ``sum_t x_t / sqrt(len)``. An empty sequence pools to 0 (before the bias).

    Args:
        input: a dense sequence layer (a non-sequence counts as one-step sequences).
        pooling_type: ``paddle.pooling.Max()`` (default), ``Avg()``, ``Sum()``,
            ``SquareRootN()``. ``Max(output_max_index=True)`` outputs instead, per
            feature, the index of the first step holding the maximum, counted over
            the batch's steps laid end to end (v2's packed instances), as a float; no
            bias is added, and training through it raises (v2 has no gradient for it).
        name: the layer name (default ``__seq_pooling_<n>__``).
        bias_attr: ``None`` (default) or ``False`` no bias; ``True`` or a ``Param`` adds one.
        agg_level: ``AggregateLevel.TO_NO_SEQUENCE`` one vector per sample;
            ``TO_SEQUENCE`` one per sub-sequence of a nested sequence.
        stride: -1, or ``s > 0`` to pool each window of ``s`` steps of a plain
            sequence, giving a sequence of ``ceil(len / s)`` steps.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``input.size``: non-sequence, or a sequence for nested
        ``TO_SEQUENCE`` and for ``stride > 0``; bias ``[1, size]``.

    Example:
        >>> vec = paddle.layer.pooling(input=emb, pooling_type=paddle.pooling.Avg())
    """
    name = base.layer_name(name, "seq_pooling")
    inp = base.as_layer(input, layer=name, arg="input")
    pool = _pooling_type(pooling_type, name)
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    attrs = {
        "pooling_type": pool,
        "level": inp.spec.seq_level,
        **_agg_args(agg_level, stride, layer=name),
    }
    if isinstance(pool, poolings.Max) and pool.output_max_index:
        attrs["layer"] = base.qualified_name(name)  # named by its no-gradient error
    kind = "max" if isinstance(pool, poolings.Max) else "average"
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    return base.build(kind, name=name, inputs=[inp], attrs=attrs, bias=bias)


# first / last step -----------------------------------------------------------------
def _instance_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    fn = first_seq if cfg.get("select_first") else last_seq
    return fn(
        input=ins[0],
        name=cfg["name"],
        agg_level=cfg.get("trans_type"),
        stride=cfg.get("seq_pool_stride"),
    )


class SeqInstanceKind(Kind):
    """The first or last valid step; v2's ``seqfirstins`` and ``seqlastins``: v2 writes
    both as ``seqlastins`` (``select_first`` tells them apart)."""

    host = HostChecks(needs_a_step=True)  # a sequence of no steps has no first or last
    v2 = V2Layer(type="seqlastins", rebuild=_instance_from_v2)

    def __init__(self, name: str, op: str) -> None:
        self.name, self.op = name, op

    def infer_spec(self, inputs, attrs):
        return aggregate_spec(inputs[0], attrs)

    def apply(self, params, inputs, attrs, *, key, mode):
        return aggregate(self.op, inputs[0], attrs, attrs["level"], from_end=self.op == "first")


register_kind(SeqInstanceKind("seqlastins", "last"))
register_kind(SeqInstanceKind("seqfirstins", "first"))


def _instance(kind: str, prefix: str, input, name, agg_level, stride, layer_attr):
    name = base.layer_name(name, prefix)
    inp = base.as_layer(input, layer=name, arg="input")
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    if "reverse" in inp.attrs and inp.reverse == (prefix == "last_seq"):
        _LOG.warning(
            "layer '%s': %s of '%s', a %s recurrent layer, carries no time-series information; "
            "maybe you want %s.",
            name,
            prefix,
            inp.name,
            "reversed" if inp.reverse else "forward",
            "first_seq" if prefix == "last_seq" else "last_seq",
        )
    attrs = {"level": inp.spec.seq_level, **_agg_args(agg_level, stride, layer=name)}
    return base.build(kind, name=name, inputs=[inp], attrs=attrs)


@base.layer_function
def last_seq(
    input: Layer,
    name: str | None = None,
    agg_level: str = AggregateLevel.TO_NO_SEQUENCE,
    stride: int = -1,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """The last valid step of each sequence: ``out = x_{len - 1}``.

    Args:
        input: a dense sequence layer (a non-sequence counts as one-step sequences).
        name: the layer name (default ``__last_seq_<n>__``).
        agg_level: ``TO_NO_SEQUENCE`` the last step of the whole sequence (of its last
            non-empty sub-sequence when nested); ``TO_SEQUENCE`` the last step of each
            sub-sequence of a nested sequence.
        stride: -1, or ``s > 0`` for the last step of each window of ``s`` steps
            (windows start at step 0).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``input.size``: non-sequence, or a sequence for nested
        ``TO_SEQUENCE`` and for ``stride > 0``. An empty sequence gives 0.

    Example:
        >>> last = paddle.layer.last_seq(input=emb)
        >>> last.size
        16
        >>> every_second = paddle.layer.last_seq(input=emb, stride=2)
    """
    return _instance("seqlastins", "last_seq", input, name, agg_level, stride, layer_attr)


@base.layer_function
def first_seq(
    input: Layer,
    name: str | None = None,
    agg_level: str = AggregateLevel.TO_NO_SEQUENCE,
    stride: int = -1,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """The first valid step of each sequence: ``out = x_0``.

    Args:
        input: a dense sequence layer (a non-sequence counts as one-step sequences).
        name: the layer name (default ``__first_seq_<n>__``).
        agg_level: ``TO_NO_SEQUENCE`` the first step of the whole sequence;
            ``TO_SEQUENCE`` the first step of each sub-sequence of a nested sequence.
        stride: -1, or ``s > 0`` for the first step of each window of ``s`` steps
            (v2: windows end at the last step, so the short window comes first).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``input.size``: non-sequence, or a sequence for nested
        ``TO_SEQUENCE`` and for ``stride > 0``. An empty sequence gives 0.

    Example:
        >>> first = paddle.layer.first_seq(input=emb)
        >>> first.size
        16
    """
    return _instance("seqfirstins", "first_seq", input, name, agg_level, stride, layer_attr)
