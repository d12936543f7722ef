"""``addto``: the sum of layers of one size, with no weights; and ``dropout``, v2's
``addto`` of one input with a drop rate."""

from __future__ import annotations

from collections.abc import Sequence

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Linear, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    return addto(input=ins, name=cfg["name"], act=rebuild.act(cfg), bias_attr=rebuild.bias(cfg))


class AddtoKind(Kind):
    name = "addto"
    per_row = True
    host = HostChecks(keeps_lengths=True, aligns_rows=True)
    v2 = V2Layer(rebuild=_from_v2)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        sizes = [s.size for s in inputs]
        if len(set(sizes)) > 1:
            raise LayerConfigError(f"all inputs must have the same size; received sizes {sizes}.")
        return Spec(
            sizes[0], seq_level=base.same_seq_level(inputs, "addto inputs"), image=inputs[0].image
        )

    def param_specs(self, inputs, attrs):
        if not attrs["bias"]:
            return []
        return [ParamDecl("wbias", (1, inputs[0].size), BiasAttr(), attrs_mod.SMART)]

    def channels_last(self, attrs, input_is_channels_last):
        return input_is_channels_last and not attrs["bias"]  # a residual sum of a chain

    def apply(self, params, inputs, attrs, *, key, mode):
        if isinstance(inputs[0], ChannelsLast):
            return ChannelsLast(sum(x.data for x in inputs))
        out = sum(data_of(x) for x in inputs)
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)


register_kind(AddtoKind())


@base.layer_function
def addto(
    input: Layer | Sequence[Layer],
    act: BaseActivation | None = None,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Sum layers of equal size: ``act(sum_i x_i + b)``, with no weights.

    Args:
        input: a layer or a list of dense layers of one size and sequence level.
        act: activation (default ``Linear``).
        name: the layer name (default ``__addto_<n>__``).
        bias_attr: ``False``/``None`` (default) no bias; ``True`` or a ``Param`` adds
            ``b`` (``[1, size]``).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of the common input size (the first input's image, if any).

    Example:
        >>> s = paddle.layer.addto(input=[x, y], act=paddle.activation.Relu(), bias_attr=True)
        >>> s.size
        8
    """
    name = base.layer_name(name, "addto")
    inputs = base.as_layers(input, layer=name)
    attrs = {
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    return base.build("addto", name=name, inputs=inputs, attrs=attrs, bias=bias)


@base.layer_function
def dropout(input: Layer, dropout_rate: float, name: str | None = None) -> Layer:
    """Dropout, not inverted (v2's): random zeros in training, a fixed scale in test.

    Training: ``out_j = m_j x_j`` with ``m_j ~ Bernoulli(1 - rate)``; test:
    ``out = (1 - rate) x``. It is an ``addto`` of one input with
    ``Extra(drop_rate=dropout_rate)`` (no bias, linear activation), as in v2.

    Args:
        input: a dense layer.
        dropout_rate: the probability ``rate`` of zeroing each value.
        name: the layer name (default ``__dropout_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        >>> h = paddle.layer.dropout(input=x, dropout_rate=0.5)
        >>> h.size
        8
    """
    name = base.layer_name(name, "dropout")
    rate = base.number(dropout_rate, layer=name, arg="dropout_rate")
    return addto(
        input=input, act=Linear(), name=name, layer_attr=attrs_mod.ExtraAttr(drop_rate=rate)
    )
