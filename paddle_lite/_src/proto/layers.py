"""How one layer reads in v2's ModelConfig: its ``LayerConfig`` fields and its parameters' dims.

paddle_lite's kinds are named after v2's layer types, with a few exceptions where one kind
covers several v2 types, or v2 writes a layer differently from how paddle_lite computes it.
This module holds those facts, so that ``proto.views`` can write each layer as v2's
config parser did (checked against v2's golden ModelConfig files in
``tests/integration/test_v2_golden_configs.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from paddle_lite._src.graph import Layer
from paddle_lite._src.proto.image import Message, image_fields

# kind -> v2 layer type, where they differ and do not depend on attributes.
V2_TYPES = {
    "memory": "agent",
    "static_agent": "agent",
    "img_cmrnorm": "norm",
    "img_pool": "pool",
    "multi_class_cross_entropy": "multi-class-cross-entropy",
    "cross_entropy_with_selfnorm": "multi_class_cross_entropy_with_selfnorm",
    "seqfirstins": "seqlastins",  # v2's first_seq is seqlastins with select_first
    "lstm_step_state": "get_output",  # v2 reads the state of lstm_step as an output
    "embedding": "mixed",  # v2's embedding is a mixed layer of one table projection
    "rank_cost": "rank-cost",
}

# kinds whose layer v2 writes with no size, activation or inputs of its own.
BARE = {"recurrent_layer_group"}
# kinds v2 writes with no inputs: a group's outputs are linked to it by its sub-model.
NO_INPUTS = {"gather_agent"} | BARE
# kinds v2 writes with no activation (their act is applied elsewhere, or not at all).
NO_ACTIVATION = {"gather_agent", "lstm_step_state"} | BARE
# kinds v2 writes with an activation paddle_lite applies inside the cost.
ACTIVATION = {"nce": "sigmoid"}
# kinds whose v2 size is not their output width: ctc, warp_ctc and crf declare their
# number of classes, detection_output its most rows per image times 7.
SIZES: dict[str, Callable[[Layer], int]] = {
    "ctc": lambda n: n.attrs["size"],
    "warp_ctc": lambda n: n.attrs["size"],
    "crf": lambda n: n.attrs["size"],
    "detection_output": lambda n: n.attrs["keep_top_k"] * 7,
}
# kinds v2 writes with no size.
NO_SIZE = {"cross_entropy_with_selfnorm", "kmax_seq_score", "cross_entropy_over_beam"} | BARE


def _conv_type(n: Layer) -> str:
    return "exconvt" if n.attrs.get("trans") else "exconv"


def _cos_type(n: Layer) -> str:
    return "cos_vm" if n.attrs.get("size", 1) > 1 else "cos"


def _mixed_type(n: Layer) -> str:
    return "concat2" if n.attrs.get("combine") == "concat" else "mixed"


# mixed projections whose filter v2 declares by size only (no dims).
CONV_PROJECTIONS = ("conv", "convt")

BY_ATTRS: dict[str, Callable[[Layer], str]] = {
    "img_conv": _conv_type,
    "cos": _cos_type,
    "mixed": _mixed_type,
}


def v2_type(n: Layer) -> str:
    """The ``type`` v2 writes for layer ``n``."""
    rule = BY_ATTRS.get(n.kind)
    return rule(n) if rule is not None else V2_TYPES.get(n.kind, n.kind)


def _size(n: Layer) -> int:
    rule = SIZES.get(n.kind)
    if rule is not None:
        return rule(n)
    return 0 if n.kind in NO_SIZE else n.size


def _active_type(n: Layer) -> str:
    if n.kind in NO_ACTIVATION:
        return ""
    return ACTIVATION.get(n.kind) or getattr(n.activation, "name", "")


def _input_names(n: Layer) -> list[str]:
    """The input layers in v2's order. A mixed layer lists each projection's (or
    operator's) first input in projection order, then the other inputs of its operators."""
    projections = n.attrs.get("projections") if n.kind == "mixed" else None
    if not projections:
        return [i.name for i in n.inputs]
    rest = [i for p in projections for i in p["inputs"][1:]]
    return [n.inputs[i].name for i in [p["inputs"][0] for p in projections] + rest]


def inputs(n: Layer) -> list[Message]:
    """v2's ``LayerInputConfig`` list: each input with the weight ``w<i>`` it multiplies.

    A layer with more weights than inputs (``batch_norm``'s moving mean and variance) lists
    its last input again for each extra weight, as v2 does; the state of an ``lstm_step``
    reads only the step, as its ``state`` output."""
    if n.kind in NO_INPUTS:
        return []
    if n.kind == "lstm_step_state":
        return [Message(input_layer_name=n.inputs[0].name, input_parameter_name="")]
    by_role = {p.role: p.name for p in n.params}
    weights = [int(r[1:]) for r in by_role if r[:1] == "w" and r[1:].isdigit()]
    names = _input_names(n)
    count = max([len(names), *(w + 1 for w in weights)])
    names += names[-1:] * (count - len(names))
    return [
        Message(input_layer_name=name, input_parameter_name=by_role.get(f"w{i}", ""))
        for i, name in enumerate(names)
    ]


def layer_config(n: Layer) -> Message:
    """The ``LayerConfig`` fields of ``n`` that paddle_lite writes (see the module doc):
    every layer's, and the image fields of convolutions, poolings and batch_norm
    (``proto.image``)."""
    own = n.kind != "lstm_step_state"  # the state reads its step's parameters
    ins = inputs(n)
    return Message(
        name=n.name,
        type=v2_type(n),
        size=_size(n),
        inputs=ins,
        bias_parameter_name=next((p.name for p in n.params if p.role == "wbias" and own), ""),
        active_type=_active_type(n),
        parameters=[p.name for p in n.params] if own else [],
        **image_fields(n, ins),
    )


def _conv_projection_roles(n: Layer) -> set[str]:
    projections = n.attrs.get("projections") or ()
    return {f"w{k}" for k, p in enumerate(projections) if p["type"] in CONV_PROJECTIONS}


def dimless_roles(n: Layer) -> set[str]:
    """Roles of ``n``'s parameters that v2 declares by size only, with no ``dims``:
    convolution filters (2-D and 3-D, layers and projections) and batch_norm's scale."""
    if n.kind in ("img_conv", "conv3d", "deconv3d", "batch_norm"):
        return {"w0"}
    if n.kind == "mixed":
        return _conv_projection_roles(n)
    return set()
