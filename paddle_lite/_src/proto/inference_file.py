"""Rebuild the network of an inference file v2's ``Topology.serialize_for_inference`` wrote.

The file's pickle is read by ``proto.inference_payload`` (without running code); its
ModelConfig is decoded (``proto.model_config``) and its layers are rebuilt, in order, with
the public layer functions under their v2 names and parameter names, so
``Inference(parameters=..., fileobj=...)`` runs v2 inference files with v2 parameter tars.
How a layer is rebuilt is part of its kind's declaration (``kinds.V2Layer``: ``rebuild``,
and the v2 types it ``reads``); a layer type no kind rebuilds is named in the error.
"""

from __future__ import annotations

from collections.abc import Callable

from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import PaddleLiteError, TopologyError
from paddle_lite._src.graph import Layer, name_scope
from paddle_lite._src.kinds import all_kinds
from paddle_lite._src.layers.data import data
from paddle_lite._src.proto.model_config import Msg, decode_model_config
from paddle_lite._src.topology import Topology


def rebuilders() -> dict[str, Callable[[Msg, list[Layer]], Layer]]:
    """v2 layer type -> the function that rebuilds such a layer: each kind declares its
    own (``V2Layer.rebuild``) and the v2 types it takes (``V2Layer.reads``: by default the
    type it writes). Data layers are rebuilt here, from the file's ``data_type``."""
    found = {}
    for kind in all_kinds():
        v2 = kind.v2
        if v2.rebuild is not None:
            written = v2.type if isinstance(v2.type, str) and v2.type else kind.name
            found.update(dict.fromkeys(v2.reads or (written,), v2.rebuild))
    return found


def rebuild(protobin: bytes, data_type: list[tuple[str, InputType]]) -> Topology:
    """The topology of a serialized v2 ``ModelConfig``, rebuilt layer by layer.

    Raises:
        TopologyError: a layer type has no rebuilder (the message lists them) or the config
            is malformed.
    """
    model = decode_model_config(protobin)
    types = dict(data_type)
    by_type = rebuilders()
    missing = sorted({c["type"] for c in model["layers"]} - set(by_type) - {"data"})
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
                built[cfg["name"]] = _layer(cfg, built, types, by_type)
        outputs = model.get("output_layer_names") or [model["layers"][-1]["name"]]
        return Topology([built[name] for name in outputs])
    except PaddleLiteError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise TopologyError(
            f"the ModelConfig is malformed after layer {list(built)[-1:]}: "
            f"{type(exc).__name__}: {exc}."
        ) from None


def _layer(
    cfg: Msg,
    built: dict[str, Layer],
    types: dict[str, InputType],
    by_type: dict[str, Callable[[Msg, list[Layer]], Layer]],
) -> Layer:
    if cfg["type"] == "data":  # the graph's input, typed by the file's data_type
        if cfg["name"] not in types:
            raise TopologyError(f"data layer '{cfg['name']}' has no entry in the file's data_type.")
        return data(
            name=cfg["name"],
            type=types[cfg["name"]],
            height=cfg.get("height") or None,
            width=cfg.get("width") or None,
        )
    inputs = [built[i["input_layer_name"]] for i in cfg.get("inputs", [])]
    layer = by_type[cfg["type"]](cfg, inputs)
    if cfg.get("size") and layer.size != cfg["size"]:
        raise TopologyError(
            f"layer '{cfg['name']}' ({cfg['type']}) rebuilds with size {layer.size}, but the file "
            f"says {cfg['size']}."
        )
    return layer
