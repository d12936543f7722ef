"""Topologies: the nodes reachable from output layers (plus extras), in order.

A ``Topology`` validates the graph once (layer types, unique names, consistent
shared parameters), lists its data layers in definition order and serializes to
JSON. Cycles cannot exist: a node's inputs exist before it does.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from paddle_lite._src.errors import (
    LayerConfigWarning,
    ParameterError,
    TopologyError,
    did_you_mean,
)
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.files import codec
from paddle_lite._src.files.topology import layers_from_json, read_json, write_text
from paddle_lite._src.graph import Layer, current_scope
from paddle_lite._src.proto import views as topology_proto
from paddle_lite._src.specs import ParamSpec
from paddle_lite._src.tracebacks import api_boundary, user_stacklevel

FORMAT = "paddle_lite.topology/1"
INFERENCE_FORMAT = "paddle_lite.inference/1"


def _as_layer_list(layers: Any, arg: str) -> list[Layer]:
    items = list(layers) if isinstance(layers, (list, tuple)) else [layers]
    for i, item in enumerate(items):
        if not isinstance(item, Layer):
            raise TopologyError(
                f"layer should have type paddle_lite layer; {arg}[{i}] is {item!r} of type "
                f"{type(item).__name__}."
            )
    return items


def _split_extras(extra_layers: Any) -> tuple[list[Layer], list[Evaluator]]:
    """``extra_layers`` as (layers, evaluators).

    v2's evaluator functions returned None, so v2 programs pass their results in
    ``extra_layers`` (``extra_layers=paddle.evaluator.auc(...)``). Here such a result
    is the declared evaluator: its input layers join the extras (so it is computed)
    and it is kept in ``Topology.evaluators``; a None is ignored, alone or in a list.
    """
    if extra_layers is None:
        return [], []
    items = list(extra_layers) if isinstance(extra_layers, (list, tuple)) else [extra_layers]
    layers: list[Layer] = []
    evaluators: list[Evaluator] = []
    for i, item in enumerate(items):
        if item is None:
            continue
        if isinstance(item, Evaluator):
            evaluators.append(item)
            layers.extend(inp for inp in item.inputs if all(inp is not x for x in layers))
            continue
        if not isinstance(item, Layer):
            raise TopologyError(
                f"layer should have type paddle_lite layer; extra_layers[{i}] is {item!r} of "
                f"type {type(item).__name__} (expected a layer, an evaluator or None)."
            )
        if all(item is not x for x in layers):
            layers.append(item)
    return layers, evaluators


def traverse(outputs: Iterable[Layer]) -> list[Layer]:
    """Every node reachable from ``outputs``, inputs before users (iterative DFS)."""
    order: list[Layer] = []
    seen: set[int] = set()
    for root in outputs:
        stack: list[tuple[Layer, int]] = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if id(node) in seen:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i]
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                seen.add(id(node))
                order.append(node)
    return order


def collect_params(nodes: Sequence[Layer]) -> dict[str, ParamSpec]:
    """Parameter specs by name, in creation order; conflicting declarations are refused.

    A declaration that only names a parameter defers to a fuller one of the same shape
    (v2 book chapter 7 shares ``Param(name="crfw", initial_std=...)`` with a bare
    ``Param(name="crfw")``); two different full declarations are an error.
    """
    specs: dict[str, ParamSpec] = {}
    declared_by: dict[str, Layer] = {}
    for node in sorted(nodes, key=lambda n: n.serial):
        for spec in node.params:
            first = specs.setdefault(spec.name, spec)
            declared_by.setdefault(spec.name, node)
            if first == spec or (first.shape == spec.shape and _name_only(spec)):
                continue
            if first.shape == spec.shape and _name_only(first):
                specs[spec.name], declared_by[spec.name] = spec, node
                continue
            raise ParameterError(_conflict(first, spec, declared_by[spec.name], node))
    return specs


def _name_only(spec: ParamSpec) -> bool:
    """True for a declaration that only names the parameter (``Param(name="w")``): it
    takes the settings of a fuller declaration of the same name, as in v2."""
    return (
        spec.init.smart
        and spec.learning_rate == 1.0
        and spec.momentum is None
        and spec.decay_rate is None
        and spec.decay_rate_l1 is None
        and spec.gradient_clipping_threshold is None
        and not spec.is_static
        and not spec.sparse_update
        and spec.sparsity_ratio is None
    )


def _at(layer: Layer) -> str:
    return f" at {layer.where}" if layer.where else ""


def _conflict(a: ParamSpec, b: ParamSpec, first: Layer, second: Layer) -> str:
    diffs = [
        f"{field}: {getattr(a, field)!r} vs {getattr(b, field)!r}"
        for field in (
            "shape",
            "init",
            "is_static",
            "learning_rate",
            "momentum",
            "decay_rate",
            "decay_rate_l1",
            "gradient_clipping_threshold",
            "sparse_update",
        )
        if getattr(a, field) != getattr(b, field)
    ]
    return (
        f"parameter '{a.name}' is declared differently by layer '{a.owner}'{_at(first)} and "
        f"layer '{b.owner}'{_at(second)} ({'; '.join(diffs)}). Layers sharing a parameter "
        "must declare the same shape, init and update settings."
    )


class Topology:
    """The network defined by ``layers`` (outputs) plus ``extra_layers``.

    ``extra_layers`` takes layers, evaluators (the inputs of each join the
    network; the evaluators are listed in ``evaluators``) and None, alone or in a list.

    Example:
        ```python
        topo = paddle.topology.Topology(cost)
        topo.data_type()   # [('x', InputType(dim=13, ...)), ('y', ...)]
        ```
    """

    @api_boundary
    def __init__(self, layers: Any, extra_layers: Any = None) -> None:
        outputs = _as_layer_list(layers, "layers")
        extras, self.evaluators = _split_extras(extra_layers)
        self.layers = outputs + extras
        self.outputs = outputs
        self.nodes = traverse(self.layers)
        self._by_name: dict[str, Layer] = {}
        for node in self.nodes:
            other = self._by_name.setdefault(node.name, node)
            if other is not node:
                raise TopologyError(
                    f"two different layers are named '{node.name}' ({other.kind}{_at(other)} and "
                    f"{node.kind}{_at(node)}); layer names must be unique within a topology. "
                    "Layers of two builds of a network meet here (a function that builds it, "
                    "called again, or built again after paddle.layer.reset_names() or inside a "
                    "paddle.layer.name_scope(), which restart the automatic names): build "
                    "the network once and use that build's layers, or give one of the two "
                    "another name=."
                )
        self.params = collect_params(self.nodes)

    def __repr__(self) -> str:
        names = ", ".join(layer.name for layer in self.layers)
        return f"<Topology outputs=[{names}] layers={len(self.nodes)} params={len(self.params)}>"

    @api_boundary
    def get_layer(self, name: str) -> Layer:
        """The layer named ``name`` (the same object that was built)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise TopologyError(
                f"no layer named {name!r} in this topology; reachable layers: "
                f"{sorted(self._by_name)}." + did_you_mean(name, self._by_name)
            ) from None

    def data_layers(self) -> dict[str, Layer]:
        """``{name: data layer}`` in definition order."""
        data = sorted((n for n in self.nodes if n.kind == "data"), key=lambda n: n.serial)
        return {n.name: n for n in data}

    def data_type(self) -> list[tuple[str, Any]]:
        """``[(name, InputType)]`` of the data layers, in definition order."""
        return [(name, layer.attrs["type"]) for name, layer in self.data_layers().items()]

    def param_specs(self) -> list[ParamSpec]:
        """The specs of every parameter, each shared one once, in creation order."""
        return list(self.params.values())

    def proto(self, specs: Mapping[str, ParamSpec] | None = None) -> SimpleNamespace:
        """A readable ModelConfig (v2 ``proto()``), read by attribute like v2's.

        ``.layers`` (name, type, size, inputs, active_type, parameters), with each
        group's step layers after the group; ``.input_layer_names``,
        ``.output_layer_names``; ``.parameters``: one ``ParameterConfig`` per
        parameter (``name``, ``size``, ``dims``, ``decay_rate`` ...), from ``specs``
        when given (a trainer's filled-in view); ``.sub_models``: ``root`` and one per
        recurrent group (see ``proto.views``).
        """
        return topology_proto.model_config(
            self.nodes,
            list(self.data_layers()),
            [layer.name for layer in self.outputs],
            self.params if specs is None else specs,
        )

    def get_layer_proto(self, name: str) -> SimpleNamespace | None:
        """The ``proto()`` entry of layer ``name`` (v2: ``None`` when there is none)."""
        return next((layer for layer in self.proto().layers if layer.name == name), None)

    # summary -------------------------------------------------------------------------
    def summary(self, print_fn: Any = print) -> str | None:
        """Print a table of layers, output sizes and parameter counts with ``print_fn``
        (like Keras's ``model.summary``); with ``print_fn=None``, return it instead. A
        recurrent group's step layers are listed, indented, under it."""
        text = topology_proto.summary_table(self.nodes, len(self.params))
        if print_fn is None:
            return text
        print_fn(text)
        return None

    # pictures (display.dot) ----------------------------------------------------------
    def to_dot(self) -> str:
        """The topology as Graphviz DOT text: layers as boxes, each parameter drawn once
        with an edge to every layer that uses it (see ``display.dot.to_dot``)."""
        from paddle_lite._src.display import dot as topology_dot

        return topology_dot.to_dot(self)

    def _repr_svg_(self) -> str | None:
        from paddle_lite._src.display import dot as topology_dot

        return topology_dot.to_svg(self)

    def _repr_html_(self) -> str | None:
        from paddle_lite._src.display import dot as topology_dot

        return topology_dot.repr_html(self)

    # JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        ordered = sorted(self.nodes, key=lambda n: n.serial)
        return {
            "format": FORMAT,
            "layers": [_node_json(n) for n in ordered],
            "outputs": [layer.name for layer in self.outputs],
            "extras": [layer.name for layer in self.layers[len(self.outputs) :]],
        }

    @api_boundary
    def serialize(self, stream: Any = None) -> str:
        """The topology as JSON; also written to ``stream`` when one is given (a text or
        binary stream, or a path, which is replaced atomically)."""
        text = json.dumps(self.to_json(), indent=1, sort_keys=True)
        if stream is not None:
            write_text(stream, text)
        return text

    @staticmethod
    @api_boundary
    def from_json(obj: dict[str, Any], where: str = "the given JSON") -> Topology:
        """Rebuild a topology from ``to_json`` output,
        checking every layer's claims (see ``files.topology``); a malformed object is a
        [`TopologyError`][paddle_lite.errors.TopologyError]."""
        fmt = obj.get("format") if isinstance(obj, dict) else None
        if fmt != FORMAT:
            raise TopologyError(
                f"not a paddle_lite topology: {where} has format {fmt!r}, expected {FORMAT!r}."
            )
        outputs, extras = layers_from_json(obj, where)
        if not outputs:
            raise TopologyError(f"topology {where}: 'outputs' names no layer.")
        try:
            return Topology(outputs, extras or None)
        except (ParameterError, TopologyError) as err:
            raise TopologyError(f"topology {where}: {err}") from None

    @staticmethod
    @api_boundary
    def deserialize(source: Any) -> Topology:
        """Rebuild a topology from [`serialize`][paddle_lite.topology.Topology.serialize] output: a
        str, bytes, a stream or a path (``os.PathLike``); the file is read as data only."""
        obj, where = read_json(source, "topology")
        return Topology.from_json(obj, where)

    @api_boundary
    def serialize_for_inference(self, stream: Any) -> None:
        """Write what ``paddle.inference.Inference(fileobj=...)`` needs, as JSON, to a
        stream or (atomically) to a path."""
        payload = {
            "format": INFERENCE_FORMAT,
            "topology": self.to_json(),
            "data_type": [[name, t.to_json()] for name, t in self.data_type()],
        }
        write_text(stream, json.dumps(payload, sort_keys=True))


