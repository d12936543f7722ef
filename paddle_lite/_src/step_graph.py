"""A recurrent group's step function as a sub-topology, and its interpreter.

``recurrent_group`` and ``beam_search`` call the user's step function once, when the
network is defined, with placeholder layers. What the step builds is a
``StepGraph``: the inner layers in topological order, which placeholder stands
for which group input, which memory holds the previous value of which inner layer,
and which inner layers are the step's outputs. ``run_step`` computes one time
step of it; the group kinds wrap that in a ``lax.scan`` or a ``lax.while_loop``.

Placeholders are layers of kind ``scatter_agent`` (one step of a sequence input),
``static_agent`` (a whole outer value, v2's ``StaticInput``) and ``memory``. Inner
layers may also read outer layers directly; those are listed in ``outer`` and
their values are passed whole, like a ``StaticInput``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import jax.numpy as jnp

from paddle_lite._src.errors import TopologyError
from paddle_lite._src.graph import Layer
from paddle_lite._src.initializers import name_key
from paddle_lite._src.run_layer import run
from paddle_lite._src.specs import ParamSpec, Spec
from paddle_lite._src.values import Seq


@dataclasses.dataclass(frozen=True)
class MemoryLink:
    """A memory placeholder and what it holds.

    ``boot`` says its value at the first step: ``"zeros"``, ``"layer"`` (an outer
    layer, one of the group's inputs), ``"bias"`` (the memory's own ``wbias``
    parameter through ``boot_act``) or ``"id"`` (the constant id ``boot_id``).
    """

    name: str
    target: str
    boot: str = "zeros"
    boot_id: int = 0

    def to_json(self) -> list[Any]:
        return [self.name, self.target, self.boot, self.boot_id]


@dataclasses.dataclass(frozen=True)
class StepGraph:
    """The layers of one step and how they connect to the group.

    The group layer's inputs are, in order: one outer sequence per ``inlinks``
    placeholder, one outer layer per ``statics`` placeholder, one boot layer per
    memory booted from a layer (in ``memories`` order), then the ``outer`` layers.
    """

    nodes: tuple[Layer, ...]
    inlinks: tuple[str, ...]
    statics: tuple[str, ...]
    memories: tuple[MemoryLink, ...]
    outputs: tuple[str, ...]
    outer: tuple[str, ...] = ()

    def node(self, name: str) -> Layer:
        for node in self.nodes:
            if node.name == name:
                return node
        raise TopologyError(f"the step has no layer named {name!r}.")

    @property
    def boot_layers(self) -> tuple[str, ...]:
        """Names of the memories booted from a layer, in group-input order."""
        return tuple(m.name for m in self.memories if m.boot == "layer")

    def params(self) -> tuple[ParamSpec, ...]:
        """The parameters of the inner layers, first declarations first, keyed by name.

        Each keeps its owner but takes its global name as its role, so the group
        layer's kind receives them by global name.
        """
        seen: dict[str, ParamSpec] = {}
        out = []
        for node in self.nodes:
            for spec in node.params:
                if seen.get(spec.name) == spec:
                    continue
                seen.setdefault(spec.name, spec)
                out.append(dataclasses.replace(spec, role=spec.name))
        return tuple(out)

    # JSON -----------------------------------------------------------------------------
    def to_json(self, encode_attrs: Callable[[Mapping[str, Any], str], Any]) -> dict[str, Any]:
        return {
            "nodes": [_node_json(n, encode_attrs) for n in self.nodes],
            "inlinks": list(self.inlinks),
            "statics": list(self.statics),
            "memories": [m.to_json() for m in self.memories],
            "outputs": list(self.outputs),
            "outer": list(self.outer),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], decode_attrs: Callable[[Any], Any]) -> StepGraph:
        """Rebuild the inner layers; outer layers become ``static_agent`` stand-ins."""
        built: dict[str, Layer] = {}
        for item in obj["nodes"]:
            for name in item["inputs"]:
                if name not in built:
                    built[name] = Layer(name, "static_agent", (), {}, Spec(1))
            built[item["name"]] = Layer(
                item["name"],
                item["kind"],
                tuple(built[i] for i in item["inputs"]),
                decode_attrs(item["attrs"]),
                Spec.from_json(item["spec"]),
                tuple(ParamSpec.from_json(p) for p in item["params"]),
            )
        names = [item["name"] for item in obj["nodes"]]
        return cls(
            nodes=tuple(built[n] for n in names),
            inlinks=tuple(obj["inlinks"]),
            statics=tuple(obj["statics"]),
            memories=tuple(MemoryLink(*m) for m in obj["memories"]),
            outputs=tuple(obj["outputs"]),
            outer=tuple(obj["outer"]),
        )


def _node_json(n: Layer, encode_attrs: Callable[[Mapping[str, Any], str], Any]) -> dict:
    return {
        "name": n.name,
        "kind": n.kind,
        "inputs": [i.name for i in n.inputs],
        "attrs": encode_attrs(n.attrs, n.name),
        "spec": n.spec.to_json(),
        "params": [p.to_json() for p in n.params],
    }


def run_step(
    graph: StepGraph,
    env: Mapping[str, Any],
    params: Mapping[str, Any],
    *,
    key: Any,
    mode: str,
    skip: frozenset[str] = frozenset(),
    row_weights: Any = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The value of every inner layer at one step (but those in ``skip``).

    Args:
        graph: the step.
        env: ``{placeholder or outer layer name: value}`` for this step.
        params: parameter values by global name.
        key: this step's PRNG key (or None); each layer folds in its name.
        mode: ``"train"`` or ``"test"``.
        skip: inner layers not to compute (a recurrent group's tail, see ``recurrent.tail``).
        row_weights: ``[batch]`` weights of the step's rows (0: a row not in this step's
            batch), for the layers that use them (batch statistics).

    Returns:
        ``(values, updates)``: ``{layer name: value}`` for every inner layer and every
        ``env`` entry, and the new values of the step layers' running statistics
        (batch-norm moving mean and variance, by global parameter name; training only).
    """
    values = dict(env)
    updates: dict[str, Any] = {}
    for node in graph.nodes:
        if node.name in values or node.name in skip:
            continue
        inputs = [values[i.name] for i in node.inputs]
        node_key = None if key is None else name_key(key, node.name)
        current = {**params, **updates} if updates else params  # statistics updated so far
        values[node.name], state = run(
            node, current, inputs, key=node_key, mode=mode, row_weights=row_weights
        )
        updates.update(state)
    return values, updates


def next_memory(new: Any, old: Any) -> Any:
    """A memory's next value: a sequence memory keeps its padded length (the step's
    sequence is cut or zero-padded to it)."""
    if not isinstance(old, Seq):
        return new
    n, have = old.data.shape[1], new.data.shape[1]
    data = (
        new.data[:, :n]
        if have >= n
        else jnp.pad(new.data, [(0, 0), (0, n - have)] + [(0, 0)] * (new.data.ndim - 2))
    )
    return Seq(data, jnp.minimum(new.lengths, n).astype(old.lengths.dtype))
