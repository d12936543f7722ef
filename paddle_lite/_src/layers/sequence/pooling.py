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

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import poolings
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.sequence import maxindex as sequence_maxindex
from paddle_lite._src.layers.sequence.aggregate import (
    AggregateLevel,
    agg_args,
    aggregate,
    aggregate_spec,
    reduction,
)
from paddle_lite._src.poolings import BasePoolingType
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.values import data_of, with_data

_LOG = logging.getLogger(__name__)


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
            reduce = reduction(attrs, attrs["level"])
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
        **agg_args(agg_level, stride, layer=name),
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
    attrs = {"level": inp.spec.seq_level, **agg_args(agg_level, stride, layer=name)}
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
