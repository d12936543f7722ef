"""Dot-product attention networks (v2's ``paddle.networks``): dot_product_attention and
multi_head_attention, added to v2's networks in 2018.

Built only from public layer functions, with v2's layer names.
"""

from __future__ import annotations

import math
from typing import Any

from paddle_lite._src.activations import SequenceSoftmax, Tanh
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.concat import concat
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.math.basic import scaling, slope_intercept
from paddle_lite._src.layers.math.pairs import dot_prod
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import full_matrix_projection, identity_projection
from paddle_lite._src.layers.sequence.pooling import pooling
from paddle_lite._src.layers.sequence.reshape import expand
from paddle_lite._src.poolings import Sum

ATTENTION_TYPES = ("dot-product attention", "additive attention")


def _weighted_sum(scores: Layer, values: Layer, attr: Any, prefix: str, tail: str = "") -> Layer:
    """``sum_j softmax_j(scores_j v) values_j``: the layers ``<prefix>_softmax<tail>``,
    ``<prefix>_scaling<tail>`` and ``<prefix>_pooling<tail>`` (v2's names)."""
    weight = fc(
        input=scores,
        size=1,
        act=SequenceSoftmax(),
        param_attr=attr,
        name=f"{prefix}_softmax{tail}",
        bias_attr=False,
    )
    scaled = scaling(weight=weight, input=values, name=f"{prefix}_scaling{tail}")
    return pooling(input=scaled, pooling_type=Sum(), name=f"{prefix}_pooling{tail}")


@base.layer_function
def dot_product_attention(
    encoded_sequence: Layer,
    attended_sequence: Layer,
    transformed_state: Layer,
    softmax_param_attr: ParamAttr | None = None,
    name: str | None = None,
) -> Layer:
    """Attention whose scores are dot products with the decoder state.

    $$
    e_j = v \\, (s^T h_j), \\qquad a_j = \\frac{\\exp e_j}{\\sum_k \\exp e_k}, \\qquad
    c = \\sum_j a_j g_j
    $$

    ``h_j`` are the steps of ``encoded_sequence``, ``g_j`` those of ``attended_sequence``,
    ``s`` is ``transformed_state`` and ``v`` the one weight of ``<name>_softmax`` (no bias).
    Layers: ``<name>_expand``, ``<name>_dot-product``, ``_softmax``, ``_scaling``,
    ``_pooling``.

    Args:
        encoded_sequence: the sequence the state is compared with.
        attended_sequence: the sequence averaged with the attention weights.
        transformed_state: the decoder state, of ``encoded_sequence``'s size.
        softmax_param_attr: ``Param`` of ``v`` (``[1, 1]``).
        name: default ``__dot_product_attention_<n>__``.

    Returns:
        The context, one vector of ``attended_sequence.size`` per sample.

    Example:
        >>> state = paddle.layer.last_seq(input=emb)
        >>> context = paddle.networks.dot_product_attention(
        ...     encoded_sequence=emb, attended_sequence=emb, transformed_state=state)
        >>> context.size
        16
    """
    name = base.layer_name(name, "dot_product_attention")
    if transformed_state.size != encoded_sequence.size:
        raise LayerConfigError(
            f"'{name}': transformed_state.size ({transformed_state.size}) must equal "
            f"encoded_sequence.size ({encoded_sequence.size})."
        )
    expanded = expand(input=transformed_state, expand_as=encoded_sequence, name=f"{name}_expand")
    scores = dot_prod(input1=expanded, input2=encoded_sequence, name=f"{name}_dot-product")
    return _weighted_sum(scores, attended_sequence, softmax_param_attr, name)


def _slice(source: Layer, size: int, head: int) -> Layer:
    """Head ``head``'s ``size`` columns of ``source`` (an auto-named mixed layer, as v2)."""
    with mixed(size=size) as part:
        part += identity_projection(input=source, offset=size * head, size=size)
    return part


