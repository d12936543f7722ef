"""One step of an LSTM, for recurrent groups: lstm_step and get_output, and the checks
the recurrent steps share (``check_step_state``).

A step computes a single time step from the step's input and a ``memory`` of the
previous state, with v2's parameter layouts: ``lstm_step`` owns only the three
peephole vectors (``wbias`` ``[1, 3H]``; the recurrent weight lives in the mixed
layer that feeds it). The GRU steps are in ``recurrent.gru_step``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Sigmoid, Tanh, cell_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer, qualified_name
from paddle_lite._src.kinds import BiasAttr, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import identity_projection
from paddle_lite._src.specs import Spec


def _dense_step(spec: Spec, multiple: int, arg: str) -> int:
    if spec.seq_level != 0 or spec.dtype != "float32":
        raise LayerConfigError(
            f"{arg} must hold one dense vector per sample (a layer inside a recurrent group's "
            f"step); received {spec.dtype} with seq_level {spec.seq_level}."
        )
    if spec.size % multiple:
        raise LayerConfigError(f"{arg} size must be a multiple of {multiple}; got {spec.size}.")
    return spec.size // multiple


def check_step_state(inputs: Any, multiple: int) -> int:
    """The hidden width of a step whose inputs are ``(input, state)``, both checked."""
    hidden = _dense_step(inputs[0], multiple, "input")
    _dense_step(inputs[1], 1, "the state")
    if inputs[1].size != hidden:
        raise LayerConfigError(
            f"input size {inputs[0].size} needs a state of size {hidden} (input.size / "
            f"{multiple}); the state has size {inputs[1].size}."
        )
    return hidden


# lstm_step -----------------------------------------------------------------------------
def lstm_cell(x: Any, c_prev: Any, peep: Any, attrs: Any) -> tuple[Any, Any]:
    """``(h_t, c_t)`` from the projected input ``x = [a, i, f, o]`` and ``c_{t-1}``."""
    act, gate, state_act = attrs["cell_act"], attrs["gate_act"], attrs["state_act"]
    h = c_prev.shape[-1]
    peep_i, peep_f, peep_o = peep[:h], peep[h : 2 * h], peep[2 * h :]
    cand, in_g, forget_g, out_g = jnp.split(x, 4, axis=-1)
    in_g = gate.apply(in_g + c_prev * peep_i)
    forget_g = gate.apply(forget_g + c_prev * peep_f)
    cell = act.apply(cand) * in_g + c_prev * forget_g
    out = gate.apply(out_g + cell * peep_o) * state_act.apply(cell)
    return out, cell


def _peepholes(params: Any, attrs: Any, hidden: int) -> Any:
    return params["wbias"][0] if attrs["bias"] else jnp.zeros(3 * hidden, jnp.float32)


class LstmStepKind(Kind):
    """Its value is ``h_t``; ``get_output(..., 'state')`` gives ``c_t``."""

    name = "lstm_step"

    def infer_spec(self, inputs, attrs):
        return Spec(check_step_state(inputs, 4))

    def param_specs(self, inputs, attrs):
        if not attrs["bias"]:
            return []
        return [ParamDecl("wbias", (1, 3 * inputs[1].size), BiasAttr(), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        peep = _peepholes(params, attrs, inputs[1].shape[-1])
        return lstm_cell(inputs[0], inputs[1], peep, attrs)[0]


class LstmStateKind(LstmStepKind):
    """``c_t`` of an ``lstm_step``: its inputs are the step and the step's two inputs."""

    name = "lstm_step_state"
    # v2 reads the state as an output of the step, whose parameters it holds
    v2 = V2Layer(type="get_output", active_type="", inputs=lambda n: (0,), owns_params=False)

    def infer_spec(self, inputs, attrs):
        return Spec(inputs[0].size)

    def param_specs(self, inputs, attrs):
        return super().param_specs(inputs[1:], attrs)

    def apply(self, params, inputs, attrs, *, key, mode):
        peep = _peepholes(params, attrs, inputs[2].shape[-1])
        return lstm_cell(inputs[1], inputs[2], peep, attrs)[1]


register_kind(LstmStepKind())
register_kind(LstmStateKind())


class _StepLayer(Layer):
    """An ``lstm_step`` layer: it has a second output, ``state``."""

    __slots__ = ()

    @property
    def outputs(self) -> list[str]:
        return ["default", "state"]


