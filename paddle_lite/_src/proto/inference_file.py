"""Rebuild the network of an inference file v2's ``Topology.serialize_for_inference`` wrote.

The file's pickle is read by ``proto.inference_payload`` (without running code); its
ModelConfig is decoded (``proto.model_config``) and its layers are rebuilt, in order, with
the public layer functions under their v2 names and parameter names, so
``Inference(parameters=..., fileobj=...)`` runs v2 inference files with v2 parameter tars.
A layer type paddle_lite cannot rebuild is named in the error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import poolings
from paddle_lite._src.activations import ALL, Linear
from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import PaddleLiteError, TopologyError
from paddle_lite._src.graph import Layer, name_scope
from paddle_lite._src.layers import core, mixed, norm, projections
from paddle_lite._src.layers.image import conv, pool
from paddle_lite._src.layers.math import basic as math
from paddle_lite._src.layers.recurrent import basic as recurrent
from paddle_lite._src.layers.sequence import pooling as seq
from paddle_lite._src.proto.model_config import Msg, decode_model_config
from paddle_lite._src.topology import Topology

ACTIVATIONS = {cls.name: cls for cls in ALL.values()} | {"": Linear, "linear": Linear}


def _act(cfg: Msg) -> Any:
    return ACTIVATIONS[cfg.get("active_type")]()


def _param(inp: Msg) -> Any:
    name = inp.get("input_parameter_name")
    return attrs_mod.ParamAttr(name=name) if name else None


def _bias(cfg: Msg) -> Any:
    name = cfg.get("bias_parameter_name")
    return attrs_mod.ParamAttr(name=name, initial_mean=0.0, initial_std=0.0) if name else False


def _fc(cfg: Msg, ins: list[Layer]) -> Layer:
    return core.fc(
        input=ins,
        size=cfg["size"],
        act=_act(cfg),
        name=cfg["name"],
        param_attr=[_param(i) or attrs_mod.ParamAttr() for i in cfg["inputs"]],
        bias_attr=_bias(cfg),
    )


def _projection(inp: Msg, layer: Layer) -> Any:
    proj = inp["proj_conf"]
    kind, attr = proj["type"], _param(inp)
    if kind == "fc":
        return projections.full_matrix_projection(input=layer, param_attr=attr)
    if kind == "trans_fc":
        return projections.trans_full_matrix_projection(input=layer, param_attr=attr)
    if kind == "table":
        return projections.table_projection(input=layer, param_attr=attr)
    if kind == "identity":
        return projections.identity_projection(input=layer)
    if kind == "identity_offset":
        return projections.identity_projection(
            input=layer, offset=proj.get("offset"), size=proj["output_size"]
        )
    if kind == "dot_mul":
        return projections.dotmul_projection(input=layer, param_attr=attr)
    if kind == "scaling":
        return projections.scaling_projection(input=layer, param_attr=attr)
    if kind == "context":
        padding = attr if proj.get("trainable_padding") else False
        return projections.context_projection(
            input=layer,
            context_len=proj["context_length"],
            context_start=proj["context_start"],
            padding_attr=padding or False,
        )
    raise TopologyError(f"mixed layer projection type {kind!r} cannot be rebuilt")


def _mixed(cfg: Msg, ins: list[Layer]) -> Layer:
    op_inputs = {i for op in cfg.get("operator_confs", []) for i in op["input_indices"]}
    items = [_projection(inp, ins[i]) for i, inp in enumerate(cfg["inputs"]) if i not in op_inputs]
    for op in cfg.get("operator_confs", []):
        if op["type"] != "dot_mul":
            raise TopologyError(f"mixed layer operator type {op['type']!r} cannot be rebuilt")
        a, b = (ins[i] for i in op["input_indices"])
        items.append(projections.dotmul_operator(a=a, b=b, scale=op.get("dotmul_scale")))
    bias = _bias(cfg)
    return mixed.mixed(
        size=cfg.get("size", 0), input=items, name=cfg["name"], act=_act(cfg), bias_attr=bias
    )


def _img_conv(cfg: Msg, ins: list[Layer]) -> Layer:
    c = cfg["inputs"][0]["conv_conf"]
    return conv.img_conv(
        input=ins[0],
        filter_size=c["filter_size"],
        filter_size_y=c.get("filter_size_y"),
        num_filters=cfg["num_filters"],
        name=cfg["name"],
        num_channels=c["channels"],
        act=_act(cfg),
        groups=c.get("groups"),
        stride=c.get("stride"),
        stride_y=c.get("stride_y"),
        padding=c.get("padding"),
        padding_y=c.get("padding_y"),
        dilation=c.get("dilation"),
        dilation_y=c.get("dilation_y", c.get("dilation")),
        bias_attr=_bias(cfg),
        param_attr=_param(cfg["inputs"][0]),
        shared_biases=cfg.get("shared_biases"),
    )


def _img_pool(cfg: Msg, ins: list[Layer]) -> Layer:
    p = cfg["inputs"][0]["pool_conf"]
    kind = poolings.Max() if p["pool_type"].startswith("max") else poolings.Avg()
    return pool.img_pool(
        input=ins[0],
        pool_size=p["size_x"],
        pool_size_y=p.get("size_y"),
        name=cfg["name"],
        num_channels=p["channels"],
        pool_type=kind,
        stride=p.get("stride"),
        stride_y=p.get("stride_y"),
        padding=p.get("padding"),
        padding_y=p.get("padding_y"),
    )


def _batch_norm(cfg: Msg, ins: list[Layer]) -> Layer:
    first, mean, var = cfg["inputs"][:3]
    return norm.batch_norm(
        input=ins[0],
        act=_act(cfg),
        name=cfg["name"],
        num_channels=first.get("image_conf", Msg()).get("channels"),
        bias_attr=_bias(cfg),
        param_attr=_param(first),
        use_global_stats=cfg.get("use_global_stats"),
        moving_average_fraction=cfg.get("moving_average_fraction"),
        mean_var_names=[mean["input_parameter_name"], var["input_parameter_name"]],
    )


def _cmrnorm(cfg: Msg, ins: list[Layer]) -> Layer:
    n = cfg["inputs"][0]["norm_conf"]
    return norm.img_cmrnorm(
        input=ins[0],
        size=n["size"],
        scale=n["scale"] * n["size"],
        power=n["pow"],
        name=cfg["name"],
        num_channels=n["channels"],
    )


def _seq_pool(cfg: Msg, ins: list[Layer]) -> Layer:
    strategy = {
        "average": poolings.Avg(),
        "sum": poolings.Sum(),
        "squarerootn": poolings.SquareRootN(),
    }
    kind = (
        poolings.Max() if cfg["type"] == "max" else strategy[cfg.get("average_strategy", "average")]
    )
    return seq.pooling(
        input=ins[0],
        pooling_type=kind,
        name=cfg["name"],
        bias_attr=_bias(cfg),
        agg_level=cfg.get("trans_type"),
        stride=cfg.get("seq_pool_stride"),
    )


def _seq_instance(cfg: Msg, ins: list[Layer]) -> Layer:
    fn = seq.first_seq if cfg.get("select_first") else seq.last_seq
    return fn(
        input=ins[0],
        name=cfg["name"],
        agg_level=cfg.get("trans_type"),
        stride=cfg.get("seq_pool_stride"),
    )


def _recurrent(fn: Callable[..., Layer]) -> Callable[[Msg, list[Layer]], Layer]:
    def build(cfg: Msg, ins: list[Layer]) -> Layer:
        kwargs = {
            "input": ins[0],
            "name": cfg["name"],
            "reverse": cfg.get("reversed"),
            "act": _act(cfg),
            "bias_attr": _bias(cfg),
            "param_attr": _param(cfg["inputs"][0]),
        }
        if fn is not recurrent.recurrent:
            kwargs["gate_act"] = ACTIVATIONS[cfg.get("active_gate_type", "sigmoid")]()
        if fn is recurrent.lstmemory:
            kwargs["state_act"] = ACTIVATIONS[cfg.get("active_state_type", "tanh")]()
        return fn(**kwargs)

    return build


def _simple(fn: Callable[..., Layer], **extra: Callable[[Msg], Any]) -> Callable[..., Layer]:
    def build(cfg: Msg, ins: list[Layer]) -> Layer:
        kwargs = {k: f(cfg) for k, f in extra.items()}
        return fn(input=ins if len(ins) > 1 else ins[0], name=cfg["name"], **kwargs)

    return build


REBUILDERS: dict[str, Callable[[Msg, list[Layer]], Layer]] = {
    "fc": _fc,
    "mixed": _mixed,
    "exconv": _img_conv,
    "cudnn_conv": _img_conv,
    "conv": _img_conv,
    "pool": _img_pool,
    "batch_norm": _batch_norm,
    "cudnn_batch_norm": _batch_norm,
    "norm": _cmrnorm,
    "max": _seq_pool,
    "average": _seq_pool,
    "seqlastins": _seq_instance,
    "lstmemory": _recurrent(recurrent.lstmemory),
    "gated_recurrent": _recurrent(recurrent.grumemory),
    "recurrent": _recurrent(recurrent.recurrent),
    "addto": _simple(core.addto, act=_act, bias_attr=_bias),
    "concat": _simple(core.concat, act=_act),
    "maxid": _simple(math.max_id),
    "slope_intercept": _simple(
        math.slope_intercept, slope=lambda c: c.get("slope"), intercept=lambda c: c.get("intercept")
    ),
}


def rebuild(protobin: bytes, data_type: list[tuple[str, InputType]]) -> Topology:
    """The topology of a serialized v2 ``ModelConfig``, rebuilt layer by layer.

    Raises:
        TopologyError: a layer type has no rebuilder (the message lists them) or the config
            is malformed.
    """
    model = decode_model_config(protobin)
    types = dict(data_type)
    missing = sorted({c["type"] for c in model["layers"]} - set(REBUILDERS) - {"data"})
    if missing:
        raise TopologyError(
            f"this v2 inference file uses layer types paddle_lite cannot rebuild: {missing}. "
            "Rebuild the network with paddle_lite's layer functions and pass "
            "output_layer= instead of fileobj=."
        )
    built: dict[str, Layer] = {}
    try:
        with name_scope():
            for cfg in model["layers"]:
                built[cfg["name"]] = _layer(cfg, built, types)
        outputs = model.get("output_layer_names") or [model["layers"][-1]["name"]]
        return Topology([built[name] for name in outputs])
    except PaddleLiteError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise TopologyError(
            f"the ModelConfig is malformed after layer {list(built)[-1:]}: "
            f"{type(exc).__name__}: {exc}."
        ) from None


def _layer(cfg: Msg, built: dict[str, Layer], types: dict[str, InputType]) -> Layer:
    if cfg["type"] == "data":
        if cfg["name"] not in types:
            raise TopologyError(f"data layer '{cfg['name']}' has no entry in the file's data_type.")
        return core.data(
            name=cfg["name"],
            type=types[cfg["name"]],
            height=cfg.get("height") or None,
            width=cfg.get("width") or None,
        )
    inputs = [built[i["input_layer_name"]] for i in cfg.get("inputs", [])]
    layer = REBUILDERS[cfg["type"]](cfg, inputs)
    if cfg.get("size") and layer.size != cfg["size"]:
        raise TopologyError(
            f"layer '{cfg['name']}' ({cfg['type']}) rebuilds with size {layer.size}, but the file "
            f"says {cfg['size']}."
        )
    return layer
