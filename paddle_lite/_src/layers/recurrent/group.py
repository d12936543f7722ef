"""``recurrent_group``: a step function run over the time steps of sequences.

The step is defined once (``define_step``)
and compiled into the body of one ``lax.scan`` over the padded time axis. At a padded
step (``t >= length``) the memories keep their values and the outputs are 0; with
``reverse=True`` every sequence runs from its own last step back to its first. A
nested-sequence input runs the group over its sub-sequences: each step sees one
whole sub-sequence. Step layers that no memory needs (an output softmax, say) run once
after the scan, over all steps at once (``recurrent.tail``).

The group is one layer (v2 type ``recurrent_layer_group``) that owns the parameters
of every layer of its step; each step output comes out of it through a
``gather_agent`` layer named like the step layer it gathers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src import kinds
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer, freeze, qualified_name
from paddle_lite._src.kinds import (
    Fixed,
    GroupStep,
    HostChecks,
    Kind,
    ParamDecl,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.recurrent.memory import (
    StaticInput,
    SubsequenceInput,
    base_name,
    define_step,
)
from paddle_lite._src.layers.recurrent.scan import reverse_within_length
from paddle_lite._src.layers.recurrent.tail import boundary, run_tail, tail_nodes
from paddle_lite._src.specs import Spec
from paddle_lite._src.step_graph import MemoryLink, StepGraph, next_memory, run_step
from paddle_lite._src.values import Seq, lengths_agree, nan_unless, padded_to


# the scan ------------------------------------------------------------------------------
def _as_seq(value: Any) -> Seq:
    """A group input as a sequence: a plain ``[B, ...]`` value is one step per sample."""
    if isinstance(value, Seq):
        return value
    return Seq(value[:, None], jnp.ones(value.shape[:1], jnp.int32))


def _steps_like(seq: Seq, n_steps: int) -> Seq:
    """``seq`` padded or cut to ``n_steps`` steps. The host checks that the in-links have
    the same lengths (``feeding.lengths``); in-links whose lengths come from the device may
    still be padded to another number of steps (a ``seq_concat`` of two inputs, say)."""
    have = seq.data.shape[1]
    if have == n_steps:
        return seq
    if have > n_steps:
        sub = None if seq.sub_lengths is None else seq.sub_lengths[:, :n_steps]
        return Seq(seq.data[:, :n_steps], seq.lengths, sub)
    return padded_to(seq, (n_steps,))


def _time_major(seq: Seq, lengths: Any, reverse: bool) -> Any:
    """The steps of ``seq`` along axis 0: arrays, or ``Seq`` sub-sequences when nested."""
    mask = jnp.arange(seq.data.shape[1])[None, :] < lengths[:, None]
    data = jnp.where(mask.reshape(mask.shape + (1,) * (seq.data.ndim - 2)), seq.data, 0)
    if reverse:
        data = reverse_within_length(data, lengths)
    if seq.sub_lengths is None:
        return jnp.swapaxes(data, 0, 1)
    sub = jnp.where(mask, seq.sub_lengths, 0)
    if reverse:
        sub = reverse_within_length(sub[..., None], lengths)[..., 0]
    return Seq(jnp.swapaxes(data, 0, 1), sub.T)


def _keep(mask: Any, new: Any, old: Any) -> Any:
    """``new`` where ``mask [B]`` holds, else ``old`` (any pytree of ``[B, ...]`` leaves)."""

    def pick(n, o):
        m = mask.reshape(mask.shape + (1,) * (o.ndim - 1))
        return jnp.where(m, n.astype(o.dtype), o)

    return jax.tree_util.tree_map(pick, new, old)


def _boot_value(link: MemoryLink, graph: StepGraph, params, boots, batch: int) -> Any:
    """A memory's value at the first step."""
    target = graph.node(link.target).spec
    if link.boot == "layer":
        boot = boots[link.name]
        step_shape = tuple(boot.data.shape[2:] if isinstance(boot, Seq) else boot.shape[1:])
        if step_shape != (target.size,):  # v2 parses this and fails when it runs
            raise LayerConfigError(
                f"memory '{link.name}' boots from a layer of shape {step_shape} per "
                f"{'step' if isinstance(boot, Seq) else 'sample'} but remembers "
                f"'{link.target}' of size {target.size}; give memory and boot_layer the same "
                "size."
            )
        return boot
    if link.boot == "id":
        return jnp.full((batch,), link.boot_id, jnp.int32)
    if link.boot == "bias":
        node = graph.node(link.name)
        bias = node.attrs["boot_act"].apply(params[node.params[0].name][0])
        return jnp.broadcast_to(bias, (batch, target.size))
    if target.dtype == "int32":
        return jnp.zeros((batch,), jnp.int32)
    return jnp.zeros((batch, target.size), jnp.float32)


