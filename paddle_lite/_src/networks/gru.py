"""GRU encoders of v2's ``paddle.networks``: simple_gru and simple_gru2.

Each is a projection ``<name>_transform`` (a mixed layer) followed by a GRU over the
projected sequence: a ``gru_group`` for ``simple_gru``, one ``grumemory`` for
``simple_gru2``. Built only from public layer functions, with v2's layer names
(``<name>_transform``, ``<name>``) so parameter names, and v2 model tars, line up.
"""

from __future__ import annotations

from paddle_lite._src.activations import BaseActivation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import full_matrix_projection
from paddle_lite._src.layers.recurrent.basic import grumemory
from paddle_lite._src.networks.rnn import gru_group


@base.layer_function
def simple_gru(
    input: Layer,
    size: int,
    name: str | None = None,
    reverse: bool = False,
    mixed_param_attr: ParamAttr | None = None,
    mixed_bias_param_attr: ParamAttr | bool | None = None,
    mixed_layer_attr: ExtraAttr | None = None,
    gru_bias_attr: ParamAttr | bool | None = None,
    gru_param_attr: ParamAttr | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    gru_layer_attr: ExtraAttr | None = None,
    naive: bool = False,
) -> Layer:
    """A projection ``<name>_transform`` and a [`gru_group`][paddle_lite.networks.gru_group] (v2's
    ``simple_gru``; chapter 8's encoder).

    ``x'_t = x_t W (+ b)``, ``h = gru_group(x')``, with ``W`` ``[input.size, 3·size]``
    (a mixed layer, no bias by default).

    Args:
        input: a dense sequence layer.
        size: the GRU width ``H``.
        name: the GRU's name and the projection's prefix (default
            ``__simple_gru_<n>__``).
        reverse: run each sequence backwards.
        mixed_param_attr: ``Param`` of ``W``.
        mixed_bias_param_attr: the projection's bias (``True`` or a ``Param``; default
            none).
        mixed_layer_attr: ``Extra`` of the projection.
        gru_bias_attr, gru_param_attr, act, gate_act, gru_layer_attr, naive: as
            [`gru_unit`][paddle_lite.networks.gru_unit].

    Returns:
        The GRU's output sequence (size ``size``).

    Example:
        >>> fwd = paddle.networks.simple_gru(input=emb, size=32)
        >>> bwd = paddle.networks.simple_gru(input=emb, size=32, reverse=True)
    """
    name = base.layer_name(name, "simple_gru")
    with mixed(
        name=f"{name}_transform",
        size=size * 3,
        bias_attr=mixed_bias_param_attr,
        layer_attr=mixed_layer_attr,
    ) as m:
        m += full_matrix_projection(input=input, param_attr=mixed_param_attr)
    return gru_group(
        name=name,
        size=size,
        input=m,
        reverse=reverse,
        gru_bias_attr=gru_bias_attr,
        gru_param_attr=gru_param_attr,
        act=act,
        gate_act=gate_act,
        gru_layer_attr=gru_layer_attr,
        naive=naive,
    )


@base.layer_function
def simple_gru2(
    input: Layer,
    size: int,
    name: str | None = None,
    reverse: bool = False,
    mixed_param_attr: ParamAttr | None = None,
    mixed_bias_attr: ParamAttr | bool | None = None,
    gru_param_attr: ParamAttr | None = None,
    gru_bias_attr: ParamAttr | bool | None = None,
    act: BaseActivation | None = None,
    gate_act: BaseActivation | None = None,
    mixed_layer_attr: ExtraAttr | None = None,
    gru_cell_attr: ExtraAttr | None = None,
) -> Layer:
    """[`simple_gru`][paddle_lite.networks.simple_gru] with ``grumemory`` instead of a group (v2's
    ``simple_gru2``): the same maths, one fused layer.

    ``x'_t = x_t W (+ b)``, ``h = grumemory(x')``.

    Args:
        input: a dense sequence layer.
        size: the GRU width ``H``.
        name: the GRU's name and the projection's prefix (default
            ``__simple_gru2_<n>__``).
        reverse: run each sequence backwards.
        mixed_param_attr, mixed_bias_attr, mixed_layer_attr: the projection's weight
            ``W`` ``[input.size, 3H]``, bias (default none) and ``Extra``.
        gru_param_attr, gru_bias_attr: ``grumemory``'s recurrent weight and bias.
        act, gate_act: the candidate and gate activations (Tanh, Sigmoid).
        gru_cell_attr: ``Extra`` of the ``grumemory``.

    Returns:
        The GRU's output sequence (size ``size``).

    Example:
        >>> gru = paddle.networks.simple_gru2(input=emb, size=32)
        >>> gru.size
        32
    """
    name = base.layer_name(name, "simple_gru2")
    with mixed(
        name=f"{name}_transform",
        size=size * 3,
        bias_attr=mixed_bias_attr,
        layer_attr=mixed_layer_attr,
    ) as m:
        m += full_matrix_projection(input=input, param_attr=mixed_param_attr)
    return grumemory(
        name=name,
        input=m,
        reverse=reverse,
        bias_attr=gru_bias_attr,
        param_attr=gru_param_attr,
        act=act,
        gate_act=gate_act,
        layer_attr=gru_cell_attr,
    )
