"""Layers over rows of two or more inputs: multiplex (pick each row from one of several
layers), dot_prod, l2_distance and out_prod. None owns parameters.

Each works row by row, so sequences (every step a row, as in v2) keep their lengths;
padding steps are masked where a value there could be NaN (a zero distance's gradient).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, data_of, step_mask, with_data


def _extra(layer_attr, name: str) -> dict:
    return base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)


def _equal_sizes(a: Spec, b: Spec, what: str) -> None:
    if a.size != b.size:
        raise LayerConfigError(f"{what} must have the same size; received {a.size} and {b.size}.")


def _pair(kind: str, prefix: str, first, second, args, name, layer_attr):
    """Build a two-input layer ``kind``; ``args`` name the two arguments in messages."""
    name = base.layer_name(name, prefix)
    inputs = [
        base.as_layer(first, layer=name, arg=args[0]),
        base.as_layer(second, layer=name, arg=args[1]),
    ]
    return base.build(kind, name=name, inputs=inputs, attrs=_extra(layer_attr, name))


def valid_rows(value) -> jnp.ndarray | None:
    """``[..., 1]`` bool mask of a sequence's real steps (None for a plain value)."""
    return step_mask(value)[..., None] if isinstance(value, Seq) else None


# multiplex ---------------------------------------------------------------------------
class MultiplexKind(Kind):
    name = "multiplex"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        index, *cands = inputs
        base.expect(index, "input 0 (the index)", "ids")
        base.expect(cands, "candidate")
        sizes = [c.size for c in cands]
        if len(set(sizes)) > 1:
            raise LayerConfigError(
                f"all inputs except the first must have the same size; received sizes {sizes}."
            )
        level = base.same_seq_level(inputs, "multiplex inputs (index and candidates)")
        return Spec(sizes[0], seq_level=level, image=cands[0].image)

    def apply(self, params, inputs, attrs, *, key, mode):
        index, *cands = inputs
        ids = jnp.clip(data_of(index), 0, len(cands) - 1)
        stacked = jnp.stack([data_of(c) for c in cands], axis=0)
        out = jnp.take_along_axis(stacked, ids[None, ..., None], axis=0)[0]
        return with_data(cands[0], out)


register_kind(MultiplexKind())


@base.layer_function
def multiplex(
    input: Sequence[Layer],
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Pick each row from one of several layers: ``y_i = x_{k_i + 1, i}``, ``k_i`` the
    i-th id of the first input.

    ``input[0]`` holds one id per sample (or per step) choosing among ``input[1:]``;
    ``k = 0`` picks ``input[1]``. v2 stops on an id outside ``[0, len(input) - 2]``;
    here it is clipped into that range. The gradient reaches only the chosen rows.

    Args:
        input: ``[index, x_1, ..., x_n]`` (n >= 2): integer ids, then dense layers of
            one size, all of one sequence level.
        name: the layer name (default ``__multiplex_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the candidates' size; no parameters.

    Example:
        >>> pick = paddle.layer.data(name="pick", type=paddle.data_type.integer_value(2))
        >>> chosen = paddle.layer.multiplex(input=[pick, x, y])
        >>> chosen.size
        8
    """
    name = base.layer_name(name, "multiplex_layer")
    inputs = base.as_layers(input, layer=name)
    if len(inputs) < 3:
        raise LayerConfigError(
            f"layer '{name}': multiplex needs more than 2 inputs (an index, then at least "
            f"two candidates); received {len(inputs)}."
        )
    return base.build("multiplex", name=name, inputs=inputs, attrs=_extra(layer_attr, name))


# dot_prod / l2_distance --------------------------------------------------------------
class DotProdKind(Kind):
    name = "dot_prod"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        _equal_sizes(*inputs, "the two inputs")
        return Spec(1, seq_level=base.same_seq_level(inputs, "the two inputs"))

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = (data_of(x) for x in inputs)
        return with_data(inputs[0], jnp.sum(a * b, axis=-1, keepdims=True))


class L2DistanceKind(DotProdKind):
    name = "l2_distance"

    def apply(self, params, inputs, attrs, *, key, mode):
        diff = data_of(inputs[0]) - data_of(inputs[1])
        squared = jnp.sum(diff * diff, axis=-1, keepdims=True)
        valid = valid_rows(inputs[0])
        if valid is not None:  # padding steps: no sqrt(0), whose gradient is NaN
            squared = jnp.where(valid, squared, 1.0)
            return with_data(inputs[0], jnp.where(valid, jnp.sqrt(squared), 0.0))
        return jnp.sqrt(squared)


register_kind(DotProdKind())
register_kind(L2DistanceKind())


@base.layer_function
def dot_prod(
    input1: Layer, input2: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None
) -> Layer:
    """The dot product of two vectors, row by row: ``y = sum_j a_j b_j``.

    Args:
        input1, input2: dense layers of equal size (and sequence level).
        name: the layer name (default ``__dot_prod_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size 1; no parameters.

    Example:
        >>> d = paddle.layer.dot_prod(input1=x, input2=y)
        >>> d.size
        1
    """
    args = ("input1", "input2")
    return _pair("dot_prod", "dot_prod_layer", input1, input2, args, name, layer_attr)


@base.layer_function
def l2_distance(
    x: Layer, y: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None
) -> Layer:
    """The Euclidean distance of two vectors, row by row: ``sqrt(sum_j (x_j - y_j)^2)``.

    As in v2 the gradient of a zero distance is NaN (``(x - y) / 0``).

    Args:
        x, y: dense layers of equal size (and sequence level).
        name: the layer name (default ``__l2_distance_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size 1; no parameters.

    Example:
        >>> dist = paddle.layer.l2_distance(x=x, y=y)
        >>> dist.size
        1
    """
    args = ("x", "y")
    return _pair("l2_distance", "l2_distance_layer", x, y, args, name, layer_attr)


# out_prod ----------------------------------------------------------------------------
class OutProdKind(Kind):
    name = "out_prod"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        a, b = inputs
        return Spec(a.size * b.size, seq_level=base.same_seq_level(inputs, "the two inputs"))

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = (data_of(x) for x in inputs)
        outer = a[..., :, None] * b[..., None, :]
        return with_data(inputs[0], outer.reshape(*outer.shape[:-2], -1))


register_kind(OutProdKind())


@base.layer_function
def out_prod(
    input1: Layer, input2: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None
) -> Layer:
    """The outer product of two vectors, row by row, flattened row-major:
    ``y[i * N + j] = a_i b_j`` for ``a`` of size M and ``b`` of size N.

    Args:
        input1: a dense layer of size M.
        input2: a dense layer of size N.
        name: the layer name (default ``__out_prod_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``M * N``; no parameters.

    Example:
        >>> op = paddle.layer.out_prod(input1=x, input2=y)
        >>> op.size
        64
    """
    args = ("input1", "input2")
    return _pair("out_prod", "out_prod_layer", input1, input2, args, name, layer_attr)