def split_inputs(graph: StepGraph, inputs: list[Any]) -> tuple[list[Any], dict, dict]:
    """``(in-link values, {placeholder or outer name: value}, {memory: boot value})``."""
    n_in, n_st, n_boot = len(graph.inlinks), len(graph.statics), len(graph.boot_layers)
    env = dict(zip(graph.statics, inputs[n_in : n_in + n_st], strict=True))
    env.update(zip(graph.outer, inputs[n_in + n_st + n_boot :], strict=True))
    boots = dict(zip(graph.boot_layers, inputs[n_in + n_st : n_in + n_st + n_boot], strict=True))
    return list(inputs[:n_in]), env, boots


def boot_memories(graph: StepGraph, params, boots, batch: int) -> dict[str, Any]:
    return {m.name: _boot_value(m, graph, params, boots, batch) for m in graph.memories}


def _zero_padded(value: Any, keep: Any) -> Any:
    """Step outputs (``keep`` ``[B]``, or ``[T, B]`` for all steps) with padded steps
    zeroed (an empty sub-sequence for sequences)."""
    if isinstance(value, Seq):
        m = keep.reshape(keep.shape + (1,) * (value.data.ndim - keep.ndim))
        return Seq(jnp.where(m, value.data, 0), jnp.where(keep, value.lengths, 0))
    return jnp.where(keep.reshape(keep.shape + (1,) * (value.ndim - keep.ndim)), value, 0)


def _gathered(out: Any, lengths: Any, reverse: bool) -> Seq:
    """Time-major step outputs as a sequence (nested when each step gave a sequence)."""
    if isinstance(out, Seq):
        data, sub = jnp.swapaxes(out.data, 0, 1), out.lengths.T
        if reverse:
            data = reverse_within_length(data, lengths)
            sub = reverse_within_length(sub[..., None], lengths)[..., 0]
        return Seq(data, lengths, sub)
    data = jnp.swapaxes(out, 0, 1)
    return Seq(reverse_within_length(data, lengths) if reverse else data, lengths)


def running_stats(graph: StepGraph, params: Any) -> dict[str, Any]:
    """The step layers' running statistics (static parameters of stateful kinds: the
    batch-norm moving mean and variance), by global name: what a training scan carries."""
    names = [
        p.name
        for node in graph.nodes
        if kinds.get_kind(node.kind).stateful
        for p in node.params
        if p.is_static
    ]
    return {name: params[name] for name in names}


def _step_weights(keep: Any, row_weights: Any) -> Any:
    """``[B]`` float32 weights of a step's rows: 1 on the sequences that reach this step
    (v2 ran each step over those alone), 0 on the others and on padding rows."""
    weights = keep.astype(jnp.float32)
    return weights if row_weights is None else weights * (row_weights > 0)


