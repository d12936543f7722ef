"""The public v2 callables, named as paddle_lite exports them, with v2's signatures.

Built from v2's source by the renaming rules v2 itself applies at import:
paddle/v2/layer.py (``__convert_name__``: ``xxx_layer`` -> ``xxx``, ``maxid_layer`` ->
``max_id``, the cross-entropy costs gain ``_cost``), evaluator.py (``xxx_evaluator`` ->
``xxx``), networks.py (v1's networks but ``inputs``/``outputs``), activation.py and
pooling.py (suffix dropped), attr.py (``Param``/``Extra``/``Hook`` plus v1's attrs), op.py
(its unary ops), data_type.py (PyDataProvider2's ``*_value``/``*_vector``/``*_array``
names) and optimizer.py (each class's ``**kwargs`` go to v1's ``settings``). The dataset
modules, image.py and plot are not in v2's stored source tree; their signatures are in
:mod:`integration.v2_fetched_signatures`.
"""

from __future__ import annotations

import ast

from integration import v2_signatures as vs
from integration.v2_fetched_signatures import fetched_surface

_KEEP = {"StaticInput", "SubsequenceInput", "GeneratedInput", "LayerType", "layer_support"}
_KEEP |= {"BaseGeneratedInput"}
_NOT_CALLABLE = {"AggregateLevel", "ExpandLevel", "LayerType", "layer_support", "LayerOutput"}


def v2_layer_name(name: str) -> str:
    """paddle/v2/layer.py ``__convert_name__``."""
    if name in _KEEP:
        return name
    if name == "maxid_layer":
        return "max_id"
    if name.endswith(("memory", "_seq", "_sim")) or name == "hsigmoid":
        return name
    if name in ("cross_entropy", "multi_binary_label_cross_entropy", "cross_entropy_with_selfnorm"):
        return name + "_cost"
    if name.endswith("_cost"):
        return name
    return name[: -len("_layer")] if name.endswith("_layer") else name


def _callable_sig(defs: dict, name: str, where: str) -> vs.Sig:
    node = defs[name]
    if isinstance(node, ast.ClassDef):
        return vs.init_of(defs, name, where)
    return vs.sig_of(node, where)


def _layers() -> dict[str, vs.Sig]:
    path = f"{vs.TCH}/layers.py"
    defs = vs.definitions(path)
    out = {}
    for name in vs.module_all(path):
        if name in _NOT_CALLABLE or name not in defs:
            continue
        where = f"layer.{v2_layer_name(name)}"
        out[where] = _callable_sig(defs, name, where)
    data_layer = vs.sig_of(defs["data_layer"], "layer.data")
    data = vs.Sig("layer.data", (vs.Param("name"), vs.Param("type")), varkw="kwargs")
    out["layer.data"] = vs.with_keywords(data, data_layer, drop=("size",))
    v2 = vs.definitions("v2/layer.py")
    for name in ("parse_network", "get_layer"):
        out[f"layer.{name}"] = vs.sig_of(v2[name], f"layer.{name}")
    return out


def _renamed(path: str, module: str, suffix: str, skip: tuple[str, ...] = ()) -> dict:
    defs = vs.definitions(path)
    out = {}
    for name in vs.module_all(path):
        if name in skip or (suffix and not name.endswith(suffix)):
            continue
        where = f"{module}.{name[: len(name) - len(suffix)]}"
        out[where] = _callable_sig(defs, name, where)
    return out


def _attrs() -> dict[str, vs.Sig]:
    path = f"{vs.TCH}/attrs.py"
    defs = vs.definitions(path)
    names = {"Param": "ParameterAttribute", "Extra": "ExtraLayerAttribute"}
    names |= {"Hook": "HookAttribute"} | {n: n for n in vs.module_all(path)}
    return {f"attr.{k}": _callable_sig(defs, v, f"attr.{k}") for k, v in names.items()}


def _optimizers() -> dict[str, vs.Sig]:
    v1 = vs.definitions(f"{vs.TCH}/optimizers.py")
    settings = vs.sig_of(v1["settings"], "settings")
    v2 = vs.definitions("v2/optimizer.py")
    out = {}
    for name in ("Momentum", "Adam", "Adamax", "AdaGrad", "DecayedAdaGrad", "AdaDelta", "RMSProp"):
        where = f"optimizer.{name}"
        own = vs.init_of(v2, name, where)
        out[where] = vs.with_keywords(own, settings, drop=("batch_size", "learning_method"))
    for name in ("ModelAverage", "L2Regularization"):
        out[f"optimizer.{name}"] = vs.init_of(v1, name, f"optimizer.{name}")
    return out


