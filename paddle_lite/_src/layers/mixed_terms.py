"""The terms of a mixed layer: what each projection or operator (``attrs["projections"]``)
checks of its inputs, the width it implies, the weight it owns and the value it adds.

``mixed`` declares the kind, which sums (or, for a concat of projections, joins) these
terms; the projections themselves are built in ``projections`` and, for convolutions,
computed in ``image.conv_mixed``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image import conv_mixed
from paddle_lite._src.layers.projections import project
from paddle_lite._src.layers.sequence.context import context_padding_rows, context_window
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of

_DENSE_ONLY = (
    "identity",
    "identity_offset",
    "dotmul",
    "scaling",
    "dotmul_operator",
    "context",
    "slice",
)


def implied_size(item: dict[str, Any], specs: list[Spec]) -> int:
    """The output width a projection implies (0: none, take the mixed layer's)."""
    kind = item["type"]
    if kind in ("identity", "dotmul", "scaling", "dotmul_operator"):
        return specs[0].size
    return item["size"]


def check_input(i: int, item: dict[str, Any], specs: list[Spec]) -> None:
    """Refuse inputs projection ``i`` cannot take."""
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


def item_sizes(inputs, attrs) -> list[int]:
    """Each projection's own output width (0 when it takes the layer's), checked."""
    sizes = []
    for i, item in enumerate(attrs["projections"]):
        specs = [inputs[j] for j in item["inputs"]]
        check_input(i, item, specs)
        sizes.append(implied_size(item, specs))
    return sizes


def mixed_size(inputs, attrs) -> int:
    """The layer's width: for a sum, ``attrs["size"]`` or the one its projections agree
    on; for a concatenation (``attrs["combine"] == "concat"``), the sum of their widths."""
    sizes = item_sizes(inputs, attrs)
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


def weight_decl(item: dict[str, Any], in_size: int, size: int) -> tuple[Any, Any] | None:
    """``(shape, default init)`` of a projection's weight, or None if it has none."""
    if item["type"] in conv_mixed.CONV_TYPES:
        return conv_mixed.weight_decl(item)
    shape = weight_shape(item, in_size, size)
    return None if shape is None else (shape, attrs_mod.SMART)


def weight_shape(item: dict[str, Any], in_size: int, size: int) -> tuple[int, int] | None:
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


def term(item: dict[str, Any], w: Any, xs: list[Any]) -> Any:
    """The value projection ``item`` adds, from its weight ``w`` and its inputs ``xs``."""
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


def conv_items(attrs: Any) -> list[dict[str, Any]]:
    """The convolution projections and operators."""
    return [p for p in attrs["projections"] if p["type"] in conv_mixed.CONV_TYPES]


def shared_conv_bias(attrs: Any) -> bool:
    """v2 shares the bias per channel when the first input is a conv projection."""
    return attrs["projections"][0]["type"] in ("conv", "convt")


def bias_size(attrs: Any, size: int) -> int:
    """The width of the bias: one per output channel after conv projections."""
    if not shared_conv_bias(attrs):
        return size
    convs = conv_items(attrs)
    if len(convs) != len(attrs["projections"]) or (
        attrs.get("combine") != "concat" and len(convs) > 1
    ):
        raise LayerConfigError(
            "a bias after conv projections is shared per output channel, which needs a "
            "single conv projection (or a concat of conv projections only); add the bias "
            "in a separate layer (paddle.layer.addto(..., bias_attr=True))."
        )
    return sum(c["conv"]["num_filters"] for c in convs)
