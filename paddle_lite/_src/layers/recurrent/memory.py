"""Defining a recurrent group's step: placeholders, ``memory`` and ``StaticInput``.

``define_step`` calls the user's step function once, inside a v2 sub-model:
every layer it creates is recorded and named ``<name>@<group>`` (so its parameters
are ``_<name>@<group>.w0``, as in v2). Each sequence input reaches the step as a
``scatter_agent`` placeholder (one time step of it), each ``StaticInput`` as a
``static_agent`` (the whole value), and each ``memory`` is a placeholder holding
the previous step's value of the layer it names. The result is a
``StepGraph``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, as_activation
from paddle_lite._src.errors import LayerConfigError, LayerTypeError, did_you_mean
from paddle_lite._src.graph import Layer, auto_name, current_submodel, qualified_name, submodel
from paddle_lite._src.kinds import BiasAttr, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.step_graph import MemoryLink, StepGraph


def base_name(name: str) -> str:
    """A layer name without its ``@<group>`` qualification."""
    return name.split("@", 1)[0]


class StaticInput:
    """A read-only input of a recurrent group: the whole value at every step.

    ``StaticInput(encoded)`` passes a per-sample vector, ``StaticInput(seq,
    is_seq=True)`` a whole sequence (attention reads the encoder's sequence this way;
    the sequence level follows the layer, ``is_seq`` is kept for v2 programs).

    Example:
        >>> group = paddle.layer.recurrent_group(
        ...     step=step, input=[paddle.layer.StaticInput(input=encoded), trg_emb])
    """

    def __init__(self, input: Any, is_seq: bool = False, size: Any = None) -> None:
        self.input = base.as_layer(input, layer="StaticInput", arg="input")
        self.is_seq = bool(is_seq)
        if size is not None and size != self.input.size:
            raise LayerConfigError(
                f"StaticInput: size={size} differs from the size of '{self.input.name}' "
                f"({self.input.size}); leave size unset."
            )

    def __repr__(self) -> str:
        return f"StaticInput({self.input.name!r})"


def SubsequenceInput(input: Any) -> Any:
    """v2's (deprecated) marker for a nested-sequence group input: returns ``input``.

    ``recurrent_group`` splits any nested sequence into its sub-sequences by itself,
    so the marker changes nothing.

    Args:
        input: a layer.

    Returns:
        ``input`` itself.

    Example:
        >>> paddle.layer.SubsequenceInput(input=emb) is emb
        True
    """
    return input


class StepModel:
    """What a step function defines: its layers (recorded as they are created) and
    its memories ``(memory layer, target name, boot, boot layer or id)``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.layers: list[Layer] = []
        self.memories: list[list[Any]] = []


# placeholder kinds -----------------------------------------------------------------
class PlaceholderKind(Kind):
    """A value the group supplies: its spec is stored in its attributes."""

    def __init__(self, name: str, v2: V2Layer) -> None:
        self.name, self.v2 = name, v2

    def infer_spec(self, inputs, attrs):
        return Spec(attrs["size"], attrs["dtype"], attrs["seq_level"])

    def param_specs(self, inputs, attrs):
        if attrs.get("bias"):
            return [ParamDecl("wbias", (1, attrs["size"]), BiasAttr(), attrs_mod.SMART)]
        return []

    def apply(self, params, inputs, attrs, *, key, mode):
        raise LayerConfigError(
            f"a {self.name} layer only has a value inside its recurrent group's step."
        )


register_kind(PlaceholderKind("scatter_agent", V2Layer()))
register_kind(PlaceholderKind("static_agent", V2Layer(type="agent")))
register_kind(PlaceholderKind("memory", V2Layer(type="agent")))


def _spec_attrs(spec: Spec, seq_level: int) -> dict[str, Any]:
    return {"size": spec.size, "dtype": spec.dtype, "seq_level": seq_level}


def _placeholder(kind: str, name: str, spec: Spec, seq_level: int) -> Layer:
    return base.build(kind, name=name, inputs=(), attrs=_spec_attrs(spec, seq_level))


class MemoryLayer(Layer):
    """A memory placeholder; ``set_input(layer)`` names the layer it remembers."""

    __slots__ = ()

    def set_input(self, input: Any) -> None:
        layer = base.as_layer(input, layer=self.name, arg="input")
        model = _model_of(self)
        for entry in model.memories:
            if entry[0] is self:
                entry[1] = layer.name
                return


def _model_of(memory_layer: Layer) -> StepModel:
    model = current_submodel()
    if not isinstance(model, StepModel) or all(memory_layer is not e[0] for e in model.memories):
        raise LayerConfigError(
            f"memory '{memory_layer.name}': set_input must be called inside the step "
            "function that created the memory."
        )
    return model


