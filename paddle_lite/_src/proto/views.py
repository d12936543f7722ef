"""Readable views of a topology: v2's ModelConfig (``proto``) and a summary table.

Layers that run a step sub-topology (``recurrent_group``, ``beam_search``) are listed
with the layers of their step right after them, under the names v2 gives them
(``<layer>@<group>``; a memory's agent is ``<layer>+delay1@<group>`` of type
``agent``), and each such group adds a sub-model as in v2: its layer names, whether it
runs reversed, and the links between the group and its step (``in_links``,
``memories``, ``out_links``). How each layer reads in the ModelConfig (its v2 type, size,
activation, inputs with their ``input_parameter_name``, ``bias_parameter_name``; the image
fields of convolutions, poolings, cmrnorm and batch_norm, and ``drop_rate``) is in
``proto.layers``; every message has protobuf's ``HasField``; a ``paddle.layer.printer``
adds a ``print`` layer, as in v2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from paddle_lite._src.graph import Layer, current_scope
from paddle_lite._src.proto import layers as proto_layers
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.proto.image import Message
from paddle_lite._src.specs import ParamSpec, Spec
from paddle_lite._src.step_graph import StepGraph


def step_of(node: Layer) -> StepGraph | None:
    """The step sub-topology ``node`` runs, if it is a group layer."""
    step = node.attrs.get("step")
    return step if isinstance(step, StepGraph) else None


def created(nodes: Sequence[Layer]) -> list[Layer]:
    """``nodes`` in the order they were created, as v2's config lists layers (a step
    runs its layers in another order: placeholders and memories first)."""
    return sorted(nodes, key=lambda n: n.serial)


def with_steps(nodes: Sequence[Layer]) -> Iterator[tuple[Layer, int]]:
    """``(layer, depth)``: each layer, followed by its step's layers one level deeper."""
    for node in nodes:
        yield node, 0
        step = step_of(node)
        if step is not None:
            inner_nodes = created(step.nodes)
            yield from ((inner, depth + 1) for inner, depth in with_steps(inner_nodes))


def groups(nodes: Sequence[Layer]) -> Iterator[tuple[Layer, StepGraph, Sequence[Layer]]]:
    """``(group layer, its step, the layers beside it)`` of every group, nested ones too."""
    for node in nodes:
        step = step_of(node)
        if step is not None:
            yield node, step, nodes
            yield from groups(created(step.nodes))


def _link(layer_name: str, link_name: str) -> Message:
    return Message(layer_name=layer_name, link_name=link_name)


def sub_model(node: Layer, step: StepGraph, nodes: Sequence[Layer]) -> Message:
    """v2's SubModelConfig of the group ``node``, one of ``nodes``."""
    outer = [i.name for i in node.inputs]
    n_in, n_st = len(step.inlinks), len(step.statics)
    boots = iter(outer[n_in + n_st :])
    memories = [  # a static input is a memory that keeps its boot value
        Message(layer_name=s, link_name=s, boot_layer_name=b, is_static=True)
        for s, b in zip(step.statics, outer[n_in : n_in + n_st], strict=True)
    ]
    for m in step.memories:
        boot = next(boots) if m.boot == "layer" else None
        memories.append(
            Message(layer_name=m.target, link_name=m.name, boot_layer_name=boot, is_static=False)
        )
    gathers = {  # the outer layers that read the group: gather agents, generated ids
        n.attrs.get("index", 0): n.name for n in nodes if n.inputs and n.inputs[0] is node
    }
    return Message(
        name=node.name,
        layer_names=[n.name for n in created(step.nodes)],
        is_recurrent_layer_group=True,
        reversed=bool(node.attrs.get("reverse", False)),
        in_links=[_link(o, i) for o, i in zip(outer[:n_in], step.inlinks, strict=True)],
        memories=memories,
        out_links=[_link(o, gathers.get(i, node.name)) for i, o in enumerate(step.outputs)],
    )


