"""Bidirectional recurrent networks and attention (v2's ``paddle.networks``):
bidirectional_lstm, bidirectional_gru, simple_attention. (``dot_product_attention`` and
``multi_head_attention``, added in 2018, are in ``networks.dot_attention``.)

Built only from public layer functions, with v2's layer names.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src.activations import BaseActivation, SequenceSoftmax, Tanh
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.concat import concat
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.math.basic import scaling
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import full_matrix_projection, identity_projection
from paddle_lite._src.layers.sequence.pooling import first_seq, last_seq, pooling
from paddle_lite._src.layers.sequence.reshape import expand
from paddle_lite._src.networks.gru import simple_gru2
from paddle_lite._src.networks.sequence import simple_lstm
from paddle_lite._src.poolings import Sum


def _directions(name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act):
    """The two directions joined: whole sequences, or the last forward and first
    backward steps (``<name>_fw_last``, ``<name>_bw_last``), concatenated as ``<name>``."""
    if return_seq:
        return concat(name=name, input=[fw, bw], layer_attr=concat_attr, act=concat_act)
    fw_seq = last_seq(name=f"{name}_fw_last", input=fw, layer_attr=last_seq_attr)
    bw_seq = first_seq(name=f"{name}_bw_last", input=bw, layer_attr=first_seq_attr)
    return concat(name=name, input=[fw_seq, bw_seq], layer_attr=concat_attr, act=concat_act)


@base.layer_function
def bidirectional_lstm(
    input: Layer,
    size: int,
    name: str | None = None,
    return_seq: bool = False,
    fwd_mat_param_attr: ParamAttr | None = None,
    fwd_bias_param_attr: ParamAttr | bool | None = None,
    fwd_inner_param_attr: ParamAttr | None = None,
    fwd_act: BaseActivation | None = None,
    fwd_gate_act: BaseActivation | None = None,
    fwd_state_act: BaseActivation | None = None,
    fwd_mixed_layer_attr: ExtraAttr | None = None,
    fwd_lstm_cell_attr: ExtraAttr | None = None,
    bwd_mat_param_attr: ParamAttr | None = None,
    bwd_bias_param_attr: ParamAttr | bool | None = None,
    bwd_inner_param_attr: ParamAttr | None = None,
    bwd_act: BaseActivation | None = None,
    bwd_gate_act: BaseActivation | None = None,
    bwd_state_act: BaseActivation | None = None,
    bwd_mixed_layer_attr: ExtraAttr | None = None,
    bwd_lstm_cell_attr: ExtraAttr | None = None,
    last_seq_attr: ExtraAttr | None = None,
    first_seq_attr: ExtraAttr | None = None,
    concat_attr: ExtraAttr | None = None,
    concat_act: BaseActivation | None = None,
) -> Layer:
    """A forward ``simple_lstm`` ``<name>_fw`` and a reversed one ``<name>_bw``, joined:
    ``out_t = [fw_t, bw_t]`` with ``return_seq``, else ``out = [fw_{len-1}, bw_0]``.

    ``bw_0`` is the backward LSTM's state after reading the whole sequence; the two
    ends are ``last_seq`` ``<name>_fw_last`` and ``first_seq`` ``<name>_bw_last``.

    Args:
        input: a dense sequence layer.
        size: the width ``H`` of each LSTM.
        name: the output's name and the prefix of the others (default
            ``__bidirectional_lstm_<n>__``).
        return_seq: return the whole sequences instead of their ends.
        fwd_*: the forward [`simple_lstm`][paddle_lite.networks.simple_lstm]'s arguments, prefixed:
            ``fwd_`` + ``mat_param_attr``, ``bias_param_attr``, ``inner_param_attr``, ``act``,
            ``gate_act``, ``state_act``, ``mixed_layer_attr``, ``lstm_cell_attr``.
        bwd_*: the same for the backward one.
        last_seq_attr, first_seq_attr: ``Extra`` of the two ends.
        concat_attr, concat_act: ``Extra`` and activation (default Linear) of the
            concatenation.

    Returns:
        A layer of size ``2·size`` named ``<name>``: a sequence with ``return_seq``,
        else one vector per sample.

    Example:
        >>> bi = paddle.networks.bidirectional_lstm(input=emb, size=32)
        >>> bi.size
        64
    """
    name = base.layer_name(name, "bidirectional_lstm")
    fw = simple_lstm(
        name=f"{name}_fw",
        input=input,
        size=size,
        mat_param_attr=fwd_mat_param_attr,
        bias_param_attr=fwd_bias_param_attr,
        inner_param_attr=fwd_inner_param_attr,
        act=fwd_act,
        gate_act=fwd_gate_act,
        state_act=fwd_state_act,
        mixed_layer_attr=fwd_mixed_layer_attr,
        lstm_cell_attr=fwd_lstm_cell_attr,
    )
    bw = simple_lstm(
        name=f"{name}_bw",
        input=input,
        size=size,
        reverse=True,
        mat_param_attr=bwd_mat_param_attr,
        bias_param_attr=bwd_bias_param_attr,
        inner_param_attr=bwd_inner_param_attr,
        act=bwd_act,
        gate_act=bwd_gate_act,
        state_act=bwd_state_act,
        mixed_layer_attr=bwd_mixed_layer_attr,
        lstm_cell_attr=bwd_lstm_cell_attr,
    )
    return _directions(
        name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act
    )


@base.layer_function
def bidirectional_gru(
    input: Layer,
    size: int,
    name: str | None = None,
    return_seq: bool = False,
    fwd_mixed_param_attr: ParamAttr | None = None,
    fwd_mixed_bias_attr: ParamAttr | bool | None = None,
    fwd_gru_param_attr: ParamAttr | None = None,
    fwd_gru_bias_attr: ParamAttr | bool | None = None,
    fwd_act: BaseActivation | None = None,
    fwd_gate_act: BaseActivation | None = None,
    fwd_mixed_layer_attr: ExtraAttr | None = None,
    fwd_gru_cell_attr: ExtraAttr | None = None,
    bwd_mixed_param_attr: ParamAttr | None = None,
    bwd_mixed_bias_attr: ParamAttr | bool | None = None,
    bwd_gru_param_attr: ParamAttr | None = None,
    bwd_gru_bias_attr: ParamAttr | bool | None = None,
    bwd_act: BaseActivation | None = None,
    bwd_gate_act: BaseActivation | None = None,
    bwd_mixed_layer_attr: ExtraAttr | None = None,
    bwd_gru_cell_attr: ExtraAttr | None = None,
    last_seq_attr: ExtraAttr | None = None,
    first_seq_attr: ExtraAttr | None = None,
    concat_attr: ExtraAttr | None = None,
    concat_act: BaseActivation | None = None,
) -> Layer:
    """A forward ``simple_gru2`` ``<name>_fw`` and a reversed one ``<name>_bw``, joined:
    ``out_t = [fw_t, bw_t]`` with ``return_seq``, else ``out = [fw_{len-1}, bw_0]``
    (as [`bidirectional_lstm`][paddle_lite.networks.bidirectional_lstm], with GRUs).

    Args:
        input: a dense sequence layer.
        size: the width ``H`` of each GRU.
        name: the output's name and the prefix of the others (default
            ``__bidirectional_gru_<n>__``).
        return_seq: return the whole sequences instead of their ends.
        fwd_*: the forward [`simple_gru2`][paddle_lite.networks.simple_gru2]'s arguments, prefixed:
            ``fwd_`` + ``mixed_param_attr``, ``mixed_bias_attr``, ``gru_param_attr``,
            ``gru_bias_attr``, ``act``, ``gate_act``, ``mixed_layer_attr``, ``gru_cell_attr``.
        bwd_*: the same for the backward one.
        last_seq_attr, first_seq_attr: ``Extra`` of the two ends.
        concat_attr, concat_act: ``Extra`` and activation (default Linear) of the
            concatenation.

    Returns:
        A layer of size ``2·size`` named ``<name>``: a sequence with ``return_seq``,
        else one vector per sample.

    Example:
        >>> bi = paddle.networks.bidirectional_gru(input=emb, size=32, return_seq=True)
        >>> bi.size
        64
    """
    name = base.layer_name(name, "bidirectional_gru")
    fw = simple_gru2(
        name=f"{name}_fw",
        input=input,
        size=size,
        mixed_param_attr=fwd_mixed_param_attr,
        mixed_bias_attr=fwd_mixed_bias_attr,
        gru_param_attr=fwd_gru_param_attr,
        gru_bias_attr=fwd_gru_bias_attr,
        act=fwd_act,
        gate_act=fwd_gate_act,
        mixed_layer_attr=fwd_mixed_layer_attr,
        gru_cell_attr=fwd_gru_cell_attr,
    )
    bw = simple_gru2(
        name=f"{name}_bw",
        input=input,
        size=size,
        reverse=True,
        mixed_param_attr=bwd_mixed_param_attr,
        mixed_bias_attr=bwd_mixed_bias_attr,
        gru_param_attr=bwd_gru_param_attr,
        gru_bias_attr=bwd_gru_bias_attr,
        act=bwd_act,
        gate_act=bwd_gate_act,
        mixed_layer_attr=bwd_mixed_layer_attr,
        gru_cell_attr=bwd_gru_cell_attr,
    )
    return _directions(
        name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act
    )


def _attend(name: str, scores: Layer, values: Layer, softmax_param_attr: Any) -> Layer:
    """``sum_j softmax_j(scores_j v) values_j``: ``<name>_softmax``, ``_scaling``, ``_pooling``."""
    weight = fc(
        input=scores,
        size=1,
        act=SequenceSoftmax(),
        param_attr=softmax_param_attr,
        name=f"{name}_softmax",
        bias_attr=False,
    )
    scaled = scaling(weight=weight, input=values, name=f"{name}_scaling")
    return pooling(input=scaled, pooling_type=Sum(), name=f"{name}_pooling")


@base.layer_function
def simple_attention(
    encoded_sequence: Layer,
    encoded_proj: Layer,
    decoder_state: Layer,
    transform_param_attr: ParamAttr | None = None,
    softmax_param_attr: ParamAttr | None = None,
    weight_act: BaseActivation | None = None,
    name: str | None = None,
) -> Layer:
    """Bahdanau attention: a context vector over the encoder's sequence.

    $$
    \\begin{aligned}
    e_j &= v^T f(W s_{t-1} + U h_j), \\qquad a_j = \\frac{\\exp e_j}{\\sum_k \\exp e_k} \\\\
    c_t &= \\sum_j a_j h_j
    \\end{aligned}
    $$

    ``h_j`` are the steps of ``encoded_sequence``, ``U h_j`` those of ``encoded_proj``
    (computed once, outside the step), ``s_{t-1}`` is ``decoder_state``, ``f`` is
    ``weight_act``. Layers: ``<name>_transform`` (``W``), ``_expand``, ``_combine``,
    ``_softmax`` (``v``, ``[proj, 1]``, no bias), ``_scaling``, ``_pooling``.

    Args:
        encoded_sequence: the encoder's output sequence (a ``StaticInput`` in a step).
        encoded_proj: its projection, of ``decoder_state``'s size.
        decoder_state: the decoder's previous state (a memory).
        transform_param_attr: ``Param`` of ``W``.
        softmax_param_attr: ``Param`` of ``v``.
        weight_act: ``f`` (default Tanh).
        name: default ``__simple_attention_<n>__``.

    Returns:
        The context, one vector of ``encoded_sequence.size`` per sample.

    Example:
        >>> enc_proj = paddle.layer.fc(input=emb, size=32, act=paddle.activation.Linear())
        >>> trg = paddle.layer.embedding(input=tags, size=16)
        >>> def step(enc_seq, enc_p, cur_word):
        ...     state = paddle.layer.memory(name="decoder", size=32)
        ...     context = paddle.networks.simple_attention(
        ...         encoded_sequence=enc_seq, encoded_proj=enc_p, decoder_state=state)
        ...     return paddle.layer.fc(input=[context, cur_word, state], size=32,
        ...                            name="decoder")
        >>> decoder = paddle.layer.recurrent_group(step=step, input=[
        ...     paddle.layer.StaticInput(input=emb, is_seq=True),
        ...     paddle.layer.StaticInput(input=enc_proj, is_seq=True), trg])
        >>> decoder.size
        32
    """
    name = base.layer_name(name, "simple_attention")
    if encoded_proj.size != decoder_state.size:
        raise LayerConfigError(
            f"'{name}': encoded_proj.size ({encoded_proj.size}) must equal decoder_state.size "
            f"({decoder_state.size})."
        )
    size = encoded_proj.size
    with mixed(size=size, name=f"{name}_transform") as m:
        m += full_matrix_projection(input=decoder_state, param_attr=transform_param_attr)
    expanded = expand(input=m, expand_as=encoded_sequence, name=f"{name}_expand")
    act = Tanh() if weight_act is None else weight_act
    with mixed(size=size, act=act, name=f"{name}_combine") as combined:
        combined += identity_projection(input=expanded)
        combined += identity_projection(input=encoded_proj)
    return _attend(name, combined, encoded_sequence, softmax_param_attr)
