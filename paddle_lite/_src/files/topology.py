"""Topology JSON files, read as untrusted data and written atomically.

A serialized topology names layer kinds, attributes, specs and parameter shapes. Reading
one builds nothing the file does not describe exactly: every layer's kind must be
registered, its inputs defined before it, and the spec and parameter shapes it claims must
be what its kind computes from its inputs and attributes, so a corrupt or hostile file fails
here, with a ``TopologyError`` naming the file and the layer, rather than later inside
a traced program. Nothing is imported, evaluated or unpickled.

Example:
    ```python
    outputs, extras = layers_from_json(json.loads(text), where="'model.json'")
    ```
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from typing import Any

from paddle_lite._src.activations import BaseActivation
from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import TopologyError
from paddle_lite._src.files import atomic, bounded_json, codec
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import get_kind, noting
from paddle_lite._src.specs import ParamSpec, Spec


def where_of(source: Any) -> str:
    """How errors name a topology source: a path, a stream's ``name``, or ``<stream>``."""
    if atomic.is_path(source):
        return repr(str(source))
    name = getattr(source, "name", None)
    return repr(name) if isinstance(name, str) else "<stream>"


def _is_file_name(source: Any) -> bool:
    """A str that names an existing file rather than holding JSON (which starts with '{')."""
    return (
        isinstance(source, str)
        and not source.lstrip().startswith(("{", "["))
        and os.path.isfile(source)
    )


def read_json(source: Any, what: str) -> tuple[Any, str]:
    """``(parsed JSON, where)`` of JSON text (str or bytes), a path (``os.PathLike``, or a
    str naming an existing file) or a stream."""
    path = atomic.is_path(source) and (not isinstance(source, str) or _is_file_name(source))
    where = where_of(source) if path or not isinstance(source, (str, bytes)) else "the given text"
    try:
        if isinstance(source, bytes):
            text = source.decode("utf-8")
        elif path:
            with open(source, encoding="utf-8") as f:
                text = f.read()
        elif isinstance(source, str):
            text = source
        else:
            data = source.read()
            text = data.decode("utf-8") if isinstance(data, bytes) else data
        deepest = bounded_json.depth(text.encode("utf-8", "surrogatepass"))
        if deepest > bounded_json.MAX_DEPTH:
            raise TopologyError(
                f"{what} {where}: JSON nested {deepest} levels deep; at most "
                f"{bounded_json.MAX_DEPTH} are read (the file is corrupt)."
            )
        return json.loads(text), where
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        hint = (
            " (a str that names no file is read as the JSON text itself)"
            if (isinstance(source, str) and not path)
            else ""
        )
        raise TopologyError(f"{what} {where} is not UTF-8 JSON{hint}: {err}.") from None


def write_text(target: Any, text: str) -> None:
    """Write ``text`` to a stream (text or binary), or atomically to a path."""
    if atomic.is_path(target):
        atomic.write_text(target, text)
    elif isinstance(target, io.TextIOBase):
        target.write(text)
        atomic.sync_stream(target)
    else:
        target.write(text.encode("utf-8"))
        atomic.sync_stream(target)


def _layer_error(where: str, index: int, item: Any, what: str) -> TopologyError:
    name = item.get("name") if isinstance(item, Mapping) else None
    label = f"layer {index}" + (f" ('{name}')" if isinstance(name, str) else "")
    return TopologyError(f"topology {where}: {label}: {what}.")


def _check_claims(layer: Layer, where: str) -> None:
    """The spec and parameter shapes a file claims must be what the kind computes."""
    kind = get_kind(layer.kind)
    specs = [i.spec for i in layer.inputs]
    with noting():  # a layer v2 built but could not run keeps its notes in its attributes
        spec = kind.infer_spec(specs, layer.attrs)
        shapes = [(d.role, tuple(d.shape)) for d in kind.param_specs(specs, layer.attrs)]
    claimed = [(p.role, tuple(p.shape)) for p in layer.params]
    if spec != layer.spec or shapes != claimed:
        raise TopologyError(
            f"topology {where}: layer '{layer.name}' ({layer.kind}) claims spec {layer.spec} "
            f"and parameters {claimed}, but its inputs and attributes give {spec} and "
            f"{shapes}; the file is corrupt or was edited by hand."
        )