def _class_api(path: str, module: str, cls: str, names: tuple[str, ...]) -> dict[str, vs.Sig]:
    defs = vs.definitions(path)
    out = {f"{module}.{cls}": vs.init_of(defs, cls, f"{module}.{cls}")}
    found = vs.methods(defs[cls], f"{module}.{cls}")
    out.update({found[n].where: found[n] for n in names if n in found})
    return out


def _functions(path: str, module: str, names: list[str]) -> dict[str, vs.Sig]:
    defs = vs.definitions(path)
    return {f"{module}.{n}": _callable_sig(defs, n, f"{module}.{n}") for n in names}


def _ops() -> dict[str, vs.Sig]:
    """v2/op.py: each ``__register_unary_math_op__(name, act)`` makes ``op(input, name)``."""
    tree = vs.parse("v2/op.py")
    calls = [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", "") == "__register_unary_math_op__"
        and isinstance(node.args[0], ast.Constant)
    ]
    params = (vs.Param("input"), vs.Param("name", vs.FILLED))
    return {f"op.{n}": vs.Sig(f"op.{n}", params) for n in calls}


def _data_types() -> dict[str, vs.Sig]:
    path = "trainer/PyDataProvider2.py"
    defs = vs.definitions(path)
    names = [
        n
        for n in defs
        if "_" in n and n[0] != "_" and any(w in n for w in ("value", "vector", "array"))
    ]
    return _functions(path, "data_type", names)


def _v2_api() -> dict[str, vs.Sig]:
    out = {}
    sgd = ("train", "test", "get_topology_proto", "save_parameter_to_tar")
    out |= _class_api("v2/trainer.py", "trainer", "SGD", sgd)
    params = ("keys", "names", "has_key", "__len__", "__getitem__", "__setitem__", "get_shape")
    params += ("get", "get_grad", "set", "serialize", "deserialize", "to_tar", "from_tar")
    params += ("init_from_tar", "append_gradient_machine")
    out |= _class_api("v2/parameters.py", "parameters", "Parameters", params)
    out |= _functions("v2/parameters.py", "parameters", ["create"])
    out |= _class_api(
        "v2/inference.py", "inference", "Inference", ("iter_infer", "iter_infer_field", "infer")
    )
    iter_infer = out["inference.Inference.iter_infer"]
    for name in ("infer", "iter_infer_field"):  # their **kwargs go to iter_infer
        where = f"inference.Inference.{name}"
        out[where] = vs.with_keywords(out[where], iter_infer)
    out |= _functions("v2/inference.py", "inference", ["infer"])
    out["infer"] = vs.Sig("infer", out["inference.infer"].params)
    topo = ("proto", "get_layer", "data_layers", "data_type", "get_layer_proto")
    out |= _class_api("v2/topology.py", "topology", "Topology", (*topo, "serialize_for_inference"))
    out |= _functions("v2/minibatch.py", "minibatch", ["batch"])
    out["batch"] = vs.Sig("batch", out["minibatch.batch"].params)
    out |= _class_api("v2/data_feeder.py", "data_feeder", "DataFeeder", ("convert",))
    out |= _renamed("v2/event.py", "event", "")
    dec = "v2/reader/decorator.py"
    out |= _functions(dec, "reader", [n for n in vs.module_all(dec) if n != "ComposeNotAligned"])
    out |= _class_api(dec, "reader", "PipeReader", ("get_line",))
    check = vs.Sig("", (vs.Param("check_alignment", True, keyword_only=True),))
    out["reader.compose"] = vs.with_keywords(out["reader.compose"], check)  # kwargs.pop(...)
    creator = "v2/reader/creator.py"
    out |= _functions(creator, "reader.creator", vs.module_all(creator))
    return out


def v2_surface() -> dict[str, vs.Sig]:
    """Every public v2 callable compared: paddle_lite's dotted name -> v2's signature."""
    out = _layers()
    out |= _renamed(f"{vs.TCH}/evaluators.py", "evaluator", "_evaluator")
    out |= _renamed(f"{vs.TCH}/networks.py", "networks", "", skip=("inputs", "outputs"))
    out |= _renamed(f"{vs.TCH}/activations.py", "activation", "Activation")
    out |= _renamed(f"{vs.TCH}/poolings.py", "pooling", "Pooling")
    out |= _attrs() | _optimizers() | _data_types() | _ops() | _v2_api() | fetched_surface()
    return out


def v2_event_attributes() -> dict[str, set[str]]:
    """The attributes each v2 event sets (its own and its bases')."""
    defs = vs.definitions("v2/event.py")
    out = {}
    for name in vs.module_all("v2/event.py"):
        cls, attrs = defs[name], set()
        while isinstance(cls, ast.ClassDef):
            attrs |= vs.self_attributes(cls)
            base = cls.bases[0] if cls.bases else None
            cls = defs.get(base.id) if isinstance(base, ast.Name) else None
        out[name] = attrs
    return out