def _boot(boot_layer, boot_bias, boot_with_const_id, name) -> tuple[str, Any, Any]:
    """``(boot kind, boot layer or id, bias attr)`` from memory's boot arguments."""
    given = [boot_layer is not None, boot_bias not in (None, False), boot_with_const_id is not None]
    if sum(given) > 1:
        raise LayerConfigError(
            f"memory '{name}': take one option at most from boot_layer, boot_bias and "
            "boot_with_const_id."
        )
    if boot_layer is not None:
        layer = base.as_layer(boot_layer, layer=name, arg="boot_layer")
        if layer.spec.seq_level > 1:  # v2: "Subsequence boot layer for memory is not supported"
            raise LayerConfigError(
                f"memory '{name}': boot_layer '{layer.name}' is a nested sequence (seq_level "
                f"{layer.spec.seq_level}); a memory boots from one vector or one sequence per "
                "sample."
            )
        return "layer", layer, None
    if given[1]:
        return "bias", None, attrs_mod.bias_param_attr(boot_bias, default_on=False, layer=name)
    if boot_with_const_id is not None:
        if isinstance(boot_with_const_id, bool) or not isinstance(boot_with_const_id, int):
            raise LayerTypeError(
                f"memory '{name}': boot_with_const_id must be an int id; received "
                f"{boot_with_const_id!r}."
            )
        return "id", boot_with_const_id, None
    return "zeros", None, None


@base.layer_function
def memory(
    name: str,
    size: int,
    memory_name: str | None = None,
    is_seq: bool = False,
    boot_layer: Layer | None = None,
    boot_bias: float | None = None,
    boot_bias_active_type: BaseActivation | None = None,
    boot_with_const_id: int | None = None,
) -> Layer:
    """The value the layer called ``name`` had at the previous step of the group.

    $$
    mem_t = out^{(name)}_{t-1}, \\qquad mem_0 = boot
    $$

    ``boot`` is the ``boot_layer``'s value, else ``boot_bias_active_type(b)`` with a
    learned bias ``b`` (``_<memory>@<group>.wbias``, ``[1, size]``), else the constant
    id ``boot_with_const_id``, else zeros. The memory is linked to the layer by name
    when the step function returns (so the layer may be created after the memory).

    Args:
        name: the layer (of the same step) to remember; None to call
            ``set_input(layer)`` on the memory later.
        size: the width of that layer.
        memory_name: the memory's own name when ``name`` is None.
        is_seq: deprecated (v2); ignored.
        boot_layer: an outer layer giving the first value: one vector per sample, or
            one sequence per sample (the memory then holds a sequence, padded
            ``[batch, T, size]`` + lengths, and remembers a sequence layer of the step,
            cut or zero-padded to ``T`` steps: an external memory of slots rewritten
            at each step, as v2's sequence scatter agent did).
        boot_bias: a ``paddle.attr.Param`` for a learned first value.
        boot_bias_active_type: the activation of that bias (default Linear).
        boot_with_const_id: an int: the memory holds ids, starting at this one.

    Returns:
        A layer of size ``size`` usable inside the step (named ``<name>+delay1``).

    Example:
        >>> def step(x_t):
        ...     mem = paddle.layer.memory(name="state", size=32)
        ...     return paddle.layer.fc(input=[x_t, mem], size=32, name="state")
        >>> rnn = paddle.layer.recurrent_group(step=step, input=emb)
        >>> rnn.size
        32
    """
    model = current_submodel()
    own = memory_name or auto_name("memory")  # v2 draws an auto name even when unused
    label = own if name is None else f"{base_name(name)}+delay1"
    if not isinstance(model, StepModel):
        raise LayerConfigError(
            f"memory '{label}' is used outside a recurrent group; call paddle.layer.memory "
            "inside the step function of recurrent_group or beam_search."
        )
    size = base.positive_int(size, layer=label, arg="size")
    boot, boot_arg, bias = _boot(boot_layer, boot_bias, boot_with_const_id, label)
    level = boot_arg.spec.seq_level if boot == "layer" else 0  # a sequence memory (v2's NTM)
    attrs = {
        **_spec_attrs(Spec(size, "int32" if boot == "id" else "float32"), level),
        "boot_act": as_activation(boot_bias_active_type, layer=label, arg="boot_bias_active_type"),
    }
    node = base.build("memory", name=label, inputs=(), attrs=attrs, bias=bias)
    layer = MemoryLayer(node.name, node.kind, (), node.attrs, node.spec, node.params)
    target = None if name is None else qualified_name(base_name(name))
    model.memories.append([layer, target, boot, boot_arg])
    return layer


# defining a step ---------------------------------------------------------------------
def define_step(
    group: str, step: Callable[..., Any], inputs: Sequence[Any]
) -> tuple[StepGraph, list[Layer], list[Layer]]:
    """Call ``step`` once with placeholders for ``inputs`` inside the sub-model ``group``.

    Returns:
        ``(graph, group inputs, step outputs)``; the group inputs follow
        ``StepGraph``'s order.
    """
    model = StepModel(group)
    inlinks: list[tuple[Layer, Layer]] = []
    statics: list[tuple[Layer, Layer]] = []
    with submodel(model):
        args = [_argument(group, item, inlinks, statics) for item in inputs]
        outs = step(*args)
    outs = _step_outputs(group, outs)
    memories = _link_memories(model)
    nodes, outer = _collect(model, outs, memories, inlinks, statics)
    boots = [m[3] for m in memories if m[2] == "layer"]
    graph = StepGraph(
        nodes=tuple(nodes),
        inlinks=tuple(p.name for p, _ in inlinks),
        statics=tuple(p.name for p, _ in statics),
        memories=tuple(_link(m) for m in memories),
        outputs=tuple(o.name for o in outs),
        outer=tuple(o.name for o in outer),
    )
    group_inputs = [x for _, x in inlinks] + [x for _, x in statics] + boots + outer
    return graph, group_inputs, outs


