"""Compare a paddle_lite ModelConfig (``Topology.proto()``) with v2's golden ``.protostr``.

Both sides are reduced to the same plain view (``view_golden``, ``view_ours``): the fields
the conformance suite checks, with proto2's defaults filled in where a field is absent, so
that ``differences`` can report each unequal field by its path.
"""

from __future__ import annotations

import importlib
import math
import warnings
from pathlib import Path
from typing import Any

from tests.integration.protostr import Message, parse

HERE = Path(__file__).parent
GOLDEN_DIR = HERE / "golden" / "v2_configs"

LAYER_FIELDS = ("name", "type", "size", "active_type", "bias_parameter_name")
PARAM_FIELDS = ("name", "size", "dims", "initial_mean", "initial_std", "initial_strategy")
PARAM_FIELDS += ("initial_smart",)
DEFAULTS = {"size": 0, "active_type": "", "bias_parameter_name": "", "input_parameter_name": ""}
DEFAULTS |= {"initial_mean": 0.0, "initial_std": 0.01, "initial_strategy": 0}
DEFAULTS |= {"initial_smart": False, "reversed": False, "boot_layer_name": ""}


def config_names() -> list[str]:
    """The 56 configs of v2's ``file_list.sh``, in file-name order."""
    return sorted(p.stem for p in GOLDEN_DIR.glob("*.protostr"))


def golden(name: str) -> Message:
    """The golden ModelConfig of ``name`` (a whole TrainerConfig's ``model_config``)."""
    msg = parse((GOLDEN_DIR / f"{name}.protostr").read_text())
    return msg["model_config"][0] if "model_config" in msg else msg


# the plain views -----------------------------------------------------------------------
def _one(msg: Message, field: str) -> Any:
    values = msg.get(field)
    return values[-1] if values else DEFAULTS.get(field)


def _golden_layer(layer: Message) -> dict[str, Any]:
    view = {f: _one(layer, f) for f in LAYER_FIELDS}
    view["inputs"] = [
        (_one(i, "input_layer_name"), _one(i, "input_parameter_name"))
        for i in layer.get("inputs", [])
    ]
    return view


def _golden_sub_model(sub: Message) -> dict[str, Any]:
    links = lambda key: [(_one(x, "layer_name"), _one(x, "link_name")) for x in sub.get(key, [])]  # noqa: E731
    return {
        "name": _one(sub, "name"),
        "layer_names": list(sub.get("layer_names", [])),
        "input_layer_names": list(sub.get("input_layer_names", [])),
        "output_layer_names": list(sub.get("output_layer_names", [])),
        "is_recurrent_layer_group": _one(sub, "is_recurrent_layer_group"),
        "reversed": _one(sub, "reversed"),
        "in_links": links("in_links"),
        "out_links": links("out_links"),
        "memories": [
            (_one(m, "layer_name"), _one(m, "link_name"), _one(m, "boot_layer_name"))
            for m in sub.get("memories", [])
        ],
    }


def v2_inputs(names: list[str], data_layers: list[str]) -> list[str]:
    """The inputs v2's ``parse_network`` lists: every data layer, in layer order. When
    ``names`` (v1's) are not all among them, ``names`` unchanged, so the difference shows."""
    return data_layers if set(names) <= set(data_layers) else names


def in_layer_order(names: list[str], layers: list[str]) -> list[str]:
    """``names`` in the order of ``layers``, when they are all among them."""
    ordered = [name for name in layers if name in names]
    return ordered if sorted(ordered) == sorted(names) else names


def view_golden(msg: Message) -> dict[str, Any]:
    """The compared fields of a golden ModelConfig.

    The goldens were written by v1's ``outputs()`` helper, which makes the data layers it
    reaches by a depth-first walk from the outputs the network's inputs, in that walk's
    order (and, called several times, keeps the inputs of its first call). A v2 program has
    no ``outputs()``: v2's ``parse_network`` makes every data layer of the network an
    input, in layer order, and lists the root sub-model's inputs and outputs in layer
    order. Those lists are compared the v2 way; every name v1 listed must be among them.
    """
    layers = [name for layer in msg.get("layers", []) for name in layer["name"]]
    data = [layer["name"][0] for layer in msg.get("layers", []) if layer["type"] == ["data"]]
    subs = [_golden_sub_model(s) for s in msg.get("sub_models", [])]
    for sub in subs[:1]:
        sub["input_layer_names"] = v2_inputs(sub["input_layer_names"], data)
        sub["output_layer_names"] = in_layer_order(sub["output_layer_names"], layers)
    return {
        "type": _one(msg, "type"),
        "layers": [_golden_layer(layer) for layer in msg.get("layers", [])],
        "parameters": [
            {f: _one(p, f) if f != "dims" else list(p.get("dims", [])) for f in PARAM_FIELDS}
            for p in msg.get("parameters", [])
        ],
        "input_layer_names": v2_inputs(list(msg.get("input_layer_names", [])), data),
        "output_layer_names": list(msg.get("output_layer_names", [])),
        "sub_models": subs,
    }


