"""``fc``: the fully connected layer, ``act(sum_i x_i W_i + b)``."""

from __future__ import annotations

from collections.abc import Sequence

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Tanh, as_activation
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
from paddle_lite._src.layers.projections import project
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import with_data


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    return fc(
        input=ins,
        size=cfg["size"],
        act=rebuild.act(cfg),
        name=cfg["name"],
        param_attr=[rebuild.param(i) or ParamAttr() for i in cfg["inputs"]],
        bias_attr=rebuild.bias(cfg),
    )


class FcKind(Kind):
    name = "fc"
    per_row = True
    host = HostChecks(keeps_lengths=True, aligns_rows=True)
    v2 = V2Layer(rebuild=_from_v2)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs, "input", "values")
        return Spec(attrs["size"], seq_level=base.rows_seq_level(inputs, "fc inputs"))

    def param_specs(self, inputs, attrs):
        decls = [
            ParamDecl(f"w{i}", (s.size, attrs["size"]), ParamAttrAt(i), attrs_mod.SMART)
            for i, s in enumerate(inputs)
        ]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, attrs["size"]), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        out = sum(project(x, params[f"w{i}"]) for i, x in enumerate(inputs))
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)  # the inputs share one sequence level


register_kind(FcKind())


@base.layer_function
def fc(
    input: Layer | Sequence[Layer],
    size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    param_attr: ParamAttr | Sequence[ParamAttr] | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
    parameter_name: str | None = None,
) -> Layer:
    """Fully connected: ``act(sum_i x_i W_i + b)``; a list input has one weight per input.

    Args:
        input: a layer or a list of layers (dense, sparse, or sequences of them).
        size: output width.
        act: activation (default ``Tanh``).
        name: the layer name (default ``__fc_layer_<n>__``).
        param_attr: a ``Param`` or a list of them, one per input.
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        parameter_name: name the weight(s) ``P`` (``P.w0``, ``P.w1`` ... for several
            inputs) and the bias ``P.wbias``.

    Returns:
        A layer of size ``size``; weights ``[in_i, size]``, bias ``[1, size]``.

    Example:
        >>> y = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    """
    name = base.layer_name(name, "fc_layer")
    inputs = base.as_layers(input, layer=name)
    size = base.positive_int(size, layer=name, arg="size")
    attrs = {
        "size": size,
        "act": as_activation(Tanh() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build(
        "fc",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, len(inputs), layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
        parameter_name=parameter_name,
    )