def _projected(layer: Layer, size: int, name: str) -> Layer:
    with mixed(size=size, name=name) as proj:
        proj += full_matrix_projection(input=layer)
    return proj


def _scores(q: Layer, k: Layer, attention_type: str, name: str, head: int) -> Layer:
    if attention_type == "dot-product attention":
        m = dot_prod(input1=q, input2=k, name=f"{name}_dot-product_{head}")
        slope = math.sqrt(1.0 / q.size)
        return slope_intercept(input=m, slope=slope, name=f"{name}_dot-product_scaling_{head}")
    with mixed(size=q.size, act=Tanh(), name=f"{name}_combine_{head}") as m:
        m += identity_projection(input=q)
        m += identity_projection(input=k)
    return m


@base.layer_function
def multi_head_attention(
    query: Layer,
    key: Layer,
    value: Layer,
    key_proj_size: int,
    value_proj_size: int,
    head_num: int,
    attention_type: str,
    softmax_param_attr: ParamAttr | None = None,
    name: str | None = None,
) -> Layer:
    """Multi-head attention (Attention Is All You Need), the heads concatenated.

    $$
    Q = q W_q,\\; K_j = k_j W_k,\\; V_j = v_j W_v; \\quad
    e^{(i)}_j = w_i \\, \\mathrm{score}(Q^{(i)}, K^{(i)}_j), \\quad
    \\mathrm{head}_i = \\sum_j \\mathrm{softmax}_j(e^{(i)}) V^{(i)}_j
    $$

    ``score`` is ``Q·K / sqrt(key_proj_size)`` (``"dot-product attention"``) or
    ``tanh(Q + K)`` summed by the softmax fc (``"additive attention"``); ``X^{(i)}`` is
    head ``i``'s slice of the projection. Layers: ``<name>_query_proj``, ``_key_proj``,
    ``_value_proj`` (no bias), per head ``_dot-product_<i>``/``_dot-product_scaling_<i>``
    or ``_combine_<i>``, ``_softmax_<i>``, ``_scaling_<i>``, ``_pooling_<i>``; the slices
    and the final concat have auto names, as in v2.

    Args:
        query: the decoder state, one vector per sample.
        key, value: sequences of one length.
        key_proj_size, value_proj_size: the width of one head's key and value.
        head_num: the number of heads.
        attention_type: ``"dot-product attention"`` or ``"additive attention"``.
        softmax_param_attr: ``Param`` of each head's softmax fc.
        name: default ``__multi_head_attention_<n>__``.

    Returns:
        A layer of size ``value_proj_size * head_num``, one vector per sample.

    Example:
        >>> state = paddle.layer.last_seq(input=emb)
        >>> context = paddle.networks.multi_head_attention(
        ...     query=state, key=emb, value=emb, key_proj_size=4, value_proj_size=3,
        ...     head_num=2, attention_type="dot-product attention")
        >>> context.size
        6
    """
    name = base.layer_name(name, "multi_head_attention")
    if attention_type not in ATTENTION_TYPES:
        raise LayerConfigError(
            f"'{name}': attention_type must be one of {ATTENTION_TYPES}; "
            f"received {attention_type!r}."
        )
    key_size = base.positive_int(key_proj_size, layer=name, arg="key_proj_size")
    value_size = base.positive_int(value_proj_size, layer=name, arg="value_proj_size")
    heads = base.positive_int(head_num, layer=name, arg="head_num")
    q = _projected(query, key_size * heads, f"{name}_query_proj")
    q = expand(input=q, expand_as=key)
    k = _projected(key, key_size * heads, f"{name}_key_proj")
    v = _projected(value, value_size * heads, f"{name}_value_proj")
    outs = []
    for i in range(heads):
        sub_q, sub_k = _slice(q, key_size, i), _slice(k, key_size, i)
        sub_v = _slice(v, value_size, i)
        scores = _scores(sub_q, sub_k, attention_type, name, i)
        outs.append(_weighted_sum(scores, sub_v, softmax_param_attr, name, f"_{i}"))
    return concat(input=outs)
