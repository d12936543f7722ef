"""Recurrent composite networks over the fused recurrent layers (v2 ``paddle.networks``):
``simple_gru2``, ``bidirectional_lstm`` and ``bidirectional_gru``, built only from public
layer functions."""

from __future__ import annotations

from typing import Any

from paddle_lite._src.activations import Linear
from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import _base
from paddle_lite._src.layers.core import concat
from paddle_lite._src.layers.mixed import mixed
from paddle_lite._src.layers.projections import full_matrix_projection
from paddle_lite._src.layers.recurrent import grumemory
from paddle_lite._src.layers.sequence import first_seq, last_seq
from paddle_lite._src.networks_seq import simple_lstm


@_base.layer_function
def simple_gru2(
    input,  # noqa: A002
    size,
    name=None,
    reverse=False,
    mixed_param_attr=None,
    mixed_bias_attr=None,
    gru_param_attr=None,
    gru_bias_attr=None,
    act=None,
    gate_act=None,
    mixed_layer_attr=None,
    gru_cell_attr=None,
) -> Layer:
    """An input projection to 3·size (``<name>_transform``) followed by ``grumemory``.

    ``x'_t = x_t W + b`` (bias only when ``mixed_bias_attr`` asks for one), ``h = GRU(x')``.

    Returns:
        The GRU sequence layer ``name`` of size ``size`` (default name
        ``__simple_gru2_<n>__``).

    Example::

        gru = paddle.networks.simple_gru2(input=emb, size=32)
    """
    name = _base.layer_name(name, "simple_gru2")
    size = _base.positive_int(size, layer=name, arg="size")
    transform = mixed(
        name=f"{name}_transform",
        size=size * 3,
        act=Linear(),
        bias_attr=False if mixed_bias_attr is None else mixed_bias_attr,
        layer_attr=mixed_layer_attr,
        input=[full_matrix_projection(input=input, param_attr=mixed_param_attr)],
    )
    return grumemory(
        name=name,
        input=transform,
        reverse=reverse,
        bias_attr=gru_bias_attr,
        param_attr=gru_param_attr,
        act=act,
        gate_act=gate_act,
        layer_attr=gru_cell_attr,
    )


def _both_ways(name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act):  # noqa: ANN001, ANN202
    """v2's join: the two sequences side by side, or last(fw) beside first(bw)."""
    if return_seq:
        return concat(name=name, input=[fw, bw], layer_attr=concat_attr, act=concat_act)
    fw_last = last_seq(name=f"{name}_fw_last", input=fw, layer_attr=last_seq_attr)
    bw_first = first_seq(name=f"{name}_bw_last", input=bw, layer_attr=first_seq_attr)
    return concat(name=name, input=[fw_last, bw_first], layer_attr=concat_attr, act=concat_act)


def _side(prefix: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in kwargs.items() if k.startswith(prefix)}


def bidirectional_gru(
    input,
    size,
    name=None,
    return_seq=False,
    last_seq_attr=None,  # noqa: A002
    first_seq_attr=None,
    concat_attr=None,
    concat_act=None,
    **sides,
) -> Layer:
    """A forward ``simple_gru2`` (``<name>_fw``) and a reversed one (``<name>_bw``).

    ``fwd_*`` / ``bwd_*`` keywords go to each side's ``simple_gru2`` (``fwd_act``,
    ``bwd_gru_param_attr`` ...). With ``return_seq`` the result concatenates the two
    sequences; otherwise the last step of ``fw`` beside the first step of ``bw``.

    Example::

        bi = paddle.networks.bidirectional_gru(input=emb, size=32)   # size 64
    """
    name = _base.layer_name(name, "bidirectional_gru")
    _check_sides(sides, name)
    fw = simple_gru2(input=input, size=size, name=f"{name}_fw", **_side("fwd_", sides))
    bw = simple_gru2(
        input=input, size=size, name=f"{name}_bw", reverse=True, **_side("bwd_", sides)
    )
    return _both_ways(
        name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act
    )


def bidirectional_lstm(
    input,
    size,
    name=None,
    return_seq=False,
    last_seq_attr=None,  # noqa: A002
    first_seq_attr=None,
    concat_attr=None,
    concat_act=None,
    **sides,
) -> Layer:
    """A forward ``simple_lstm`` (``<name>_fw``) and a reversed one (``<name>_bw``).

    ``fwd_*`` / ``bwd_*`` keywords go to each side's ``simple_lstm`` (``fwd_mat_param_attr``
    ...); the join is :func:`bidirectional_gru`'s.

    Example::

        bi = paddle.networks.bidirectional_lstm(input=emb, size=32, return_seq=True)
    """
    name = _base.layer_name(name, "bidirectional_lstm")
    _check_sides(sides, name)
    fw = simple_lstm(input=input, size=size, name=f"{name}_fw", **_side("fwd_", sides))
    bw = simple_lstm(
        input=input, size=size, name=f"{name}_bw", reverse=True, **_side("bwd_", sides)
    )
    return _both_ways(
        name, fw, bw, return_seq, last_seq_attr, first_seq_attr, concat_attr, concat_act
    )


def _check_sides(sides: dict[str, Any], name: str) -> None:
    bad = sorted(k for k in sides if not k.startswith(("fwd_", "bwd_")))
    if bad:
        raise LayerTypeError(
            f"'{name}': unexpected keyword arguments {bad}; besides input, size, name, "
            "return_seq and the last_seq/first_seq/concat attributes, only fwd_* and bwd_* "
            "keywords are accepted."
        )