def scan_group(graph: StepGraph, params, inputs, *, reverse: bool, key, mode: str,
               row_weights=None) -> tuple:  # fmt: skip
    """Run ``graph`` over the steps of its in-links: ``(outputs, updates)``, one ``Seq``
    per step output, and the running statistics after the last step (training only;
    each step that some sequence reaches updates them, in order, as v2's frames did)."""
    params = {name: jnp.asarray(value) for name, value in params.items()}  # traced in the loop
    links, env, boots = split_inputs(graph, inputs)
    seqs = [_as_seq(v) for v in links]
    agree = lengths_agree(seqs)
    seqs = [_steps_like(s, seqs[0].data.shape[1]) for s in seqs]
    lengths = seqs[0].lengths
    xs = [_time_major(s, lengths, reverse) for s in seqs]
    n_steps = seqs[0].data.shape[1]
    mask = jnp.arange(n_steps)[None, :] < lengths[:, None]
    stats = running_stats(graph, params) if mode == "train" else {}
    carry = (boot_memories(graph, params, boots, lengths.shape[0]), stats)
    tail = tail_nodes(graph)
    edge, looped = boundary(graph, tail), [o for o in graph.outputs if o not in tail]

    def body(carry, inp):
        (mems, stats), (t, keep, x_t) = carry, inp
        step_key = None if key is None else jax.random.fold_in(key, t)
        step_env = {**env, **mems, **dict(zip(graph.inlinks, x_t, strict=True))}
        weights = _step_weights(keep, row_weights)
        values, updates = run_step(
            graph, step_env, {**params, **stats}, key=step_key, mode=mode, skip=tail,
            row_weights=weights,
        )  # fmt: skip
        new = {m.name: next_memory(values[m.target], mems[m.name]) for m in graph.memories}
        reached = jnp.any(weights > 0)  # a step no sequence reaches leaves the statistics
        stats = {n: jnp.where(reached, updates.get(n, v), v) for n, v in stats.items()}
        outs = tuple(_zero_padded(values[o], keep) for o in looped)
        return (_keep(keep, new, mems), stats), (outs, tuple(values[e] for e in edge))

    (_, stats), (outs, edges) = lax.scan(body, carry, (jnp.arange(n_steps), mask.T, xs))
    by_name = dict(zip(looped, outs, strict=True))
    if tail:  # the layers no memory needs, for all steps at once
        stacked = dict(zip(graph.inlinks, xs, strict=True))
        stacked.update(zip(edge, edges, strict=True))
        late = run_tail(graph, tail, stacked, params, mode, (n_steps, lengths.shape[0]))
        by_name.update({o: _zero_padded(late[o], mask.T) for o in graph.outputs if o in tail})
    gathered = (_gathered(by_name[o], lengths, reverse) for o in graph.outputs)
    return tuple(nan_unless(g, agree) for g in gathered), stats


# kinds -----------------------------------------------------------------------------------
def output_spec(graph: StepGraph, index: int) -> Spec:
    spec = graph.node(graph.outputs[index]).spec
    return Spec(spec.size, spec.dtype, spec.seq_level + 1)


class StepGraphKind(Kind):
    """A kind whose layer runs a step sub-topology and owns every parameter of it."""

    def param_specs(self, inputs, attrs):
        """The step's parameters, each under its global name (the layer's roles)."""
        return [
            ParamDecl(role=p.name, shape=p.shape, attr=Fixed(), default=p.init)
            for p in attrs["step"].params()
        ]


class _GroupChecks(HostChecks):
    def aligned_inputs(self, inputs, attrs):
        """The in-links (the group's first inputs): every input split into steps must
        have as many steps as the others, sample by sample."""
        return tuple(range(len(attrs["step"].inlinks)))

    def group_step(self, attrs):
        graph = attrs["step"]
        return GroupStep(graph.inlinks, graph.nodes)


class RecurrentGroupKind(StepGraphKind):
    """The group: its value is a tuple, one sequence per step output."""

    name = "recurrent_layer_group"
    host = _GroupChecks(lengths_of=0)  # its outputs have its first in-link's lengths
    # v2 writes the group bare: its step is a sub-model
    v2 = V2Layer(size=0, active_type="", inputs=lambda n: ())
    stateful = True  # the running statistics of its step layers (batch norm)
    uses_row_weights = True  # which rows each step's batch statistics count

    def infer_spec(self, inputs, attrs):
        return output_spec(attrs["step"], 0)

    def apply(self, params, inputs, attrs, *, key, mode, row_weights=None):
        return scan_group(
            attrs["step"], params, inputs, reverse=attrs["reverse"], key=key, mode=mode,
            row_weights=row_weights,
        )  # fmt: skip


class GatherAgentKind(Kind):
    """One output of a group (v2's gather agent)."""

    name = "gather_agent"
    host = HostChecks(lengths_of=0)  # the group's (its first in-link's)
    # v2 links a group's outputs to it by its sub-model, not by inputs
    v2 = V2Layer(active_type="", inputs=lambda n: ())

    def infer_spec(self, inputs, attrs):
        return Spec(attrs["size"], attrs["dtype"], attrs["seq_level"])

    def apply(self, params, inputs, attrs, *, key, mode):
        return inputs[0][attrs["index"]]


register_kind(RecurrentGroupKind())
register_kind(GatherAgentKind())


def group_layer(kind: str, group: str, graph: StepGraph, inputs: list, attrs: dict) -> Layer:
    """The group layer: it owns every parameter of its step's layers."""
    spec = output_spec(graph, 0)
    return Layer(group, kind, tuple(inputs), freeze({"step": graph, **attrs}), spec, graph.params())