@api_boundary
def load_inference_topology(source: Any) -> Topology:
    """Read a stream or path written by ``Topology.serialize_for_inference``."""
    payload, where = read_json(source, "inference topology")
    fmt = payload.get("format") if isinstance(payload, dict) else None
    if fmt != INFERENCE_FORMAT:
        raise TopologyError(
            f"not an inference topology: {where} has format {fmt!r}, expected {INFERENCE_FORMAT!r}."
        )
    return Topology.from_json(payload.get("topology"), where)


def _node_json(n: Layer) -> dict[str, Any]:
    return {
        "name": n.name,
        "kind": n.kind,
        "inputs": [i.name for i in n.inputs],
        "attrs": codec.encode_attrs(n.attrs, n.name),
        "spec": n.spec.to_json(),
        "params": [p.to_json() for p in n.params],
    }


@api_boundary
def parse_network(output_layers: Any, *extra: Any, extra_layers: Any = None) -> SimpleNamespace:
    """v2 ``layer.parse_network``: the ModelConfig of ``output_layers`` (plus extras).

    Extra layers may also come as further positional arguments (v2 0.10 varargs), each
    a layer or a list of layers.
    """
    extras = [x for item in extra for x in (item if isinstance(item, (list, tuple)) else [item])]
    if extra_layers is not None:
        extras += extra_layers if isinstance(extra_layers, (list, tuple)) else [extra_layers]
    return Topology(output_layers, extras or None).proto()


def get_layer(name: str) -> Layer | None:
    """v2 ``layer.get_layer``: the live layer called ``name`` in the current name scope,
    or None (with a [`LayerConfigWarning`][paddle_lite.errors.LayerConfigWarning] naming the closest
    names) as in v2."""
    layers = current_scope().layers
    layer = layers.get(name)
    if layer is None:
        warnings.warn(
            f"paddle.layer.get_layer: no layer named {name!r} exists in the current name "
            "scope; returning None, as v2 did." + did_you_mean(name, list(layers.keys())),
            LayerConfigWarning,
            stacklevel=user_stacklevel(),
        )
    return layer
