"""What ``recurrent``, ``lstmemory`` and ``grumemory`` (``recurrent.basic``) share: the
checks of their input and size, their attributes, how they are built, and how v2's
inference files rebuild them."""

from __future__ import annotations

import warnings
from typing import Any

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.errors import LayerConfigError, LayerConfigWarning
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.tracebacks import user_stacklevel


def sequence_input(spec: Spec, multiple: int) -> int:
    """The hidden width ``spec.size / multiple`` of a sequence input, checked.

    A non-sequence input counts as a batch of one-step sequences (v2's rule for
    sequence layers). Like v2's config parser, only the size is checked when the layer
    is built: integer ids are refused when the network runs (``as_sequence``).
    """
    if spec.seq_level not in (0, 1, 2):
        raise LayerConfigError(
            f"input must be a sequence or plain values; received seq_level "
            f"{spec.seq_level} (size {spec.size})."
        )
    if spec.dtype not in ("float32", "int32"):
        raise LayerConfigError(
            f"input must hold dense values; received {spec.dtype}. Project sparse inputs "
            "first (paddle.layer.fc or mixed)."
        )
    if spec.size % multiple:
        raise LayerConfigError(
            f"input size must be a multiple of {multiple} (input.size = {multiple}·H); "
            f"received {spec.size}."
        )
    return spec.size // multiple


def sequence_hidden(inp: Any, name: str, multiple: int) -> int:
    """The hidden width, raising the kind's error (named) before other checks."""
    try:
        return sequence_input(inp.spec, multiple)
    except LayerConfigError as exc:
        raise LayerConfigError(f"layer '{name}': {exc}") from None


def check_size(size: Any, hidden: int, *, layer: str, multiple: int) -> None:
    if size is None:
        return
    size = base.positive_int(size, layer=layer, arg="size")
    if size != hidden:
        raise LayerConfigError(
            f"layer '{layer}': size must equal input.size / {multiple} = {hidden}; received "
            f"{size}. Leave size unset: it follows the input."
        )


def common_attrs(
    name: str, reverse: Any, layer_attr: Any, supported: tuple[str, ...] = base.DEVICE_ONLY
) -> dict[str, Any]:
    """The attributes every recurrence has: ``reverse`` and the supported ``ExtraAttr``
    fields."""
    return {
        "reverse": base.flag(reverse, layer=name, arg="reverse"),
        **base.extra_fields(layer_attr, layer=name, supported=supported),
    }


def unapplied_drop_rate(attrs: dict[str, Any], name: str) -> dict[str, Any]:
    """v2's grumemory took ``Extra(drop_rate=...)`` (2017) but its GatedRecurrentLayer never
    applied it (it skips the activation step that drops); so it is dropped here too, with a
    warning, rather than giving another result than v2."""
    if attrs.pop("drop_rate", None):
        warnings.warn(
            f"layer '{name}' (grumemory): v2 accepted layer_attr=Extra(drop_rate=...) here but "
            "never applied it, so neither does paddle_lite; put the dropout on the layer that "
            "reads this one (an fc, say) to have it.",
            LayerConfigWarning,
            stacklevel=user_stacklevel(),
        )
    return attrs


def build_recurrent(
    kind: str, name: str, inp: Any, attrs: dict, param_attr: Any, bias_attr: Any
) -> Any:
    """The layer of kind ``kind`` over ``inp``: one weight and a bias unless turned off."""
    return base.build(
        kind,
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


def v2_args(cfg: Msg, ins: list[Layer], gated: bool = False, state: bool = False) -> dict:
    """The arguments that rebuild a v2 layer of a kind below by its layer function
    (``V2Layer.rebuild``); ``gated``/``state``: it has a gate/state activation."""
    args = {
        "input": ins[0],
        "name": cfg["name"],
        "reverse": cfg.get("reversed"),
        "act": rebuild.act(cfg),
        "bias_attr": rebuild.bias(cfg),
        "param_attr": rebuild.param(cfg["inputs"][0]),
    }
    if gated:
        args["gate_act"] = rebuild.act(cfg, "active_gate_type", "sigmoid")
    if state:
        args["state_act"] = rebuild.act(cfg, "active_state_type", "tanh")
    return args