@base.layer_function
def lstm_step(
    input: Layer,
    state: Layer,
    size: int | None = None,
    act: BaseActivation | None = None,
    name: str | None = None,
    gate_act: BaseActivation | None = None,
    state_act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """One LSTM step inside a recurrent group (v2's ``lstm_step_layer``).

    ``input`` holds ``[a, i, f, o] = W x_t + U h_{t-1} (+ b)`` (computed by a mixed
    layer), ``state`` is a memory of ``c_{t-1}``; ``c_i, c_f, c_o`` are the peepholes:

    $$
    \\begin{aligned}
    i_t &= gate(i + c_{t-1} \\odot c_i), \\quad f_t = gate(f + c_{t-1} \\odot c_f) \\\\
    c_t &= act(a) \\odot i_t + c_{t-1} \\odot f_t \\\\
    h_t &= gate(o + c_t \\odot c_o) \\odot state\\_act(c_t)
    \\end{aligned}
    $$

    Args:
        input: a dense layer of size ``4·H``.
        state: the memory of the cell state, size ``H``.
        size: when given it must equal ``state.size``.
        act, gate_act, state_act: Tanh, Sigmoid, Tanh by default.
        name: the layer name (default ``__lstm_step_<n>__``).
        bias_attr: the peepholes ``_<name>.wbias`` ``[1, 3H]``; ``False`` none.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        ``h_t`` (size ``H``); ``get_output(input=this, arg_name='state')`` is ``c_t``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=4 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     h_prev = paddle.layer.memory(name="lstm", size=32)
        ...     c_prev = paddle.layer.memory(name="lstm_c", size=32)
        ...     gates = paddle.layer.mixed(size=4 * 32, input=[
        ...         paddle.layer.identity_projection(input=x_t),
        ...         paddle.layer.full_matrix_projection(input=h_prev)])
        ...     h = paddle.layer.lstm_step(name="lstm", input=gates, state=c_prev)
        ...     paddle.layer.get_output(name="lstm_c", input=h, arg_name="state")
        ...     return h
        >>> lstm = paddle.layer.recurrent_group(step=step, input=proj)
        >>> lstm.size
        32
    """
    name = base.layer_name(name, "lstm_step")
    inp = base.as_layer(input, layer=name, arg="input")
    st = base.as_layer(state, layer=name, arg="state")
    if size is not None and size != st.size:
        raise LayerConfigError(
            f"layer '{name}': size={size} must equal the state's size {st.size}."
        )
    attrs = {
        "cell_act": cell_activation(act, Tanh(), layer=name, arg="act"),
        "gate_act": cell_activation(gate_act, Sigmoid(), layer=name, arg="gate_act"),
        "state_act": cell_activation(state_act, Tanh(), layer=name, arg="state_act"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name)
    node = base.build("lstm_step", name=name, inputs=[inp, st], attrs=attrs, bias=bias)
    return _StepLayer(node.name, node.kind, node.inputs, node.attrs, node.spec, node.params)


@base.layer_function
def get_output(
    input: Layer,
    arg_name: str,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """One named output of a layer with several (v2's ``get_output_layer``).

    Only ``lstm_step`` has a second output, ``'state'`` (its cell state ``c_t``);
    ``'default'`` is the layer's ordinary value.

    Args:
        input: the layer with several outputs (``input.outputs`` lists them).
        arg_name: the output to take.
        name: default ``__get_output_layer_<n>__``; name it like a memory to remember it.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of ``input.size``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=4 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     c_prev = paddle.layer.memory(name="cell", size=32)
        ...     h = paddle.layer.lstm_step(input=x_t, state=c_prev)
        ...     c = paddle.layer.get_output(name="cell", input=h, arg_name="state")
        ...     return h
        >>> lstm = paddle.layer.recurrent_group(step=step, input=proj)
    """
    name = base.layer_name(name, "get_output_layer")
    inp = base.as_layer(input, layer=name, arg="input")
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    if arg_name not in inp.outputs:
        raise LayerConfigError(
            f"layer '{name}': '{inp.name}' has no output {arg_name!r}; its outputs are "
            f"{inp.outputs}."
        )
    if arg_name == "default":
        return mixed(name=name, input=[identity_projection(input=inp)])
    if inp.kind != "lstm_step":
        raise LayerConfigError(f"layer '{name}': only lstm_step has a 'state' output.")
    spec = Spec(inp.size)
    return Layer(
        qualified_name(name), "lstm_step_state", (inp, *inp.inputs), inp.attrs, spec, inp.params
    )
