"""The mixed layer: the sum of projections and operators, then bias and activation.

A projection maps one input layer to the mixed layer's width (``x W``, a table row,
a copy, ``x * w`` ...); an operator combines several inputs without parameters.
Projections (built in ``projections``) are not layers: they are small immutable
objects that only feed ``mixed``. The i-th projection's weight is the mixed layer's
parameter ``w{i}`` (default name ``_<mixed name>.w{i}``, v2's ``___mixed_0__.w0``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError, TopologyError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    HostChecks,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base, projections
from paddle_lite._src.layers import mixed_terms as terms
from paddle_lite._src.layers.image import conv_mixed
from paddle_lite._src.layers.projections import Projection, size_arg
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import with_data


class AddToSealedMixedLayerException(LayerConfigError):
    """``+=`` on a mixed layer whose inputs are already fixed (v2's exception name)."""


# v2's ModelConfig ----------------------------------------------------------------------
def _v2_inputs(n: Layer) -> list[int]:
    """The inputs in v2's order: each projection's (or operator's) first input in
    projection order, then the other inputs of its operators."""
    items = n.attrs.get("projections") or ()
    if not items:
        return list(range(len(n.inputs)))
    return [p["inputs"][0] for p in items] + [i for p in items for i in p["inputs"][1:]]


def _v2_dimless(n: Layer) -> set[str]:
    """The filters of conv projections, which v2 declares by size only."""
    items = n.attrs.get("projections") or ()
    return {f"w{k}" for k, p in enumerate(items) if p["type"] in ("conv", "convt")}


def _v2_projection(inp: Msg, layer: Layer) -> Projection:
    proj, attr = inp["proj_conf"], rebuild.param(inp)
    kind = proj["type"]  # v2's projection type
    by_type: dict[str, Callable[..., Projection]] = {
        "fc": projections.full_matrix_projection,
        "trans_fc": projections.trans_full_matrix_projection,
        "table": projections.table_projection,
        "dot_mul": projections.dotmul_projection,
        "scaling": projections.scaling_projection,
    }
    if kind in by_type:
        return by_type[kind](input=layer, param_attr=attr)
    if kind == "identity":
        return projections.identity_projection(input=layer)
    if kind == "identity_offset":
        return projections.identity_projection(
            input=layer, offset=proj.get("offset"), size=proj["output_size"]
        )
    if kind == "context":
        return projections.context_projection(
            input=layer,
            context_len=proj["context_length"],
            context_start=proj["context_start"],
            padding_attr=(attr if proj.get("trainable_padding") else False) or False,
        )
    raise TopologyError(f"mixed layer projection type {kind!r} cannot be rebuilt")


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    operators = cfg.get("operator_confs", [])
    op_inputs = {i for op in operators for i in op["input_indices"]}
    items = [
        _v2_projection(inp, ins[i]) for i, inp in enumerate(cfg["inputs"]) if i not in op_inputs
    ]
    for op in operators:
        if op["type"] != "dot_mul":
            raise TopologyError(f"mixed layer operator type {op['type']!r} cannot be rebuilt")
        a, b = (ins[i] for i in op["input_indices"])
        items.append(projections.dotmul_operator(a=a, b=b, scale=op.get("dotmul_scale")))
    return mixed(
        size=cfg.get("size", 0),
        input=items,
        name=cfg["name"],
        act=rebuild.act(cfg),
        bias_attr=rebuild.bias(cfg),
    )


# the kind ------------------------------------------------------------------------------
class MixedKind(Kind):
    name = "mixed"
    per_row = True
    host = HostChecks(keeps_lengths=True, aligns_rows=True)
    v2 = V2Layer(
        type=lambda n: "concat2" if n.attrs.get("combine") == "concat" else "mixed",
        inputs=_v2_inputs,
        dimless=_v2_dimless,
        rebuild=_from_v2,
    )

    def infer_spec(self, inputs, attrs):
        level = base.rows_seq_level(inputs, "mixed inputs")
        size = terms.mixed_size(inputs, attrs)
        convs = terms.conv_items(attrs)
        image = None
        if convs and len(convs) == len(attrs["projections"]):
            f = sum(c["conv"]["num_filters"] for c in convs)
            outs = {c["conv"]["out"] for c in convs}
            if len(outs) == 1 and f * math.prod(outs.pop()) == size:
                image = (f, *convs[0]["conv"]["out"])
        return Spec(size, seq_level=level, image=image)

    def param_specs(self, inputs, attrs):
        size = terms.mixed_size(inputs, attrs)
        concat = attrs.get("combine") == "concat"
        widths = terms.item_sizes(inputs, attrs) if concat else None
        decls = []
        for i, item in enumerate(attrs["projections"]):
            width = widths[i] if concat else size
            decl = terms.weight_decl(item, inputs[item["inputs"][0]].size, width)
            if decl is not None:
                decls.append(ParamDecl(f"w{i}", decl[0], ParamAttrAt(i), decl[1]))
        if attrs["bias"]:
            bias_shape = (1, terms.bias_size(attrs, size))
            decls.append(ParamDecl("wbias", bias_shape, BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        if attrs.get("open"):
            raise LayerConfigError("a mixed layer is computed before its `with` block ended.")
        added = [
            terms.term(item, params.get(f"w{i}"), [inputs[j] for j in item["inputs"]])
            for i, item in enumerate(attrs["projections"])
        ]
        if attrs.get("combine") == "concat":
            out = jnp.concatenate(added, axis=-1)
        else:
            out = sum(added[1:], added[0])
        if attrs["bias"] and terms.shared_conv_bias(attrs):
            out = conv_mixed.channel_bias(out, params["wbias"][0], terms.conv_items(attrs))
        elif attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)  # the inputs share one sequence level


register_kind(MixedKind())


class MixedLayer(Layer):
    """A mixed layer; open (taking ``+=``) until its ``with`` block ends, then sealed."""

    __slots__ = ("_pending", "_config")

    def __init__(self, name: str, config: dict[str, Any]) -> None:
        attrs = {"open": True, "size": config["size"], "projections": ()}
        super().__init__(name, "mixed", (), attrs, Spec(config["size"]))
        object.__setattr__(self, "_pending", [])
        object.__setattr__(self, "_config", config)

    def __iadd__(self, other: Any) -> MixedLayer:
        if not self.attrs.get("open"):
            raise AddToSealedMixedLayerException(
                f"layer '{self.name}': cannot add {other!r} to a mixed layer whose inputs are "
                "sealed (its `with` block ended or it was built with input=); use "
                f"`{self.name} + other` for a new layer."
            )
        if not isinstance(other, Projection):
            raise LayerTypeError(
                f"layer '{self.name}': mixed inputs must be projections or operators; received "
                f"{other!r}. Wrap a layer in paddle.layer.identity_projection(input=...) or "
                "full_matrix_projection(input=...)."
            )
        self._pending.append(other)
        return self

    def __enter__(self) -> MixedLayer:
        if not self.attrs.get("open") or self._pending:
            raise AddToSealedMixedLayerException(
                f"layer '{self.name}': a `with` block needs a fresh mixed layer built "
                "without input=."
            )
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        if exc_type is None:
            self.seal()
        return False

    def seal(self) -> None:
        """Fix the layer's inputs: the projections added so far."""
        if not self._pending:
            raise LayerConfigError(
                f"layer '{self.name}' (mixed): no projection or operator was "
                "added; add at least one with `+=` or input=[...]."
            )
        inputs: list[Layer] = []
        items = []
        for proj in self._pending:
            items.append(proj.to_attr(len(inputs)))
            inputs.extend(proj.inputs)
        cfg = self._config
        if not cfg["combine"]:
            items = _offsets_take_the_layer_size(items, inputs, cfg["size"])
        attrs = {
            "size": cfg["size"],
            "projections": tuple(items),
            "act": cfg["act"],
            **cfg["extra"],
        }
        if cfg["combine"]:
            attrs["combine"] = cfg["combine"]
        node = base.build(
            "mixed",
            name=self.name,
            inputs=inputs,
            attrs=attrs,
            param_attrs=[p.param_attr or attrs_mod.ParamAttr() for p in self._pending],
            bias=cfg["bias"],
        )
        self._init(node.name, node.kind, node.inputs, node.attrs, node.spec, node.params)


@base.layer_function
def mixed(
    size: int = 0,
    input: Projection | Sequence[Projection] | None = None,
    name: str | None = None,
    act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = False,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """The sum of projections and operators: ``act(sum_i proj_i(x_i) + b)``.

    Either pass ``input=[proj, ...]``, or fill it in a ``with`` block:

        with paddle.layer.mixed(size=8) as m:
            m += paddle.layer.full_matrix_projection(input=x)
            m += paddle.layer.identity_projection(input=y)

    After the block ``m`` is an ordinary layer; ``+=`` on it raises
    ``AddToSealedMixedLayerException``.

    Args:
        size: output width; 0 infers it from the projections (all must agree).
        input: a projection/operator or a list of them; None for the ``with`` form.
        name: the layer name (default ``__mixed_<n>__``).
        act: activation (default ``Linear``).
        bias_attr: ``False`` (default) no bias; ``True`` or a ``Param`` adds one.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of size ``size`` (or the inferred size); projection ``i`` owns the
        weight ``_<name>.w{i}``, the bias is ``_<name>.wbias`` ``[1, size]``.

    Example:
        >>> m = paddle.layer.mixed(input=[paddle.layer.dotmul_operator(a=x, b=y)])
        >>> m.size
        8
    """
    name = base.layer_name(name, "mixed")
    size = size_arg(size, f"layer '{name}'")
    layer = _open_mixed(name, size, act, bias_attr, layer_attr)
    if input is None:
        return layer
    return _sealed(layer, input if isinstance(input, (list, tuple)) else [input])


def concat_projections(
    projections: list[Projection], *, name: str, act: Any, layer_attr: Any, bias_attr: Any
) -> Layer:
    """v2's concat of projections: each projection's output side by side.

    Projection ``i`` owns ``_<name>.w{i}`` shaped for its own ``size``.
    """
    layer = _open_mixed(name, 0, act, bias_attr, layer_attr, combine="concat")
    return _sealed(layer, projections)


def _open_mixed(
    name: str, size: int, act: Any, bias_attr: Any, layer_attr: Any, combine: str | None = None
) -> MixedLayer:
    """A fresh mixed layer taking ``+=``, its arguments checked."""
    config = {
        "size": size,
        "act": as_activation(act, layer=name),
        "bias": attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name),
        "extra": base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
        "combine": combine,
    }
    return MixedLayer(name, config)


def _offsets_take_the_layer_size(items: list[dict], inputs: list[Layer], size: int) -> list:
    """v2's identity_offset projection adds ``x[offset : offset + layer size]``: its own
    ``size`` only counts when nothing else sets the layer size (v2 then had none)."""
    others = [
        terms.implied_size(item, [inputs[j] for j in item["inputs"]])
        for item in items
        if item["type"] != "identity_offset"
    ]
    size = size or next((n for n in others if n), 0)
    if not size:
        return items
    return [{**it, "size": size} if it["type"] == "identity_offset" else it for it in items]


def _sealed(layer: MixedLayer, items: Any) -> MixedLayer:
    """``layer`` with ``items`` added, then sealed."""
    for item in items:
        layer += item
    layer.seal()
    return layer
