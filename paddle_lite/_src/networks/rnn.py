"""Recurrent networks of v2's ``paddle.networks`` built on recurrent groups:
lstmemory_unit / lstmemory_group and gru_unit / gru_group (the GRU encoders
simple_gru and simple_gru2 are in ``networks.gru``).

Built only from public layer functions, with v2's layer names (``<name>_state``,
``<name>_input_recurrent``, ``<name>_recurrent_group``) so parameter names, and v2
model tars, line up.
"""

from __future__ import annotations

from paddle_lite._src.activations import BaseActivation, Linear
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import full_matrix_projection, identity_projection
from paddle_lite._src.layers.recurrent.group import recurrent_group
from paddle_lite._src.layers.recurrent.gru_step import gru_step, gru_step_naive
from paddle_lite._src.layers.recurrent.lstm_step import get_output, lstm_step
from paddle_lite._src.layers.recurrent.memory import memory


def _unit_size(input, size, multiple: int, name: str) -> int:
    layer = base.as_layer(input, layer=name, arg="input")
    if size is None:
        if layer.size % multiple:
            raise LayerConfigError(
                f"'{name}': input size {layer.size} is not a multiple of {multiple}; pass size."
            )
        return layer.size // multiple
    return base.positive_int(size, layer=name, arg="size")


@base.layer_function
def lstmemory_unit(
    input: Layer,
    out_memory: Layer | None = None,
    name: str | None = None,
    size: int | None = None,
    param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    state_act: BaseActivation | None = None,
    input_proj_bias_attr: ParamAttr | bool | None = None,
    input_proj_layer_attr: ExtraAttr | None = None,
    lstm_bias_attr: ParamAttr | bool | None = None,
    lstm_layer_attr: ExtraAttr | None = None,
) -> Layer:
    """One LSTM step for use inside a recurrent group (v2's ``lstmemory_unit``).

    Memories ``<name>`` (``h_{t-1}``) and ``<name>_state`` (``c_{t-1}``); a mixed layer
    ``<name>_input_recurrent`` = ``x_t + h_{t-1} U`` (``U``: ``[H, 4H]``, its ``.w1``);
    then ``lstm_step`` ``<name>`` and ``get_output`` ``<name>_state``:

    $$
    [a, i, f, o] = x_t + h_{t-1} U, \\qquad (h_t, c_t) = lstm\\_step([a, i, f, o], c_{t-1})
    $$

    Args:
        input: the step's input, already projected to ``4H`` (``W x_t``).
        out_memory: a memory to use for ``h_{t-1}`` instead of ``<name>``.
        name: default ``__lstm_unit_<n>__``.
        size: ``H`` (default ``input.size / 4``).
        param_attr: ``Param`` of ``U``.
        act, gate_act, state_act: the LSTM activations (Tanh, Sigmoid, Tanh).
        input_proj_bias_attr: a bias of the mixed layer (default none).
        input_proj_layer_attr: ``Extra`` of the mixed layer.
        lstm_bias_attr: the peepholes of ``lstm_step`` (default on).
        lstm_layer_attr: ``Extra`` of ``lstm_step``.

    Returns:
        ``h_t`` (size ``H``).

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=4 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     return paddle.networks.lstmemory_unit(input=x_t, size=32, name="lstm")
        >>> lstm = paddle.layer.recurrent_group(step=step, input=proj)
        >>> lstm.size
        32
    """
    name = base.layer_name(name, "lstm_unit")
    size = _unit_size(input, size, 4, name)
    out_mem = memory(name=name, size=size) if out_memory is None else out_memory
    state_mem = memory(name=f"{name}_state", size=size)
    with mixed(
        name=f"{name}_input_recurrent",
        size=size * 4,
        bias_attr=input_proj_bias_attr,
        layer_attr=input_proj_layer_attr,
        act=Linear(),
    ) as m:
        m += identity_projection(input=input)
        m += full_matrix_projection(input=out_mem, param_attr=param_attr)
    lstm_out = lstm_step(
        name=name,
        input=m,
        state=state_mem,
        size=size,
        bias_attr=lstm_bias_attr,
        act=act,
        gate_act=gate_act,
        state_act=state_act,
        layer_attr=lstm_layer_attr,
    )
    get_output(name=f"{name}_state", input=lstm_out, arg_name="state")
    return lstm_out


@base.layer_function
def lstmemory_group(
    input: Layer,
    size: int | None = None,
    name: str | None = None,
    out_memory: Layer | None = None,
    reverse: bool = False,
    param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    state_act: BaseActivation | None = None,
    input_proj_bias_attr: ParamAttr | bool | None = None,
    input_proj_layer_attr: ExtraAttr | None = None,
    lstm_bias_attr: ParamAttr | bool | None = None,
    lstm_layer_attr: ExtraAttr | None = None,
) -> Layer:
    """An LSTM as a recurrent group of [`lstmemory_unit`][paddle_lite.networks.lstmemory_unit] (v2's
    ``lstmemory_group``).

    Computes what ``lstmemory`` computes (the gate bias comes from
    ``input_proj_bias_attr``; ``lstm_bias_attr`` holds the three peepholes), with every
    step's cell state reachable as ``<name>_state``. The group is
    ``<name>_recurrent_group``.

    Args:
        input: a sequence projected to ``4H``.
        size: ``H`` (default ``input.size / 4``).
        name: default ``__lstm_group_<n>__``.
        out_memory: a memory to use for ``h_{t-1}`` instead of ``<name>``.
        reverse: run each sequence backwards.
        param_attr: as for [`lstmemory_unit`][paddle_lite.networks.lstmemory_unit].
        act, gate_act, state_act: as for [`lstmemory_unit`][paddle_lite.networks.lstmemory_unit].
        input_proj_bias_attr, input_proj_layer_attr: as for
            [`lstmemory_unit`][paddle_lite.networks.lstmemory_unit].
        lstm_bias_attr, lstm_layer_attr: as for
            [`lstmemory_unit`][paddle_lite.networks.lstmemory_unit].

    Returns:
        The sequence of ``h_t`` (size ``H``), named ``<name>``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=4 * 32, act=paddle.activation.Linear())
        >>> lstm = paddle.networks.lstmemory_group(input=proj, size=32)
    """
    name = base.layer_name(name, "lstm_group")

    def lstm_step_fn(ipt: Layer) -> Layer:
        return lstmemory_unit(
            input=ipt,
            name=name,
            size=size,
            act=act,
            gate_act=gate_act,
            state_act=state_act,
            out_memory=out_memory,
            input_proj_bias_attr=input_proj_bias_attr,
            input_proj_layer_attr=input_proj_layer_attr,
            param_attr=param_attr,
            lstm_layer_attr=lstm_layer_attr,
            lstm_bias_attr=lstm_bias_attr,
        )

    return recurrent_group(
        name=f"{name}_recurrent_group", step=lstm_step_fn, reverse=reverse, input=input
    )


