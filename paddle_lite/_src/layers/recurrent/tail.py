"""The tail of a recurrent group's step: layers computed after the scan, for all steps.

A step layer that no memory depends on does not have to run inside the loop. If it
only reads per-step values (an in-link's step, or an inner layer's output at that
step) and treats each sample alike (a per-row layer, no randomness, no batch
statistics), it gives the same values when it runs once, after the scan, over every
step's values stacked on the batch axis. That is what ``tail_nodes`` picks.

Running it there turns ``T`` small products inside the loop into one large one, and,
above all, its parameter's gradient into one product instead of ``T`` updates of a
loop-carried accumulator: chapter 8's softmax over 30,000 target words is such a
layer (``bench/models.py``, ``seq2seq``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paddle_lite._src.kinds import get_kind
from paddle_lite._src.run_layer import run
from paddle_lite._src.step_graph import StepGraph


def _memory_inputs(graph: StepGraph) -> set[str]:
    """The inner layers a memory's next value depends on (so they stay in the loop)."""
    by_name = {node.name: node for node in graph.nodes}
    needed: set[str] = set()
    todo = [m.target for m in graph.memories]
    while todo:
        name = todo.pop()
        if name in needed or name not in by_name:
            continue
        needed.add(name)
        todo.extend(i.name for i in by_name[name].inputs)
    return needed


def _movable(node: Any, readable: set[str]) -> bool:
    return (
        get_kind(node.kind).per_row
        and not node.attrs.get("drop_rate")
        and node.spec.seq_level == 0
        and all(i.name in readable and i.spec.seq_level == 0 for i in node.inputs)
    )


def tail_nodes(graph: StepGraph) -> frozenset[str]:
    """The step layers that can run after the scan (see the module docstring).

    A layer is in the tail when no memory depends on it, its kind is
    ``per_row`` (``Kind``), without dropout, it and its inputs are one vector per sample, its
    inputs are in-links or inner layers, and every layer reading it is in the tail too.
    """
    placeholders = set(graph.inlinks) | set(graph.statics) | {m.name for m in graph.memories}
    readable = set(graph.inlinks) | {n.name for n in graph.nodes} - placeholders
    looped = _memory_inputs(graph) | placeholders
    tail = {n.name for n in graph.nodes if n.name not in looped and _movable(n, readable)}
    changed = True
    while changed:  # a layer read inside the loop must be computed there
        readers = {i.name for n in graph.nodes if n.name not in tail for i in n.inputs}
        changed = bool(tail & readers)
        tail -= readers
    return frozenset(tail)


def boundary(graph: StepGraph, tail: frozenset[str]) -> tuple[str, ...]:
    """The inner layers computed in the loop whose per-step values the tail reads."""
    inlinks = set(graph.inlinks)
    names = {
        i.name
        for n in graph.nodes
        if n.name in tail
        for i in n.inputs
        if i.name not in tail and i.name not in inlinks
    }
    return tuple(sorted(names))


def run_tail(
    graph: StepGraph,
    tail: frozenset[str],
    stacked: Mapping[str, Any],
    params: Any,
    mode: str,
    steps_batch: tuple[int, int],
) -> dict[str, Any]:
    """The tail layers' values ``[T, B, ...]``; ``stacked`` holds the per-step values
    ``[T, B, ...]`` of the in-links and of the ``boundary`` layers."""
    flat: dict[str, Any] = {}

    def value(name: str) -> Any:
        if name not in flat:  # steps on the batch axis
            v = stacked[name]
            flat[name] = v.reshape((-1,) + v.shape[2:])
        return flat[name]

    out = {}
    for node in graph.nodes:
        if node.name in tail:
            inputs = [value(i.name) for i in node.inputs]
            flat[node.name], _ = run(node, params, inputs, key=None, mode=mode)
            out[node.name] = flat[node.name].reshape(steps_batch + flat[node.name].shape[1:])
    return out
