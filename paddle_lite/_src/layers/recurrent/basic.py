"""Recurrent layers over padded sequences: recurrent, lstmemory, grumemory.

Each runs one ``lax.scan`` over time (``recurrent.scan``). Padding is ignored exactly:
at a padded step the state is carried unchanged and the output is 0. ``reverse=True``
runs every sequence from its own last valid step back to its first.

Parameter memory layouts follow v2 so model tars interoperate: the ``w0`` array of
``lstmemory`` (dims ``[H, H, 4]``) is read as a row-major ``[H, 4H]`` matrix;
``grumemory``'s ``w0`` (dims ``[H, 3H]``) holds a row-major ``[H, 2H]`` gate matrix
followed by a row-major ``[H, H]`` candidate matrix.
"""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import (
    BaseActivation,
    Sigmoid,
    Tanh,
    as_activation,
    cell_activation,
)
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    HostChecks,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.recurrent.common import (
    build_recurrent,
    check_size,
    common_attrs,
    sequence_hidden,
    sequence_input,
    unapplied_drop_rate,
    v2_args,
)
from paddle_lite._src.layers.recurrent.scan import (
    as_sequence,
    like_input,
    scan_sequence,
    zero_state,
)
from paddle_lite._src.specs import Spec


# recurrent ---------------------------------------------------------------------------
class RecurrentKind(Kind):
    name = "recurrent"
    v2 = V2Layer(rebuild=lambda cfg, ins: recurrent(**v2_args(cfg, ins)))
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        return Spec(sequence_input(inputs[0], 1), seq_level=inputs[0].seq_level)

    def param_specs(self, inputs, attrs):
        size = inputs[0].size
        decls = [ParamDecl("w0", (size, size), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, size), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        seq = as_sequence(inputs[0])
        w, act = params["w0"], attrs["cell_act"]
        bias = params["wbias"][0] if attrs["bias"] else 0.0

        def step(h, x):
            h = act.apply(x + bias + h @ w)
            return h, h

        out = scan_sequence(step, zero_state(seq, w.shape[0]), seq, attrs["reverse"])
        return like_input(inputs[0], seq._replace(data=out))


register_kind(RecurrentKind())


@base.layer_function
def recurrent(
    input: Layer,
    act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    name: str | None = None,
    reverse: bool = False,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A simple recurrent layer over a sequence whose input is already projected.

    $$
    out_t = act(in_t + out_{t-1} W + b), \\quad out_{-1} = 0
    $$

    (with ``reverse=True`` the recurrence runs from each sequence's last step).

    Args:
        input: a dense sequence layer of size ``H``.
        act: activation inside the recurrence (default ``Tanh``).
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        param_attr: a ``Param`` for the recurrent weight ``W``.
        name: the layer name (default ``__recurrent_layer_<n>__``).
        reverse: run each sequence backwards.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A sequence layer of size ``H``; weight ``_<name>.w0`` ``[H, H]``, bias
        ``_<name>.wbias`` ``[1, H]``.

    Example:
        >>> rnn = paddle.layer.recurrent(input=paddle.layer.fc(input=emb, size=32))
    """
    name = base.layer_name(name, "recurrent_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "cell_act": as_activation(Tanh() if act is None else act, layer=name),
        **common_attrs(name, reverse, layer_attr),
    }
    return build_recurrent("recurrent", name, inp, attrs, param_attr, bias_attr)


# lstmemory ---------------------------------------------------------------------------
class LstmKind(Kind):
    name = "lstmemory"
    v2 = V2Layer(rebuild=lambda cfg, ins: lstmemory(**v2_args(cfg, ins, gated=True, state=True)))
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        return Spec(sequence_input(inputs[0], 4), seq_level=inputs[0].seq_level)

    def param_specs(self, inputs, attrs):
        h = inputs[0].size // 4
        decls = [ParamDecl("w0", (h, h, 4), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, 7 * h), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        seq = as_sequence(inputs[0])
        h = seq.data.shape[-1] // 4
        w = params["w0"].reshape(h, 4 * h)
        bias = params["wbias"][0] if attrs["bias"] else jnp.zeros(7 * h, seq.data.dtype)
        peep_i, peep_f, peep_o = bias[4 * h : 5 * h], bias[5 * h : 6 * h], bias[6 * h :]
        act, gate, state_act = attrs["cell_act"], attrs["gate_act"], attrs["state_act"]

        def step(carry, x):
            out, cell = carry
            z = x + bias[: 4 * h] + out @ w
            cand, in_g, forget_g, out_g = jnp.split(z, 4, axis=-1)
            in_g = gate.apply(in_g + cell * peep_i)
            forget_g = gate.apply(forget_g + cell * peep_f)
            cell = act.apply(cand) * in_g + cell * forget_g
            out = gate.apply(out_g + cell * peep_o) * state_act.apply(cell)
            return (out, cell), out

        init = (zero_state(seq, h), zero_state(seq, h))
        out = seq._replace(data=scan_sequence(step, init, seq, attrs["reverse"]))
        return like_input(inputs[0], out)


register_kind(LstmKind())


@base.layer_function
def lstmemory(
    input: Layer,
    name: str | None = None,
    size: int | None = None,
    reverse: bool = False,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    state_act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """An LSTM with peephole connections over a sequence already projected to 4·H.

    The input step holds ``[a, i, f, o]`` pre-activations (candidate, input gate,
    forget gate, output gate, ``H`` each; v2's order). With ``W`` the ``[H, 4H]``
    recurrent weight, ``b`` the first 4·H bias values and ``c_i, c_f, c_o`` the three
    peephole vectors that follow them:

    $$
    \\begin{aligned}
    [a, i, f, o] &= x_t + h_{t-1} W + b \\\\
    i_t &= gate(i + c_{t-1} \\odot c_i), \\quad f_t = gate(f + c_{t-1} \\odot c_f) \\\\
    c_t &= act(a) \\odot i_t + c_{t-1} \\odot f_t \\\\
    h_t &= gate(o + c_t \\odot c_o) \\odot state\\_act(c_t)
    \\end{aligned}
    $$

    Args:
        input: a dense sequence layer of size ``4·H`` (e.g. a mixed layer with a
            ``full_matrix_projection``).
        name: the layer name (default ``__lstmemory_<n>__``).
        size: deprecated; when given it must equal ``input.size / 4``.
        reverse: run each sequence backwards.
        act: candidate activation (default ``Tanh``).
        gate_act: gate activation (default ``Sigmoid``).
        state_act: cell-output activation (default ``Tanh``).
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        param_attr: a ``Param`` for the recurrent weight.
        layer_attr: ``Extra(drop_rate=..., device=...)``: as in v2 (2017), dropout on
            the output sequence (non-inverted; outputs scaled by ``1 - rate`` in test).

    Returns:
        A sequence layer of size ``H``; weight ``_<name>.w0`` with dims ``[H, H, 4]``
        (read as ``[H, 4H]``), bias ``_<name>.wbias`` ``[1, 7H]``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=4 * 32, act=paddle.activation.Linear())
        >>> lstm = paddle.layer.lstmemory(input=proj)
    """
    name = base.layer_name(name, "lstmemory")
    (inp,) = base.as_layers(input, layer=name)
    hidden = sequence_hidden(inp, name, 4)
    check_size(size, hidden, layer=name, multiple=4)
    attrs = {
        "cell_act": cell_activation(act, Tanh(), layer=name, arg="act"),
        "gate_act": cell_activation(gate_act, Sigmoid(), layer=name, arg="gate_act"),
        "state_act": cell_activation(state_act, Tanh(), layer=name, arg="state_act"),
        **common_attrs(name, reverse, layer_attr, base.DROP_ONLY),
    }
    return build_recurrent("lstmemory", name, inp, attrs, param_attr, bias_attr)


# grumemory ---------------------------------------------------------------------------
class GruKind(Kind):
    name = "gated_recurrent"
    v2 = V2Layer(rebuild=lambda cfg, ins: grumemory(**v2_args(cfg, ins, gated=True)))
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        return Spec(sequence_input(inputs[0], 3), seq_level=inputs[0].seq_level)

    def param_specs(self, inputs, attrs):
        h = inputs[0].size // 3
        decls = [ParamDecl("w0", (h, 3 * h), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, 3 * h), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        seq = as_sequence(inputs[0])
        h = seq.data.shape[-1] // 3
        flat = params["w0"].reshape(-1)
        w_gates = flat[: 2 * h * h].reshape(h, 2 * h)
        w_cand = flat[2 * h * h :].reshape(h, h)
        bias = params["wbias"][0] if attrs["bias"] else 0.0
        act, gate = attrs["cell_act"], attrs["gate_act"]

        def step(out, x):
            x = x + bias
            gates = x[:, : 2 * h] + out @ w_gates
            update, reset = gate.apply(gates[:, :h]), gate.apply(gates[:, h:])
            cand = act.apply(x[:, 2 * h :] + (reset * out) @ w_cand)
            out = out - update * out + update * cand
            return out, out

        out = seq._replace(data=scan_sequence(step, zero_state(seq, h), seq, attrs["reverse"]))
        return like_input(inputs[0], out)


register_kind(GruKind())


@base.layer_function
def grumemory(
    input: Layer,
    size: int | None = None,
    name: str | None = None,
    reverse: bool = False,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A GRU over a sequence already projected to 3·H.

    The input step holds ``[z, r, c]`` pre-activations (update gate, reset gate,
    candidate; v2's order). ``W_g`` ``[H, 2H]`` and ``W_c`` ``[H, H]`` are the two
    parts of the recurrent weight, ``b`` the ``3H`` bias:

    $$
    \\begin{aligned}
    [z, r] &= gate([x^z_t, x^r_t] + b_{zr} + h_{t-1} W_g) \\\\
    \\tilde h_t &= act(x^c_t + b_c + (r \\odot h_{t-1}) W_c) \\\\
    h_t &= (1 - z) \\odot h_{t-1} + z \\odot \\tilde h_t
    \\end{aligned}
    $$

    Args:
        input: a dense sequence layer of size ``3·H``.
        size: optional; when given it must equal ``input.size / 3``.
        name: the layer name (default ``__gru_<n>__``).
        reverse: run each sequence backwards.
        act: candidate activation (default ``Tanh``).
        gate_act: gate activation (default ``Sigmoid``).
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        param_attr: a ``Param`` for the recurrent weight.
        layer_attr: ``Extra(device=...)``; ``drop_rate`` is accepted and, as in v2,
            not applied (with a ``LayerConfigWarning``).

    Returns:
        A sequence layer of size ``H``; weight ``_<name>.w0`` ``[H, 3H]`` (memory: the
        ``[H, 2H]`` gate matrix, then the ``[H, H]`` candidate matrix), bias
        ``_<name>.wbias`` ``[1, 3H]``.

    Example:
        >>> proj = paddle.layer.fc(input=emb, size=3 * 32, act=paddle.activation.Linear())
        >>> gru = paddle.layer.grumemory(input=proj)
    """
    name = base.layer_name(name, "gru")
    (inp,) = base.as_layers(input, layer=name)
    hidden = sequence_hidden(inp, name, 3)
    check_size(size, hidden, layer=name, multiple=3)
    attrs = {
        "cell_act": cell_activation(act, Tanh(), layer=name, arg="act"),
        "gate_act": cell_activation(gate_act, Sigmoid(), layer=name, arg="gate_act"),
        **common_attrs(name, reverse, layer_attr, base.DROP_ONLY),
    }
    attrs = unapplied_drop_rate(attrs, name)
    return build_recurrent("gated_recurrent", name, inp, attrs, param_attr, bias_attr)
