"""Composite sequence networks (v2 ``paddle.networks``) built only from public layer
functions."""

from __future__ import annotations

from paddle_lite._src.activations import BaseActivation, Linear
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import context_projection, full_matrix_projection
from paddle_lite._src.layers.recurrent.basic import lstmemory
from paddle_lite._src.layers.sequence.pooling import pooling
from paddle_lite._src.poolings import BasePoolingType


@base.layer_function
def simple_lstm(
    input: Layer,
    size: int,
    name: str | None = None,
    reverse: bool = False,
    mat_param_attr: ParamAttr | None = None,
    bias_param_attr: ParamAttr | bool | None = None,
    inner_param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    state_act: BaseActivation | None = None,
    mixed_layer_attr: ExtraAttr | None = None,
    lstm_cell_attr: ExtraAttr | None = None,
) -> Layer:
    """An input projection to 4·size followed by ``lstmemory`` (v2's simple LSTM).

    $$
    x'_t = x_t W_x \\quad (\\text{mixed layer } lstm\\_transform\\_<name>,
    \\text{ no bias}), \\qquad h = lstmemory(x')
    $$

    See [`lstmemory`][paddle_lite.layer.lstmemory] for the cell equations
    (peepholes included).

    Args:
        input: a dense sequence layer.
        size: the LSTM width ``H``.
        name: the LSTM layer's name (default ``__lstm_<n>__``); the projection layer
            is ``lstm_transform_<name>``.
        reverse: run each sequence backwards.
        mat_param_attr: ``Param`` of the projection weight ``[input.size, 4H]``.
        bias_param_attr: ``Param`` of the LSTM bias ``[1, 7H]``; ``False`` none.
        inner_param_attr: ``Param`` of the LSTM recurrent weight.
        act, gate_act, state_act: the LSTM activations (defaults Tanh, Sigmoid, Tanh).
        mixed_layer_attr: ``Extra`` of the projection layer.
        lstm_cell_attr: ``Extra`` of the LSTM layer.

    Returns:
        The LSTM sequence layer of size ``size``.

    Example:
        >>> lstm = paddle.networks.simple_lstm(input=emb, size=32)
    """
    name = base.layer_name(name, "lstm")
    size = base.positive_int(size, layer=name, arg="size")
    transform = mixed(
        name=f"lstm_transform_{name}",
        size=size * 4,
        act=Linear(),
        layer_attr=mixed_layer_attr,
        bias_attr=False,
        input=[full_matrix_projection(input=input, param_attr=mat_param_attr)],
    )
    return lstmemory(
        name=name,
        input=transform,
        reverse=reverse,
        bias_attr=bias_param_attr,
        param_attr=inner_param_attr,
        act=act,
        gate_act=gate_act,
        state_act=state_act,
        layer_attr=lstm_cell_attr,
    )


@base.layer_function
def sequence_conv_pool(
    input: Layer,
    context_len: int,
    hidden_size: int,
    name: str | None = None,
    context_start: int | None = None,
    pool_type: BasePoolingType | None = None,
    context_proj_layer_name: str | None = None,
    context_proj_param_attr: ParamAttr | None = False,
    fc_layer_name: str | None = None,
    fc_param_attr: ParamAttr | None = None,
    fc_bias_attr: ParamAttr | bool | None = None,
    fc_act: BaseActivation | None = None,
    pool_bias_attr: ParamAttr | bool | None = None,
    fc_attr: ExtraAttr | None = None,
    context_attr: ExtraAttr | None = None,
    pool_attr: ExtraAttr | None = None,
) -> Layer:
    """A text convolution: context projection → fc → pooling over time (v2's
    ``sequence_conv_pool``, alias ``text_conv_pool``).

    ``h_t = fc_act([x_{t+s}, ..., x_{t+s+len-1}] W + b)``, ``out = pool_t h_t``, with
    ``s = context_start`` and ``len = context_len`` (see
    [`context_projection`][paddle_lite.layer.context_projection] for the window and its padding).
    Layers: ``<name>_conv_proj`` (a mixed layer of size ``input.size * context_len``
    holding the ``context_projection``), ``<name>_conv_fc`` (an ``fc`` of
    ``hidden_size``) and ``<name>`` (a sequence ``pooling``).

    Args:
        input: a dense sequence layer (e.g. word embeddings).
        context_len: the window length.
        hidden_size: the fc width (the number of filters).
        name: the pooling layer's name and the others' prefix (default
            ``__sequence_conv_pooling_<n>__``).
        context_start: the window's first offset (default ``-(context_len - 1) // 2``).
        pool_type: the pooling over time (default ``paddle.pooling.Max()``).
        context_proj_layer_name, fc_layer_name: names replacing ``<name>_conv_proj``
            and ``<name>_conv_fc``.
        context_proj_param_attr: the window's padding: ``False`` (default) zeros, else
            trainable (``True``/``None`` or a ``Param``).
        fc_param_attr, fc_bias_attr: the fc's weight and bias.
        fc_act: the fc's activation (default Tanh).
        pool_bias_attr: a bias of the pooling (default none).
        fc_attr, context_attr, pool_attr: the ``Extra`` of the fc, projection and
            pooling layers.

    Returns:
        A non-sequence layer of size ``hidden_size``.

    Example:
        >>> conv3 = paddle.networks.sequence_conv_pool(input=emb, context_len=3, hidden_size=128)
        >>> conv3.size
        128
    """
    name = base.layer_name(name, "sequence_conv_pooling")
    with mixed(
        name=context_proj_layer_name or f"{name}_conv_proj",
        size=input.size * context_len,
        act=Linear(),
        layer_attr=context_attr,
    ) as proj:
        proj += context_projection(
            input=input,
            context_len=context_len,
            context_start=context_start,
            padding_attr=context_proj_param_attr,
        )
    hidden = fc(
        name=fc_layer_name or f"{name}_conv_fc",
        input=proj,
        size=hidden_size,
        act=fc_act,
        layer_attr=fc_attr,
        param_attr=fc_param_attr,
        bias_attr=fc_bias_attr,
    )
    return pooling(
        name=name,
        input=hidden,
        pooling_type=pool_type,
        bias_attr=pool_bias_attr,
        layer_attr=pool_attr,
    )


text_conv_pool = sequence_conv_pool