def _print_layer(printer: Any) -> Message:
    inputs = [Message(input_layer_name=i.name, input_parameter_name="") for i in printer.inputs]
    return Message(
        name=printer.name,
        type="print",
        size=0,
        inputs=inputs,
        bias_parameter_name="",
        active_type="",
        parameters=[],
    )


def _printers(nodes: Sequence[Layer]) -> list[Any]:
    """The ``paddle.layer.printer`` s of the current naming scope whose inputs are all in
    ``nodes``: v2's ``parse_network`` adds their ``print`` layers the same way."""
    names = {n.name for n in nodes}
    return [
        ev
        for ev in current_scope().evaluators
        if ev.type == "printer" and "serial" in ev.attrs and {i.name for i in ev.inputs} <= names
    ]


def _layers(nodes: Sequence[Layer]) -> list[Message]:
    """Every layer in creation order, each group's step layers right after the group, and
    print layers where their printer was declared."""
    items = [(n.serial, [proto_layers.layer_config(m) for m, _ in with_steps([n])]) for n in nodes]
    items += [(ev.attrs["serial"], [_print_layer(ev)]) for ev in _printers(nodes)]
    return [layer for _, group in sorted(items, key=lambda item: item[0]) for layer in group]


def _parameter(spec: ParamSpec, dimless: set[str]) -> proto.ParameterConfig:
    config = proto.from_spec(spec)
    return dataclasses.replace(config, dims=()) if spec.name in dimless else config


def model_config(
    nodes: Sequence[Layer],
    inputs: list[str],
    outputs: list[str],
    specs: Mapping[str, ParamSpec],
) -> Message:
    """The ModelConfig of ``nodes`` (a topology's layers); see the module doc.

    As v2's ``parse_network`` keeps the order of its global config, layers and parameters
    are listed in creation order, and the root sub-model lists its inputs and outputs in
    layer order (``output_layer_names`` keeps the order the outputs were given in). The
    model's ``type`` is ``recurrent_nn`` when it holds a recurrent group, else ``nn``."""
    nodes = created(nodes)
    every = [n for n, _ in with_steps(nodes)]
    layers = _layers(nodes)
    dimless = {p.name for n in every for p in n.params if p.role in proto_layers.dimless_roles(n)}
    top = {n.name for n in nodes}
    root = [layer.name for layer in layers if layer.name in top or layer.type == "print"]
    return Message(
        type="recurrent_nn" if any(step_of(n) is not None for n in nodes) else "nn",
        layers=layers,
        input_layer_names=inputs,
        output_layer_names=outputs,
        parameters=[_parameter(spec, dimless) for spec in specs.values()],
        sub_models=[
            Message(
                name="root",
                layer_names=root,
                is_recurrent_layer_group=False,
                input_layer_names=[name for name in root if name in inputs],
                output_layer_names=[name for name in root if name in outputs],
            ),
            *(sub_model(*group) for group in groups(nodes)),
        ],
    )


def describe(spec: Spec) -> str:
    text = f"{spec.size}" if spec.image is None else "x".join(map(str, spec.image))
    return text + ("" if spec.seq_level == 0 else f" seq{spec.seq_level}")


def summary_table(nodes: Sequence[Layer], n_arrays: int) -> str:
    """Layers (a group's step layers indented under it), output sizes, parameter counts
    (each shared parameter counted once, where first used) and inputs."""
    rows = [("layer", "type", "output", "params", "inputs")]
    seen: set[str] = set()
    total = 0
    for n, depth in with_steps(nodes):
        own = 0
        if step_of(n) is None:  # a group's parameters belong to its step layers
            own = sum(p.size for p in n.params if p.name not in seen)
            seen.update(p.name for p in n.params)
        total += own
        inputs = ", ".join(i.name for i in n.inputs)
        rows.append(("  " * depth + n.name, n.kind, describe(n.spec), f"{own:,}", inputs))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    lines.append(f"total parameters: {total:,} in {n_arrays} arrays")
    return "\n".join(lines)