@base.layer_function
def gru_unit(
    input: Layer,
    memory_boot: Layer | None = None,
    size: int | None = None,
    name: str | None = None,
    gru_bias_attr: ParamAttr | bool | None = None,
    gru_param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    gru_layer_attr: ExtraAttr | None = None,
    naive: bool = False,
) -> Layer:
    """One GRU step for use inside a recurrent group (v2's ``gru_unit``).

    A memory ``<name>`` of ``h_{t-1}`` (booted from ``memory_boot`` when given) and a
    ``gru_step`` ``<name>`` (``gru_step_naive`` when ``naive``):

    $$
    \\begin{aligned}
    [z, r] &= gate([x^z, x^r] + b_{zr} + h_{t-1} U_g) \\\\
    \\tilde h &= act(x^c + b_c + (r \\odot h_{t-1}) U_c) \\\\
    h_t &= (1 - z) \\odot h_{t-1} + z \\odot \\tilde h
    \\end{aligned}
    $$

    Args:
        input: the step's input, already projected to ``3H`` (``[x^z, x^r, x^c]``).
        memory_boot: an outer layer giving ``h_0`` (default zeros).
        size: ``H`` (default ``input.size / 3``).
        name: the layer and memory name (default ``__gru_unit_<n>__``).
        gru_bias_attr, gru_param_attr: the bias and recurrent weight of the step
            (see [`gru_step`][paddle_lite.layer.gru_step]).
        act, gate_act: the candidate and gate activations (Tanh, Sigmoid).
        gru_layer_attr: ``Extra`` of the step.
        naive: build the step from mixed layers (``gru_step_naive``).

    Returns:
        ``h_t`` (size ``H``).

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=3 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     return paddle.networks.gru_unit(input=x_t, size=32, name="gru")
        >>> gru = paddle.layer.recurrent_group(step=step, input=proj)
        >>> gru.size
        32
    """
    name = base.layer_name(name, "gru_unit")
    size = _unit_size(input, size, 3, name)
    out_mem = memory(name=name, size=size, boot_layer=memory_boot)
    step = gru_step_naive if naive else gru_step
    return step(
        name=name,
        input=input,
        output_mem=out_mem,
        size=size,
        bias_attr=gru_bias_attr,
        param_attr=gru_param_attr,
        act=act,
        gate_act=gate_act,
        layer_attr=gru_layer_attr,
    )


@base.layer_function
def gru_group(
    input: Layer,
    memory_boot: Layer | None = None,
    size: int | None = None,
    name: str | None = None,
    reverse: bool = False,
    gru_bias_attr: ParamAttr | bool | None = None,
    gru_param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    gru_layer_attr: ExtraAttr | None = None,
    naive: bool = False,
) -> Layer:
    """A GRU as a recurrent group of [`gru_unit`][paddle_lite.networks.gru_unit] (v2's
    ``gru_group``).

    It computes what ``grumemory`` computes (see [`gru_unit`][paddle_lite.networks.gru_unit] for the
    step), with every step's layers inside the group ``<name>_recurrent_group``; ``grumemory`` is
    the faster choice when nothing inside the step is needed.

    Args:
        input: a sequence already projected to ``3H``.
        memory_boot: an outer layer giving ``h_0`` (default zeros).
        size: ``H`` (default ``input.size / 3``).
        name: the output's name (default ``__gru_group_<n>__``).
        reverse: run each sequence backwards.
        gru_bias_attr, gru_param_attr, act, gate_act, gru_layer_attr, naive: as
            [`gru_unit`][paddle_lite.networks.gru_unit].

    Returns:
        The sequence of ``h_t`` (size ``H``), named ``<name>``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=3 * 32, act=paddle.activation.Linear())
        >>> gru = paddle.networks.gru_group(input=proj, size=32)
        >>> gru.size
        32
    """
    name = base.layer_name(name, "gru_group")

    def gru_step_fn(ipt: Layer) -> Layer:
        return gru_unit(
            input=ipt,
            memory_boot=memory_boot,
            name=name,
            size=size,
            gru_bias_attr=gru_bias_attr,
            gru_param_attr=gru_param_attr,
            act=act,
            gate_act=gate_act,
            gru_layer_attr=gru_layer_attr,
            naive=naive,
        )

    return recurrent_group(
        name=f"{name}_recurrent_group", step=gru_step_fn, reverse=reverse, input=input
    )
