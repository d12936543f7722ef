"""Parameter and layer attributes (v2 ``paddle.attr``)."""

from paddle_lite._src.attrs import ExtraAttr, HookAttr, ParamAttr, to_bias

Param = ParameterAttribute = ParamAttr
Extra = ExtraLayerAttribute = ExtraAttr
Hook = HookAttribute = HookAttr

__all__ = [
    "Extra",
    "ExtraAttr",
    "ExtraLayerAttribute",
    "Hook",
    "HookAttr",
    "HookAttribute",
    "Param",
    "ParamAttr",
    "ParameterAttribute",
    "to_bias",
]
