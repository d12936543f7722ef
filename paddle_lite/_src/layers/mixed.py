"""The mixed layer: the sum of projections and operators, then bias and activation.

A projection maps one input layer to the mixed layer's width (``x W``, a table row,
a copy, ``x * w`` ...); an operator combines several inputs without parameters.
Projections (built in ``projections``) are not layers: they are small immutable
objects that only feed ``mixed``. The i-th projection's weight is the mixed layer's
parameter ``w{i}`` (default name ``_<mixed name>.w{i}``, v2's ``___mixed_0__.w0``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image import conv_mixed
from paddle_lite._src.layers.projections import Projection, _size_arg, project
from paddle_lite._src.layers.sequence.reshape import context_padding_rows, context_window
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


class AddToSealedMixedLayerException(LayerConfigError):
    """``+=`` on a mixed layer whose inputs are already fixed (v2's exception name)."""


_DENSE_ONLY = (
    "identity",
    "identity_offset",
    "dotmul",
    "scaling",
    "dotmul_operator",
    "context",
    "slice",
)


# the kind -------------------------------------------------------------------------
def _implied_size(item: dict[str, Any], specs: list[Spec]) -> int:
    """The output width a projection implies (0: none, take the mixed layer's)."""
    kind = item["type"]
    if kind in ("identity", "dotmul", "scaling", "dotmul_operator"):
        return specs[0].size
    return item["size"]


def _check_input(i: int, item: dict[str, Any], specs: list[Spec]) -> None:
    kind, dtypes = item["type"], {s.dtype for s in specs}
    if kind in conv_mixed.CONV_TYPES:
        return conv_mixed.check_conv_input(i, item, specs)
    if kind == "table" and dtypes != {"int32"}:  # v2 parsed it; TableProjection failed run
        base.cannot_run(
            f"projection {i} (table) needs integer ids; received {specs[0].dtype} values "
            "(v2's TableProjection looks up the rows of its input's ids)."
        )
    if kind in ("full_matrix", "trans_full_matrix") and "int32" in dtypes:
        raise LayerConfigError(
            f"projection {i} ({kind}) needs dense or sparse values; received "
            "integer ids. Use table_projection for ids."
        )
    if kind in _DENSE_ONLY and dtypes != {"float32"}:
        raise LayerConfigError(
            f"projection {i} ({kind}) needs dense values; received {sorted(dtypes)}."
        )
    if kind == "identity_offset" and item["offset"] + item["size"] > specs[0].size:
        raise LayerConfigError(
            f"projection {i} (identity_offset) takes the values [{item['offset']}, "
            f"{item['offset'] + item['size']}) of an input of size {specs[0].size}; expected "
            f"offset + layer size <= {specs[0].size}."
        )
    if kind == "dotmul_operator" and specs[0].size != specs[1].size:
        raise LayerConfigError(
            f"projection {i} (dotmul_operator) needs equal sizes; received "
            f"{specs[0].size} and {specs[1].size}."
        )
    return None


def _item_sizes(inputs, attrs) -> list[int]:
    """Each projection's own output width (0 when it takes the layer's), checked."""
    sizes = []
    for i, item in enumerate(attrs["projections"]):
        specs = [inputs[j] for j in item["inputs"]]
        _check_input(i, item, specs)
        sizes.append(_implied_size(item, specs))
    return sizes


def mixed_size(inputs, attrs) -> int:
    """The layer's width: for a sum, ``attrs["size"]`` or the one its projections agree
    on; for a concatenation (``attrs["combine"] == "concat"``), the sum of their widths."""
    sizes = _item_sizes(inputs, attrs)
    if attrs.get("combine") == "concat":
        missing = [i for i, n in enumerate(sizes) if not n]
        if missing:
            raise LayerConfigError(
                f"projections {missing} of a concat have no size; pass size= to each."
            )
        return sum(sizes)
    size = attrs["size"]
    for i, (item, implied) in enumerate(zip(attrs["projections"], sizes, strict=True)):
        if implied and size and implied != size:
            raise LayerConfigError(
                f"projection {i} ({item['type']}) has output size {implied}, but the layer size "
                f"is {size}; all projections and operators must agree."
            )
        size = size or implied
    if not size:
        raise LayerConfigError(
            "size is not set and no projection implies one; pass "
            "mixed(size=...) or a projection size."
        )
    return size


def _weight_decl(item: dict[str, Any], in_size: int, size: int) -> tuple[Any, Any] | None:
    """``(shape, default init)`` of a projection's weight, or None if it has none."""
    if item["type"] in conv_mixed.CONV_TYPES:
        return conv_mixed.weight_decl(item)
    shape = _weight_shape(item, in_size, size)
    return None if shape is None else (shape, attrs_mod.SMART)


def _weight_shape(item: dict[str, Any], in_size: int, size: int) -> tuple[int, int] | None:
    if item["type"] == "context":
        rows = sum(context_padding_rows(item["context_start"], item["context_len"]))
        return (rows, in_size) if item["trainable"] and rows else None
    return {
        "full_matrix": (in_size, size),
        "trans_full_matrix": (size, in_size),
        "table": (in_size, size),
        "dotmul": (1, size),
        "scaling": (1, 1),
    }.get(item["type"])


def _term(item: dict[str, Any], w: Any, xs: list[Any]) -> Any:
    kind = item["type"]
    if kind == "full_matrix":
        return project(xs[0], w)
    if kind == "trans_full_matrix":
        return project(xs[0], w.T)
    if kind == "table":
        return w[data_of(xs[0])]
    if kind == "context":
        return context_window(xs[0], item["context_start"], item["context_len"], w)
    if kind in conv_mixed.CONV_TYPES:
        return conv_mixed.conv_term(item, w, xs)
    x = data_of(xs[0])
    if kind == "identity":
        return x
    if kind == "identity_offset":
        return x[..., item["offset"] : item["offset"] + item["size"]]
    if kind == "slice":
        return jnp.concatenate([x[..., start:end] for start, end in item["slices"]], axis=-1)
    if kind == "dotmul":
        return x * w[0]
    if kind == "scaling":
        return x * w[0, 0]
    return item["scale"] * x * data_of(xs[1])


class MixedKind(Kind):
    name = "mixed"
    aligns_rows = True
    keeps_lengths = True

    def infer_spec(self, inputs, attrs):
        level = base.rows_seq_level(inputs, "mixed inputs")
        size = mixed_size(inputs, attrs)
        convs = _conv_items(attrs)
        image = None
        if convs and len(convs) == len(attrs["projections"]):
            f = sum(c["conv"]["num_filters"] for c in convs)
            outs = {c["conv"]["out"] for c in convs}
            if len(outs) == 1 and f * math.prod(outs.pop()) == size:
                image = (f, *convs[0]["conv"]["out"])
        return Spec(size, seq_level=level, image=image)

    def param_specs(self, inputs, attrs):
        size = mixed_size(inputs, attrs)
        concat = attrs.get("combine") == "concat"
        widths = _item_sizes(inputs, attrs) if concat else None
        decls = []
        for i, item in enumerate(attrs["projections"]):
            width = widths[i] if concat else size
            decl = _weight_decl(item, inputs[item["inputs"][0]].size, width)
            if decl is not None:
                decls.append(ParamDecl(f"w{i}", decl[0], ("param", i), decl[1]))
        if attrs["bias"]:
            bias_shape = (1, _bias_size(attrs, size))
            decls.append(ParamDecl("wbias", bias_shape, ("bias",), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        if attrs.get("open"):
            raise LayerConfigError("a mixed layer is computed before its `with` block ended.")
        terms = [
            _term(item, params.get(f"w{i}"), [inputs[j] for j in item["inputs"]])
            for i, item in enumerate(attrs["projections"])
        ]
        if attrs.get("combine") == "concat":
            out = jnp.concatenate(terms, axis=-1)
        else:
            out = sum(terms[1:], terms[0])
        if attrs["bias"] and _shared_conv_bias(attrs):
            out = conv_mixed.channel_bias(out, params["wbias"][0], _conv_items(attrs))
        elif attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)  # the inputs share one sequence level


register_kind(MixedKind())


def _conv_items(attrs: Any) -> list[dict[str, Any]]:
    return [p for p in attrs["projections"] if p["type"] in conv_mixed.CONV_TYPES]


def _shared_conv_bias(attrs: Any) -> bool:
    """v2 shares the bias per channel when the first input is a conv projection."""
    return attrs["projections"][0]["type"] in ("conv", "convt")


def _bias_size(attrs: Any, size: int) -> int:
    if not _shared_conv_bias(attrs):
        return size
    convs = _conv_items(attrs)
    if len(convs) != len(attrs["projections"]) or (
        attrs.get("combine") != "concat" and len(convs) > 1
    ):
        raise LayerConfigError(
            "a bias after conv projections is shared per output channel, which needs a "
            "single conv projection (or a concat of conv projections only); add the bias "
            "in a separate layer (paddle.layer.addto(..., bias_attr=True))."
        )
    return sum(c["conv"]["num_filters"] for c in convs)


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
            self._seal()
        return False

    def _seal(self) -> None:
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
    size = _size_arg(size, f"layer '{name}'")
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
        _implied_size(item, [inputs[j] for j in item["inputs"]])
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
    layer._seal()
    return layer
