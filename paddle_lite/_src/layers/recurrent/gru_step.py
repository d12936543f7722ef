"""One step of a GRU, for recurrent groups: gru_step and gru_step_naive.

Each computes ``h_t`` from the step's input ``[z, r, c]`` (pre-activations, ``3H``) and
a ``memory`` of ``h_{t-1}``. ``gru_step`` owns ``w0`` ``[H, 3H]`` (the ``[H, 2H]`` gate
matrix then the ``[H, H]`` candidate matrix, row-major, as ``grumemory``) and ``wbias``
``[1, 3H]``; ``gru_step_naive`` builds the same maths from mixed layers. The LSTM step
and the checks both share are in ``recurrent.lstm_step``.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import (
    BaseActivation,
    Linear,
    Sigmoid,
    Tanh,
    as_activation,
    cell_activation,
)
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import (
    dotmul_operator,
    full_matrix_projection,
    identity_projection,
)
from paddle_lite._src.layers.recurrent.lstm_step import check_step_state
from paddle_lite._src.specs import Spec


def gru_cell(x: Any, h_prev: Any, w: Any, bias: Any, attrs: Any) -> Any:
    """``h_t`` from ``x = [z, r, c]`` pre-activations and ``h_{t-1}`` (v2's GRU)."""
    h = h_prev.shape[-1]
    flat = w.reshape(-1)
    w_gates, w_cand = flat[: 2 * h * h].reshape(h, 2 * h), flat[2 * h * h :].reshape(h, h)
    act, gate = attrs["cell_act"], attrs["gate_act"]
    x = x + bias
    gates = x[:, : 2 * h] + h_prev @ w_gates
    update, reset = gate.apply(gates[:, :h]), gate.apply(gates[:, h:])
    cand = act.apply(x[:, 2 * h :] + (reset * h_prev) @ w_cand)
    return h_prev - update * h_prev + update * cand


class GruStepKind(Kind):
    name = "gru_step"

    def infer_spec(self, inputs, attrs):
        return Spec(check_step_state(inputs, 3))

    def param_specs(self, inputs, attrs):
        h = inputs[1].size
        decls = [ParamDecl("w0", (h, 3 * h), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, 3 * h), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        bias = params["wbias"][0] if attrs["bias"] else 0.0
        return gru_cell(inputs[0], inputs[1], params["w0"], bias, attrs)


register_kind(GruStepKind())


def _gru_args(input, output_mem, size, name):
    inp = base.as_layer(input, layer=name, arg="input")
    mem = base.as_layer(output_mem, layer=name, arg="output_mem")
    if inp.size % 3:
        raise LayerConfigError(
            f"layer '{name}': input size must be a multiple of 3; received {inp.size}."
        )
    if size is not None and size != inp.size // 3:
        raise LayerConfigError(
            f"layer '{name}': size={size} must equal input.size / 3 = {inp.size // 3}."
        )
    return inp, mem, inp.size // 3


@base.layer_function
def gru_step(
    input: Layer,
    output_mem: Layer,
    size: int | None = None,
    act: BaseActivation | None = None,
    name: str | None = None,
    gate_act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """One GRU step inside a recurrent group (v2's ``gru_step_layer``).

    ``input`` holds ``[z, r, c]`` pre-activations ``W x_t`` (size ``3H``),
    ``output_mem`` a memory of ``h_{t-1}``:

    $$
    \\begin{aligned}
    [z, r] &= gate([x^z, x^r] + b_{zr} + h_{t-1} U_g) \\\\
    \\tilde h &= act(x^c + b_c + (r \\odot h_{t-1}) U_c) \\\\
    h_t &= (1 - z) \\odot h_{t-1} + z \\odot \\tilde h
    \\end{aligned}
    $$

    Args:
        input: a dense layer of size ``3H``.
        output_mem: the memory of this layer's previous output (name it like this layer).
        size: when given it must equal ``input.size / 3``.
        act, gate_act: Tanh and Sigmoid by default.
        name: the layer name (default ``__gru_step_<n>__``); the memory of its output
            takes the same name.
        bias_attr: ``_<name>.wbias`` ``[1, 3H]``; ``False`` none.
        param_attr: ``_<name>.w0`` ``[H, 3H]`` (``U_g`` then ``U_c``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        ``h_t``, size ``H``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=3 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     mem = paddle.layer.memory(name="gru", size=32)
        ...     return paddle.layer.gru_step(name="gru", input=x_t, output_mem=mem)
        >>> gru = paddle.layer.recurrent_group(step=step, input=proj)
        >>> gru.size
        32
    """
    name = base.layer_name(name, "gru_step")
    inp, mem, _ = _gru_args(input, output_mem, size, name)
    attrs = {
        "cell_act": cell_activation(act, Tanh(), layer=name, arg="act"),
        "gate_act": cell_activation(gate_act, Sigmoid(), layer=name, arg="gate_act"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build(
        "gru_step",
        name=name,
        inputs=[inp, mem],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


@base.layer_function
def gru_step_naive(
    input: Layer,
    output_mem: Layer,
    size: int | None = None,
    name: str | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """``gru_step`` built from mixed layers, so it takes ``drop_rate`` and
    ``error_clipping_threshold`` (v2's ``gru_step_naive_layer``).

    Layers ``<name>_update``, ``<name>_reset`` (gates), ``<name>_reset_output``,
    ``<name>_output_candidate`` and ``<name>``; same maths as
    [`gru_step`][paddle_lite.layer.gru_step], with ``U_g`` split by gate and each part's own bias.

    Args:
        input, output_mem, size, act, gate_act: as [`gru_step`][paddle_lite.layer.gru_step].
        name: the layer name (default ``__gru_step_naive_<n>__``).
        bias_attr: the biases of the gate and candidate layers (default on); a named
            ``Param`` makes the three share one bias (v2 refused a name here).
        param_attr: ``Param`` of the three recurrent matrices (one name shares them).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        ``h_t``, size ``input.size / 3``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=3 * 32, act=paddle.activation.Linear())
        >>> def step(x_t):
        ...     mem = paddle.layer.memory(name="gru", size=32)
        ...     return paddle.layer.gru_step_naive(name="gru", input=x_t, output_mem=mem)
        >>> gru = paddle.layer.recurrent_group(step=step, input=proj)
        >>> gru.size
        32
    """
    name = base.layer_name(name, "gru_step_naive")
    inp, mem, size = _gru_args(input, output_mem, size, name)
    bias_attr = True if bias_attr is None else bias_attr  # v2: a bias unless False
    gate_act = as_activation(Sigmoid() if gate_act is None else gate_act, layer=name)
    act = as_activation(Tanh() if act is None else act, layer=name)

    def gate(which: str, offset: int) -> Layer:
        return mixed(
            name=f"{name}_{which}",
            size=size,
            act=gate_act,
            bias_attr=bias_attr,
            layer_attr=layer_attr,
            input=[
                identity_projection(input=inp, offset=offset, size=size),
                full_matrix_projection(input=mem, param_attr=param_attr),
            ],
        )

    update, reset = gate("update", 0), gate("reset", size)
    reset_out = mixed(name=f"{name}_reset_output", input=[dotmul_operator(a=mem, b=reset)])
    candidate = mixed(
        name=f"{name}_output_candidate",
        size=size,
        act=act,
        bias_attr=bias_attr,
        layer_attr=layer_attr,
        input=[
            identity_projection(input=inp, offset=2 * size, size=size),
            full_matrix_projection(input=reset_out, param_attr=param_attr),
        ],
    )
    return mixed(
        name=name,
        act=Linear(),
        input=[
            identity_projection(input=mem),
            dotmul_operator(a=mem, b=update, scale=-1.0),
            dotmul_operator(a=candidate, b=update),
        ],
    )
