"""The host's checks that inputs meant to have the same lengths have them, batch by batch.

v2 refused a ``recurrent_group`` whose sequence inputs (those split into steps) differ
in length for some sample ("RecurrentGroup <name> input <i> has mismatched sequence
length"). A layer that pairs its sequence inputs row by row (``HostChecks.aligns_rows``: an
``addto``, a ``concat``, a cost and its label) worked in v2 on the batch's rows: rows
of different counts stopped v2, and sequences of other lengths with the same total
paired rows of different samples. Both are refused here, naming the sample.

Inside the jitted program the lengths are data and nothing can be raised, so the
checks run where the lengths are still numpy arrays on the host: after the feeder has
converted a batch. Each input is traced back, through layers whose output has the
lengths of one of their inputs (``HostChecks.lengths_input``), to the data layer whose
lengths it carries: its top-level lengths (depth 0), or its sub-sequence lengths
(depth 1: a nested input's, or, for the input of a group inside the step of a group
over nested sequences, the outer in-link's). Inputs that trace to no data layer (their
lengths are computed on the device, as a ``seq_concat``'s) are not checked on the host;
the group or the row-pairing layer checks them on the device: it makes its outputs NaN
for the samples whose inputs differ in length, and training's non-finite check, once it
stops there, raises the error that ``device_mismatch`` words. A kind's rules on single
inputs' lengths (``HostChecks.length_rules``: a cost's sequence beside plain labels has
one row per sample) are checked the same way.

What each kind needs is on its ``host`` (``kinds.HostChecks``); this module only traces
lengths to data layers and words the errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np

from paddle_lite._src.errors import DataError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, LengthRule, get_kind
from paddle_lite._src.values import Seq


class Source(NamedTuple):
    """Where a value's top-level lengths come from: a data layer's lengths (depth 0) or
    its sub-sequence lengths (depth 1)."""

    data: str
    depth: int


class LengthCheck(NamedTuple):
    """One layer's inputs whose lengths must agree, those that trace to data layers:
    ``(index, name, Source)``; ``kind`` is the layer's, ``group`` whether it is a
    recurrent group. With a ``rule``, each input's lengths must follow it instead."""

    layer: str
    kind: str
    inputs: tuple[tuple[int, str, Source], ...]
    group: bool = False
    rule: LengthRule | None = None


class _Step(NamedTuple):
    """The step graph being traced: its placeholders, and the group that runs it."""

    inlinks: tuple[str, ...]
    group: Layer
    outer: _Step | None


def _source(layer: Layer, step: _Step | None) -> Source | None:
    """The data layer whose lengths are ``layer``'s top-level lengths, if one is."""
    if layer.spec.seq_level == 0:
        return None
    if step is not None and layer.name in step.inlinks:  # one step of an outer in-link
        outer = step.group.inputs[step.inlinks.index(layer.name)]
        src = _source(outer, step.outer) if outer.spec.seq_level == 2 else None
        return None if src is None or src.depth > 0 else Source(src.data, 1)
    if layer.kind == "data":  # the graph's input: where lengths come from
        return Source(layer.name, 0)
    index = _host(layer).lengths_input([i.spec for i in layer.inputs], layer.spec)
    return None if index is None else _source(layer.inputs[index], step)


def _host(node: Layer) -> HostChecks:
    return get_kind(node.kind).host


def _known(node: Layer, positions: Iterable[int], step: _Step | None) -> tuple[Any, ...]:
    """``(index, name, Source)`` of ``node``'s inputs at ``positions`` that trace to a
    data layer."""
    traced = ((i, node.inputs[i].name, _source(node.inputs[i], step)) for i in positions)
    return tuple(t for t in traced if t[2] is not None)


def _traced(
    node: Layer, positions: Iterable[int], step: _Step | None, group: bool
) -> list[LengthCheck]:
    """The checks of ``node``'s inputs at ``positions``: their top-level lengths, then
    (inputs of nested sequences, except a group's: its step checks those) their
    sub-sequence lengths; none where all trace to one source."""
    known = _known(node, positions, step)
    if len({t[2] for t in known}) < 2:
        return []
    checks = [LengthCheck(node.name, node.kind, known, group)]
    if not group and all(node.inputs[i].spec.seq_level == 2 for i, _, _ in known):
        subs = tuple((i, name, Source(src.data, 1)) for i, name, src in known if not src.depth)
        checks += [LengthCheck(node.name, node.kind, subs)] if len(subs) == len(known) else []
    return checks


def _ruled(node: Layer, rule: LengthRule, step: _Step | None) -> list[LengthCheck]:
    """The check that ``node``'s input at ``rule.position`` follows ``rule``, when its
    lengths are a data layer's."""
    known = tuple(t for t in _known(node, (rule.position,), step) if t[2].depth == 0)
    return [LengthCheck(node.name, node.kind, known, rule=rule)] if known else []


def _checks(nodes: Iterable[Layer], step: _Step | None) -> list[LengthCheck]:
    """The checks of the layers among ``nodes``, outer groups before the inner ones."""
    checks = []
    for node in nodes:
        host, specs = _host(node), [x.spec for x in node.inputs]
        group = host.group_step(node.attrs)
        checks += _traced(node, host.aligned_inputs(specs, node.attrs), step, group is not None)
        for rule in host.length_rules(specs, node.attrs):
            checks += _ruled(node, rule, step)
        if group is not None:
            checks += _checks(group.nodes, _Step(group.inlinks, node, step))
    return checks