def _layer(item: Any, nodes: Mapping[str, Layer]) -> Layer:
    if not isinstance(item, Mapping):
        raise TypeError(f"expected an object, received {type(item).__name__}")
    name, kind, inputs = item["name"], item["kind"], item["inputs"]
    if not isinstance(name, str) or not name or not isinstance(kind, str):
        raise TypeError(f"name and kind must be non-empty strings; received {name!r}, {kind!r}")
    if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
        raise TypeError(f"inputs must be a list of layer names; received {inputs!r}")
    missing = [i for i in inputs if i not in nodes]
    if missing:
        raise TopologyError(f"refers to unknown inputs {missing} (inputs come before users)")
    get_kind(kind)
    params = item["params"]
    if not isinstance(params, list):
        raise TypeError(f"params must be a list; received {params!r}")
    attrs = codec.decode_attrs(item["attrs"])
    _check_attr_types(attrs)
    return Layer(
        name,
        kind,
        tuple(nodes[i] for i in inputs),
        attrs,
        Spec.from_json(item["spec"]),
        tuple(_param_spec(p) for p in params),
    )


def _param_spec(obj: Any) -> ParamSpec:
    """A parameter declaration from JSON, its name and shape type-checked."""
    spec = ParamSpec.from_json(obj)
    shape_ok = all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in spec.shape)
    if not isinstance(spec.name, str) or not spec.name or not shape_ok:
        raise TypeError(
            f"a parameter needs a non-empty str name and a shape of non-negative ints; "
            f"received name {spec.name!r}, shape {spec.shape!r}"
        )
    return spec


def _check_attr_types(attrs: Mapping[str, Any]) -> None:
    """The attributes every kind reads the same way must have their types."""
    for key, value in attrs.items():
        if key.endswith("act") and value is not None and not isinstance(value, BaseActivation):
            raise TypeError(f"attribute '{key}' must be an activation; received {value!r}")
        if key == "bias" and not isinstance(value, bool):
            raise TypeError(f"attribute 'bias' must be a bool; received {value!r}")
        if key == "type" and not isinstance(value, InputType):
            raise TypeError(f"attribute 'type' must be an input type; received {value!r}")


def _names(obj: Mapping[str, Any], key: str, nodes: Mapping[str, Layer], where: str) -> list:
    names = obj.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TopologyError(f"topology {where}: '{key}' must be a list of layer names.")
    unknown = [n for n in names if n not in nodes]
    if unknown:
        raise TopologyError(f"topology {where}: '{key}' names unknown layers {unknown}.")
    return [nodes[n] for n in names]


def layers_from_json(obj: Any, where: str = "the given JSON") -> tuple[list[Layer], list[Layer]]:
    """``(outputs, extras)`` rebuilt from ``Topology.to_json`` output, every claim checked.

    Raises:
        TopologyError: the JSON is not a topology, a layer is malformed, refers to an
            unknown input or kind, or claims a spec or parameter shape its kind does not
            produce. The message names ``where`` and the layer.
    """
    layers = obj.get("layers") if isinstance(obj, Mapping) else None
    if not isinstance(layers, list):
        raise TopologyError(f"topology {where}: expected an object with a 'layers' list.")
    nodes: dict[str, Layer] = {}
    for index, item in enumerate(layers):
        try:
            layer = _layer(item, nodes)
            _check_claims(layer, where)
        except TopologyError as err:
            if str(err).startswith(f"topology {where}"):
                raise
            raise _layer_error(where, index, item, str(err).rstrip(".")) from None
        except Exception as err:  # malformed values reach the decoders and kinds
            what = f"malformed ({type(err).__name__}: {err})"
            raise _layer_error(where, index, item, what) from err
        if layer.name in nodes:
            raise _layer_error(where, index, item, "a layer of this name comes earlier")
        nodes[layer.name] = layer
    return _names(obj, "outputs", nodes, where), _names(obj, "extras", nodes, where)