def _link(entry: list[Any]) -> MemoryLink:
    layer, target, boot, arg = entry
    return MemoryLink(layer.name, target, boot, arg if boot == "id" else 0)


def _argument(group: str, item: Any, inlinks: list, statics: list) -> Any:
    """The placeholder standing for one group input inside the step.

    An item that is neither a layer nor a ``StaticInput`` (a number, a string, a
    config object) reaches the step function as it is, in its position: v2's
    ``recurrent_group`` passed such items through unchanged.
    """
    if isinstance(item, StaticInput):
        outer = item.input
        name = auto_name("memory")  # v2 builds a StaticInput as a memory
        holder = _placeholder("static_agent", name, outer.spec, outer.spec.seq_level)
        statics.append((holder, outer))
        return holder
    if isinstance(item, Layer):
        level = item.spec.seq_level
        holder = _placeholder("scatter_agent", base_name(item.name), item.spec, max(level - 1, 0))
        inlinks.append((holder, item))
        return holder
    return item


def _step_outputs(group: str, outs: Any) -> list[Layer]:
    items = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if not items or not all(isinstance(o, Layer) for o in items):
        raise LayerTypeError(
            f"recurrent group '{group}': the step function must return a layer or a list of "
            f"layers; it returned {outs!r}."
        )
    return items


def _link_memories(model: StepModel) -> list[list[Any]]:
    """Each memory with the inner layer it remembers, checked (v2 links by name)."""
    by_name = {layer.name: layer for layer in model.layers}
    inner = {id(layer) for layer in model.layers}
    for entry in model.memories:
        layer, target = entry[0], entry[1]
        if entry[2] == "layer" and id(entry[3]) in inner:
            raise LayerConfigError(
                f"memory '{layer.name}': boot_layer '{entry[3].name}' is built inside the step "
                f"of recurrent group '{model.name}'; build it outside the step function (it "
                "gives the value before the first step)."
            )
        if target is None or target not in by_name:
            known = sorted({base_name(n) for n in by_name if by_name[n].kind != "memory"})
            wanted = (
                "no layer (name=None and set_input was not called)"
                if target is None
                else (f"'{base_name(target)}'")
            )
            raise LayerConfigError(
                f"memory '{layer.name}' remembers {wanted}, but the step of recurrent group "
                f"'{model.name}' has no such layer; its layers are {known}."
                + did_you_mean(base_name(target or ""), known)
            )
        found = by_name[target]
        _check_remembered(layer, found)
        entry[1] = found
    for entry in model.memories:
        entry[1] = entry[1].name
    return model.memories


def _check_remembered(memory: Layer, found: Layer) -> None:
    """Its size, as v2's config parser checked; another sequence level v2 built and
    failed to run: ``cannot_run`` (``recurrent_group`` builds, refusing to run)."""
    level = memory.spec.seq_level
    if found.spec.size == memory.spec.size and found.spec.seq_level == level:
        return
    what = "a sequence layer" if level else "a non-sequence layer"
    rule = (
        f"; a memory must match {what} of its own size (a memory booted from a sequence "
        "remembers a sequence)."
    )
    if found.spec.size != memory.spec.size:
        raise LayerConfigError(
            f"memory '{memory.name}' has size {memory.spec.size} but layer '{found.name}' it "
            f"remembers has size {found.spec.size} (seq_level {found.spec.seq_level}, the "
            f"memory's {level})" + rule
        )
    base.cannot_run(
        f"memory '{memory.name}' (seq_level {level}) remembers layer '{found.name}' of "
        f"seq_level {found.spec.seq_level}" + rule + " v2 built it and failed when it ran."
    )


def _collect(model, outs, memories, inlinks, statics):
    """The inner layers the outputs and memories need, in order, and the outer ones read."""
    inner = {id(layer) for layer in model.layers}
    by_name = {layer.name: layer for layer in model.layers}
    order: list[Layer] = [p for p, _ in inlinks] + [p for p, _ in statics]
    order += [m[0] for m in memories]
    seen = {id(n) for n in order}
    outer: list[Layer] = []
    roots = list(outs) + [by_name[m[1]] for m in memories]
    for root in roots:
        _visit(root, inner, seen, order, outer)
    return order, outer


def _visit(root: Layer, inner: set, seen: set, order: list, outer: list) -> None:
    stack: list[tuple[Layer, int]] = [(root, 0)]
    while stack:
        node, i = stack.pop()
        if id(node) in seen:
            continue
        if id(node) not in inner:
            seen.add(id(node))
            outer.append(node)
            continue
        if i < len(node.inputs):
            stack.append((node, i + 1))
            stack.append((node.inputs[i], 0))
        else:
            seen.add(id(node))
            order.append(node)
