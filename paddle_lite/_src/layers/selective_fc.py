"""selective_fc: a fully connected layer that computes only the output columns a
``select`` input names (v2's SelectiveFullyConnectedLayer), with its weight stored
transposed (``[size, input.size]``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import (
    BaseActivation,
    Softmax,
    Tanh,
    as_activation,
    floored_softmax,
)
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.projections import project
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Sparse, data_of, with_data


def _selected(select: Any, size: int) -> Any:
    """Bool ``[..., size]``: the columns the select value names (its non-zero entries)."""
    value = data_of(select)
    if isinstance(value, Sparse):
        hits = jax.nn.one_hot(value.ids, size, dtype=jnp.bool_) & (value.values != 0)[..., None]
        return jnp.any(hits, axis=-2)
    return value != 0


def _masked_activation(act: Any, z: Any, mask: Any) -> Any:
    """``act`` over the selected values only; unselected columns hold 0 (v2 stores only
    the selected values, so a softmax normalises over them alone)."""
    if isinstance(act, Softmax):
        return jnp.where(mask, floored_softmax(z, mask=mask), 0.0)
    return jnp.where(mask, act.apply(z), 0.0)


class SelectiveFcKind(Kind):
    name = "selective_fc"
    host = HostChecks(keeps_lengths=True, aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        n = attrs["n_weighted"]
        base.expect(inputs[:n], "input", "values")
        level = base.same_seq_level(inputs, "selective_fc inputs")
        if n < len(inputs):
            base.expect(inputs[n], "select", "values", size=attrs["size"], why=" (= size)")
        return Spec(attrs["size"], seq_level=level)

    def param_specs(self, inputs, attrs):
        size = attrs["size"]
        decls = [  # v2 keeps the weight transposed: [size, input.size]
            ParamDecl(f"w{i}", (size, s.size), ParamAttrAt(i), attrs_mod.SMART)
            for i, s in enumerate(inputs[: attrs["n_weighted"]])
        ]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, size), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        n = attrs["n_weighted"]
        z = sum(project(x, params[f"w{i}"].T) for i, x in enumerate(inputs[:n]))
        if attrs["bias"]:
            z = z + params["wbias"][0]
        if n < len(inputs):  # the activation is applied here, over the selection
            z = _masked_activation(attrs["cell_act"], z, _selected(inputs[n], attrs["size"]))
        return with_data(inputs[0], z)  # the inputs share one sequence level


register_kind(SelectiveFcKind())


def _select_layer(select: Any, has_selected_colums: Any, name: str) -> tuple[list, bool]:
    if select is None:
        return [], False
    return [base.as_layer(select, layer=name, arg="select")], bool(has_selected_colums)


@base.layer_function
def selective_fc(
    input: Layer | Sequence[Layer],
    size: int,
    select: Layer | None = None,
    act: BaseActivation | None = None,
    name: str | None = None,
    pass_generation: bool = False,
    has_selected_colums: bool = True,
    mul_ratio: float = 0.02,
    param_attr: ParamAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A fully connected layer computing only selected output columns:
    ``y = act(sum_i x_i W_iᵀ + b)`` on the columns ``select`` names, 0 elsewhere.

    ``select`` is a ``sparse_binary_vector(size)`` (or any layer of width ``size``; its
    non-zero entries select). v2 keeps only the selected values of each row; here the
    row keeps its full width ``size`` with the unselected columns at 0, and the
    activation runs over the selected values alone (a ``Softmax`` normalises over
    them). Without ``select`` (or with ``has_selected_colums=False``, when ``select``
    is one more weighted input, as in v2) it is an fc. ``W_i`` is stored transposed,
    ``[size, input_i.size]``, as v2 stores it. ``pass_generation`` and ``mul_ratio``
    only chose v2's sparse storage and multiplication method; they are kept, and the
    values do not depend on them.

    Args:
        input: a layer or a list of layers (dense or sparse).
        size: output width.
        select: the columns to compute (see above), or None.
        act: activation (default ``Tanh``).
        name: the layer name (default ``__selective_fc_layer_<n>__``).
        pass_generation, has_selected_colums, mul_ratio: v2's flags (see above).
        param_attr: a ``Param`` or a list of them, one per input.
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of size ``size``; weights ``[size, in_i]``, bias ``[1, size]``.

    Example:
        >>> cols = paddle.layer.data(name="cols", type=paddle.data_type.sparse_binary_vector(10))
        >>> sel = paddle.layer.selective_fc(input=x, size=10, select=cols,
        ...                                 act=paddle.activation.Softmax())
        >>> [p.shape for p in sel.params]
        [(10, 8), (1, 10)]
    """
    name = base.layer_name(name, "selective_fc_layer")
    inputs = base.as_layers(input, layer=name)
    extra, selecting = _select_layer(select, has_selected_colums, name)
    n_weighted = len(inputs) + (0 if selecting else len(extra))
    act = as_activation(Tanh() if act is None else act, layer=name)
    attrs = {
        "size": base.positive_int(size, layer=name, arg="size"),
        "n_weighted": n_weighted,
        "pass_generation": bool(pass_generation),
        "has_selected_colums": selecting,
        "mul_ratio": base.number(mul_ratio, layer=name, arg="mul_ratio"),
        ("cell_act" if selecting else "act"): act,
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    param_attrs = base.param_attr_list(param_attr, len(inputs), layer=name)
    if not selecting and extra:
        param_attrs.append(attrs_mod.ParamAttr())
    return base.build(
        "selective_fc",
        name=name,
        inputs=[*inputs, *extra],
        attrs=attrs,
        param_attrs=param_attrs,
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )
