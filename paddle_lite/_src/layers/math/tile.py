"""Math layers that rearrange values: ``trans`` (a batch's matrix transposed) and
``repeat`` (each row tiled)."""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src import activations as acts
from paddle_lite._src.activations import BaseActivation
from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.math.basic import device_only, single_input
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


class TransKind(Kind):
    name = "trans"

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        if inputs[0].seq_level:
            raise LayerConfigError("trans needs a plain (non-sequence) input.")
        return Spec(inputs[0].size)

    def apply(self, params, inputs, attrs, *, key, mode):
        return jnp.transpose(inputs[0])


class RepeatKind(Kind):
    name = "featmap_expand"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        return Spec(inputs[0].size * attrs["num_repeats"], seq_level=inputs[0].seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        x, n = data_of(inputs[0]), attrs["num_repeats"]
        out = jnp.tile(x, n) if attrs["as_row_vector"] else jnp.repeat(x, n, axis=-1)
        return with_data(inputs[0], out)


register_kind(TransKind())
register_kind(RepeatKind())


@base.layer_function
def trans(input: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None) -> Layer:
    """Transpose the minibatch matrix: ``[batch, N] -> [N, batch]``.

    The declared size is ``N`` (v2); the output has ``batch`` columns, so the value
    matches the declared size only when the batch size equals ``N``.

    Args:
        input: a dense, non-sequence layer.
        name: the layer name (default ``__trans_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of declared size ``input.size``.

    Example:
        >>> t = paddle.layer.trans(input=x)
    """
    return single_input("trans", "trans_layer", input, name, layer_attr)


@base.layer_function
def repeat(
    input: Layer,
    num_repeats: int,
    as_row_vector: bool = True,
    act: BaseActivation | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Repeat each row ``num_repeats`` times: ``[x, x, ..., x]`` (row vector), or
    each element in turn ``[x1, x1, ..., x2, x2, ...]`` when ``as_row_vector=False``.

    Args:
        input: a dense layer.
        num_repeats: how many times, a positive int.
        as_row_vector: repeat the whole row (``[x, x, ...]``); ``False`` repeats each
            value in place (``[x1, x1, ..., x2, x2, ...]``).
        act: activation (default ``Linear``).
        name: the layer name (default ``__repeat_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``input.size * num_repeats``.

    Example:
        >>> y = paddle.layer.repeat(input=x, num_repeats=4)
    """
    name = base.layer_name(name, "repeat_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "num_repeats": base.positive_int(num_repeats, layer=name, arg="num_repeats"),
        "as_row_vector": bool(as_row_vector),
        "act": acts.as_activation(act, layer=name),
        **device_only(layer_attr, name),
    }
    return base.build("featmap_expand", name=name, inputs=[inp], attrs=attrs)