def gather_agents(node: Layer, outs: list[Layer], reverse: bool) -> list[Layer]:
    """One ``gather_agent`` per step output, named like the step layer it gathers."""
    agents = []
    for i, out in enumerate(outs):
        spec = output_spec(node.attrs["step"], i)
        attrs = {"index": i, "size": spec.size, "dtype": spec.dtype, "seq_level": spec.seq_level}
        attrs["reverse"] = reverse
        if out.activation is not None:
            attrs["cell_act"] = out.activation  # the layer's activation, read by costs
        agents.append(
            base.build("gather_agent", name=base_name(out.name), inputs=[node], attrs=attrs)
        )
    return agents


def _check_levels(group: str, graph: StepGraph, inlinks: list[Layer]) -> None:
    if not inlinks:
        raise LayerConfigError(
            f"recurrent_group '{group}' needs at least one input split into steps (a layer, "
            "not only StaticInput)."
        )
    levels = {layer.spec.seq_level for layer in inlinks}
    if len(levels) > 1:
        raise LayerConfigError(
            f"recurrent_group '{group}': the inputs split into steps must share one sequence "
            f"level; received {[(x.name, x.spec.seq_level) for x in inlinks]}."
        )
    for name in graph.outputs:
        if graph.node(name).spec.seq_level > 1:
            raise LayerConfigError(
                f"recurrent_group '{group}': step output '{name}' is a nested sequence; a step "
                "may return vectors or sequences."
            )


@base.layer_function
def recurrent_group(
    step: Callable[..., Layer | Sequence[Layer]],
    input: Layer
    | StaticInput
    | SubsequenceInput
    | Sequence[Layer | StaticInput | SubsequenceInput],
    reverse: bool = False,
    name: str | None = None,
    targetInlink: Layer | None = None,
) -> Layer | list[Layer]:
    """Run ``step`` at every time step of the input sequences (v2's recurrent group).

    ``step`` is called once, when the network is defined, with one placeholder per
    input: a plain layer is split into time steps (a nested sequence into its
    sub-sequences), a ``StaticInput`` is passed whole. Inside, ``paddle.layer.memory``
    reads the previous step's value of a named layer. What ``step`` returns, gathered
    over time, is the group's output:

    $$
    (out_t, state_t) = step(x_t, state_{t-1}), \\quad t = 0 .. len - 1
    $$

    Layers built in the step are named ``<name>@<group>`` and own the parameters
    ``_<name>@<group>.w0`` (v2's names); parameters named with ``paddle.attr.Param``
    are shared across the group boundary and across topologies as anywhere else.

    Args:
        step: a function of the placeholders returning a layer or a list of layers.
        input: a layer, ``StaticInput`` or a list of them; any other item of the list
            (a number, a string ...) is passed to ``step`` as it is, in its position.
        reverse: run each sequence from its last step to its first.
        name: the group's name (default ``__recurrent_group_<n>__``).
        targetInlink: deprecated (v2); ignored.

    Returns:
        The gathered output (a list when ``step`` returns several layers): a sequence
        with the input's lengths, nested when each step returns a sequence.

    Example:
        >>> summary = paddle.layer.last_seq(input=emb)
        >>> def step(x_t, summary_vec):
        ...     mem = paddle.layer.memory(name="rnn_state", size=32)
        ...     return paddle.layer.fc(input=[x_t, summary_vec, mem], size=32,
        ...                            name="rnn_state")
        >>> rnn = paddle.layer.recurrent_group(
        ...     step=step, input=[emb, paddle.layer.StaticInput(input=summary)])
        >>> rnn.size
        32
    """
    name = base.layer_name(name, "recurrent_group")
    if not callable(step):
        raise LayerTypeError(f"recurrent_group '{name}': step must be callable; got {step!r}.")
    reverse = base.flag(reverse, layer=name, arg="reverse")
    group = qualified_name(name)
    items = list(input) if isinstance(input, (list, tuple)) else [input]
    with kinds.noting() as notes:  # a memory of another level: v2 built it, failed to run
        graph, inputs, outs = define_step(group, step, items)
    _check_levels(group, graph, inputs[: len(graph.inlinks)])
    attrs = {"reverse": reverse}
    base.report_notes(group, "recurrent_layer_group", attrs, notes)
    node = group_layer("recurrent_layer_group", group, graph, inputs, attrs)
    agents = gather_agents(node, outs, reverse)
    return agents[0] if len(agents) == 1 else agents