def length_checks(nodes: Iterable[Layer]) -> tuple[LengthCheck, ...]:
    """The length checks of every recurrent group and every layer that pairs rows among
    ``nodes`` (a topology's)."""
    return tuple(_checks(nodes, None))


def _lengths(feeds: dict[str, Any], src: Source, top: Any) -> np.ndarray:
    """Per sample, the lengths ``src`` names: ``[batch]``, or ``[batch, S]`` sub-sequence
    lengths zeroed past ``top`` (the outer lengths, already checked equal)."""
    value = feeds[src.data]
    if src.depth == 0:
        return np.asarray(value.lengths)
    sub = np.asarray(value.sub_lengths)
    return np.where(np.arange(sub.shape[1])[None, :] < np.asarray(top)[:, None], sub, 0)


_PAIRED_ROWS = (
    "the layer pairs its inputs row by row, so their sequences must have the same lengths, "
    "sample by sample (v2 paired the rows of the whole batch: it stopped where their counts "
    "differed, and paired rows of different samples where only the totals agreed)"
)


def _mismatch(check: LengthCheck, i: int, first: np.ndarray, other: np.ndarray) -> DataError:
    (i0, name0, src0), (_, name, src) = check.inputs[0], check.inputs[i]
    row = int(np.argwhere(first != other)[0][0])
    group = check.group
    what = "sequence lengths" if src.depth == 0 else "sub-sequence lengths"
    where = _where(check.layer, check.kind, group)
    return DataError(
        f"{where}: input {check.inputs[i][0]} '{name}' (data layer '{src.data}') has "
        f"mismatched {what}{' within a step' if group and src.depth else ''}: sample {row} "
        f"has {other[row].tolist()}, but input {i0} '{name0}' (data layer '{src0.data}') has "
        f"{first[row].tolist()}; {_GROUP_NEEDS if group else _PAIRED_ROWS}."
    )


def check_lengths(checks: tuple[LengthCheck, ...], feeds: dict[str, Any]) -> None:
    """Raise ``DataError`` when inputs that must agree differ in length in ``feeds``."""
    for check in checks:
        if check.rule is not None:
            _check_rule(check, check.rule, feeds)
            continue
        src0 = check.inputs[0][2]
        top = feeds[src0.data].lengths  # for depth 1: the outer lengths, checked before
        first = _lengths(feeds, src0, top)
        for i in range(1, len(check.inputs)):
            other = _like(_lengths(feeds, check.inputs[i][2], top), first)
            if np.any(other != first):
                raise _mismatch(check, i, first, other)


def _check_rule(check: LengthCheck, rule: LengthRule, feeds: dict[str, Any]) -> None:
    for i, name, src in check.inputs:
        lengths = np.asarray(feeds[src.data].lengths)
        broken = np.asarray(rule.broken(lengths))
        if np.any(broken):
            row = int(np.argwhere(broken)[0][0])
            raise DataError(
                f"{check.kind} '{check.layer}': input {i} '{name}' (data layer '{src.data}') "
                + rule.says(row, int(lengths[row]))
            )


def _like(other: np.ndarray, first: np.ndarray) -> np.ndarray:
    """``other`` cut or zero-padded to ``first``'s shape (sub-lengths of another width:
    past the outer lengths both are 0)."""
    if other.shape == first.shape:
        return other
    out = np.zeros_like(first)
    cols = min(first.shape[-1], other.shape[-1])
    out[..., :cols] = other[..., :cols]
    return out


def device_mismatch(node: Layer, values: Mapping[str, Any]) -> str | None:
    """What a recurrent group, or a layer pairing rows (``HostChecks.aligns_rows``), whose
    inputs' lengths come from the device received: a sentence naming the first input
    whose lengths differ from the first one's, or None.

    ``values`` maps layer names to their (eagerly computed) values; the layer itself
    makes the rows of such samples NaN, so training's non-finite check leads here."""
    host = _host(node)
    group = host.group_step(node.attrs) is not None
    indices = host.aligned_inputs([x.spec for x in node.inputs], node.attrs)
    seqs = [(i, node.inputs[i].name, values.get(node.inputs[i].name)) for i in indices]
    seqs = [(i, name, np.asarray(v.lengths)) for i, name, v in seqs if isinstance(v, Seq)]
    for i, name, lengths in seqs[1:]:
        _, name0, first = seqs[0]
        if lengths.shape == first.shape and np.any(lengths != first):
            row = int(np.argwhere(lengths != first)[0][0])
            return (
                f"{_where(node.name, node.kind, group)}: input {i} '{name}' has mismatched "
                f"sequence lengths: sample {row} has {int(lengths[row])} steps, but input 0 "
                f"'{name0}' has {int(first[row])}; {_GROUP_NEEDS if group else _ROWS_NEED} "
                "(the outputs for such samples are NaN)"
            )
    return None


def _where(layer: str, kind: str, group: bool) -> str:
    """How an error names the layer: a group by the function that builds it."""
    return f"recurrent_group '{layer}'" if group else f"{kind} '{layer}'"


_GROUP_NEEDS = (
    "every input split into steps must have as many steps as the others, sample by sample, as in v2"
)
_ROWS_NEED = (
    "the layer pairs its inputs row by row, so every sequence input needs as many rows in "
    "each sample, as in v2"
)
