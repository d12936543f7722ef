"""What a kind's ``V2Layer.rebuild`` reads from a v2 ``LayerConfig``: its activation and
its parameter and bias names, as the arguments of a public layer function.

``proto.inference_file`` decodes the ModelConfig of a v2 inference file and rebuilds its
layers in order, each by the ``rebuild`` its kind declares (``kinds.V2Layer``); these are
the helpers those functions share.

Example:
    ```python
    def from_v2(cfg, ins):  # an addto layer
        return addto(input=ins, name=cfg["name"], act=rebuild.act(cfg),
                     bias_attr=rebuild.bias(cfg))
    ```
"""

from __future__ import annotations

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import ALL, BaseActivation, Linear
from paddle_lite._src.proto.model_config import Msg

ACTIVATIONS = {cls.name: cls for cls in ALL.values()} | {"": Linear, "linear": Linear}


def act(cfg: Msg, field: str = "active_type", default: str = "") -> BaseActivation:
    """The activation v2 wrote in ``field`` (``active_gate_type`` ...: the default
    where the field is unset)."""
    return ACTIVATIONS[cfg.get(field, default)]()


def param(inp: Msg) -> attrs_mod.ParamAttr | None:
    """The weight of one ``LayerInputConfig``, by the name v2 gave it; None for none."""
    name = inp.get("input_parameter_name")
    return attrs_mod.ParamAttr(name=name) if name else None


def bias(cfg: Msg) -> attrs_mod.ParamAttr | bool:
    """The layer's bias by its name (its values come with the parameters); False for
    none."""
    name = cfg.get("bias_parameter_name")
    return attrs_mod.ParamAttr(name=name, initial_mean=0.0, initial_std=0.0) if name else False