def _attr(obj: Any, field: str) -> Any:
    value = getattr(obj, field, None)
    return DEFAULTS.get(field) if value is None else value


def _our_sub_model(sub: Any) -> dict[str, Any]:
    links = lambda key: [(x.layer_name, x.link_name) for x in getattr(sub, key, [])]  # noqa: E731
    return {
        "name": sub.name,
        "layer_names": list(sub.layer_names),
        "input_layer_names": list(getattr(sub, "input_layer_names", [])),
        "output_layer_names": list(getattr(sub, "output_layer_names", [])),
        "is_recurrent_layer_group": sub.is_recurrent_layer_group,
        "reversed": _attr(sub, "reversed"),
        "in_links": links("in_links"),
        "out_links": links("out_links"),
        "memories": [
            (m.layer_name, m.link_name, _attr(m, "boot_layer_name"))
            for m in getattr(sub, "memories", [])
        ],
    }


def view_ours(conf: Any) -> dict[str, Any]:
    """The compared fields of paddle_lite's ModelConfig (``Topology.proto()``)."""
    layers = [
        {f: _attr(layer, f) for f in LAYER_FIELDS}
        | {"inputs": [(i.input_layer_name, _attr(i, "input_parameter_name")) for i in layer.inputs]}
        for layer in conf.layers
    ]
    params = [
        {f: _attr(p, f) if f != "dims" else list(p.dims) for f in PARAM_FIELDS}
        for p in conf.parameters
    ]
    return {
        "type": conf.type,
        "layers": layers,
        "parameters": params,
        "input_layer_names": list(conf.input_layer_names),
        "output_layer_names": list(conf.output_layer_names),
        "sub_models": [_our_sub_model(s) for s in conf.sub_models],
    }


# comparison ----------------------------------------------------------------------------
def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        both = isinstance(a, (int, float)) and isinstance(b, (int, float))
        return both and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    return a == b


def _names(items: list[dict[str, Any]]) -> list[Any]:
    return [item.get("name") for item in items]


def differences(want: Any, got: Any, path: str = "") -> list[str]:
    """Every unequal field between two views, as ``path: want ... got ...`` lines."""
    if isinstance(want, dict) and isinstance(got, dict):
        return [d for k in want for d in differences(want[k], got.get(k), f"{path}.{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if want and isinstance(want[0], dict) and _names(want) != _names(got):
            return [f"{path} names: want {_names(want)}, got {_names(got)}"]
        if len(want) != len(got):
            return [f"{path}: want {want}, got {got}"]
        return [
            d
            for i, (w, g) in enumerate(zip(want, got, strict=True))
            for d in differences(w, g, f"{path}[{i}]")
        ]
    if isinstance(want, tuple) and isinstance(got, tuple) and len(want) == len(got):
        if all(_equal(w, g) for w, g in zip(want, got, strict=True)):
            return []
    elif _equal(want, got):
        return []
    return [f"{path}: want {want!r}, got {got!r}"]


def compare(name: str) -> tuple[list[str], list[str]]:
    """The differences between config ``name`` built with paddle_lite and v2's golden, and
    the ``LayerConfigWarning`` messages of layers v2 built but could not run."""
    import paddle_lite as paddle
    from paddle_lite.errors import LayerConfigWarning
    from paddle_lite.topology import Topology

    module = importlib.import_module(f"tests.integration.v2_configs.{name}")
    with paddle.layer.name_scope(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LayerConfigWarning)
        outputs, extras = module.network()
        conf = Topology(outputs, extras or None).proto()
    unrunnable = [str(w.message) for w in caught if issubclass(w.category, LayerConfigWarning)]
    return differences(view_golden(golden(name)), view_ours(conf)), unrunnable
