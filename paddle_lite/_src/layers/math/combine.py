"""Layers that combine two inputs: conv_shift (circular convolution), linear_comb
(a weighted sum of vectors) and tensor (a bilinear form per output)."""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Linear, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import BiasAttr, HostChecks, Kind, ParamAttrAt, ParamDecl, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


def _row_pair(inputs, what: str) -> int:
    """Both inputs dense, of one sequence level, which the output keeps: v2 computes these
    row by row (a sequence's steps are its rows) and takes input 0's sequence info."""
    base.expect(inputs, "input")
    return base.same_seq_level(inputs, what)


# conv_shift -------------------------------------------------------------------------
class ConvShiftKind(Kind):
    name = "conv_shift"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        level = _row_pair(inputs, "a and b")
        a, b = inputs
        if b.size % 2 == 0:
            raise LayerConfigError(
                f"b must have an odd size (shifts -(N-1)/2 .. (N-1)/2); received b.size {b.size}."
            )
        return Spec(a.size, seq_level=level)

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = data_of(inputs[0]), data_of(inputs[1])
        m, n = a.shape[-1], b.shape[-1]
        # c[i] = sum_j a[(i + j - (n-1)/2) mod m] * b[j]
        idx = (jnp.arange(m)[:, None] + jnp.arange(n)[None, :] - (n - 1) // 2) % m
        return with_data(inputs[0], jnp.einsum("...mn,...n->...m", a[..., idx], b))


register_kind(ConvShiftKind())


@base.layer_function
def conv_shift(
    a: Layer, b: Layer, name: str | None = None, layer_attr: ExtraAttr | None = None
) -> Layer:
    """Circular convolution of ``a`` (size M) with ``b`` (odd size N), row by row.

    ``c[i] = sum_{j=0}^{N-1} a[(i + j - (N-1)/2) mod M] * b[j]``: ``b[(N-1)/2]``
    weighs the unshifted ``a`` (v2's Neural Turing Machine shift).

    Args:
        a: a dense layer of size M (or a sequence: each step is a row).
        b: a dense layer of odd size N (the shift weights), of ``a``'s sequence level.
        name: the layer name (default ``__conv_shift_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size M; no parameters.

    Example:
        >>> shift = paddle.layer.fc(input=y, size=3, act=paddle.activation.Softmax())
        >>> shifted = paddle.layer.conv_shift(a=x, b=shift)
        >>> shifted.size
        8
    """
    name = base.layer_name(name, "conv_shift_layer")
    inputs = [base.as_layer(a, layer=name, arg="a"), base.as_layer(b, layer=name, arg="b")]
    attrs = base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    return base.build("conv_shift", name=name, inputs=inputs, attrs=attrs)


# linear_comb ------------------------------------------------------------------------
class LinearCombKind(Kind):
    name = "convex_comb"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        level = _row_pair(inputs, "weights and vectors")
        weights, vectors = inputs
        if weights.size * attrs["size"] != vectors.size:
            raise LayerConfigError(
                f"vectors must have size weights.size * size = {weights.size} * "
                f"{attrs['size']} = {weights.size * attrs['size']}; received {vectors.size}."
            )
        return Spec(attrs["size"], seq_level=level)

    def apply(self, params, inputs, attrs, *, key, mode):
        x, y = data_of(inputs[0]), data_of(inputs[1])
        y = y.reshape(*y.shape[:-1], x.shape[-1], attrs["size"])
        return with_data(inputs[0], jnp.einsum("...m,...mn->...n", x, y))


register_kind(LinearCombKind())


@base.layer_function
def linear_comb(
    weights: Layer,
    vectors: Layer,
    size: int | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A weighted sum of vectors: ``z = xᵀ Y``, i.e. ``z[i] = sum_j x[j] * y[i + N*j]``.

    Alias ``convex_comb``. ``vectors`` holds M vectors of size N one after the other.

    Args:
        weights: a dense layer of size M (``x``).
        vectors: a dense layer of size M*N (``y``), of ``weights``' sequence level (a
            sequence: each step is a row, as in v2).
        size: N; default ``vectors.size / weights.size``.
        name: the layer name (default ``__linear_comb_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size N; no parameters.

    Example:
        >>> values = paddle.layer.fc(input=y, size=10 * 4, act=paddle.activation.Linear())
        >>> z = paddle.layer.linear_comb(weights=prob, vectors=values, size=4)
        >>> z.size
        4
    """
    name = base.layer_name(name, "linear_comb_layer")
    w = base.as_layer(weights, layer=name, arg="weights")
    v = base.as_layer(vectors, layer=name, arg="vectors")
    if size is None:
        if v.size % w.size:
            raise LayerConfigError(
                f"layer '{name}': vectors.size {v.size} is not a multiple of weights.size "
                f"{w.size}; expected M*N values for M weights."
            )
        size = v.size // w.size
    attrs = {
        "size": base.positive_int(size, layer=name, arg="size"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("convex_comb", name=name, inputs=[w, v], attrs=attrs)


convex_comb = linear_comb


# tensor -----------------------------------------------------------------------------
class TensorKind(Kind):
    name = "tensor"
    host = HostChecks(aligns_rows=True)

    def infer_spec(self, inputs, attrs):
        return Spec(attrs["size"], seq_level=_row_pair(inputs, "a and b"))

    def param_specs(self, inputs, attrs):
        a, b = inputs
        decls = [ParamDecl("w0", (a.size, b.size, attrs["size"]), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, attrs["size"]), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        a, b = data_of(inputs[0]), data_of(inputs[1])
        # v2 keeps W_k as the k-th [a.size, b.size] block of the buffer whose dims are
        # declared [a.size, b.size, size]: reshape, do not transpose.
        w = params["w0"].reshape(attrs["size"], a.shape[-1], b.shape[-1])
        out = jnp.einsum("...i,kij,...j->...k", a, w, b)
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)


register_kind(TensorKind())


@base.layer_function
def tensor(
    a: Layer,
    b: Layer,
    size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A bilinear form per output: ``y_k = act(a W_k bᵀ + b_k)``, ``k = 0 .. size-1``.

    Args:
        a: a dense layer of size M (a sequence: each step is a row, as in v2).
        b: a dense layer of size N, of ``a``'s sequence level.
        size: the number of outputs K.
        act: activation (default ``Linear``).
        name: the layer name (default ``__tensor_layer_<n>__``).
        param_attr: for ``W``.
        bias_attr: ``None``/``True`` zero bias, ``False`` none.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of size K. ``W`` has v2's dims ``[M, N, K]`` over v2's buffer, in which
        ``W_k`` is the k-th ``[M, N]`` block (so ``W_k = w.reshape(K, M, N)[k]``); its
        default init is v2's N(0, 1/sqrt(M)). Bias ``[1, K]``.

    Example:
        >>> user = paddle.layer.fc(input=x, size=6)
        >>> t = paddle.layer.tensor(a=user, b=y, size=4)
        >>> t.size
        4
    """
    name = base.layer_name(name, "tensor_layer")
    inputs = [base.as_layer(a, layer=name, arg="a"), base.as_layer(b, layer=name, arg="b")]
    attrs = {
        "size": base.positive_int(size, layer=name, arg="size"),
        "act": as_activation(Linear() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build(
        "tensor",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )
