"""Core layers: data, fc, embedding, concat, addto, dropout."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Linear, Tanh, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.data_types import DataType, InputType
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
from paddle_lite._src.layers import base, mixed
from paddle_lite._src.layers.projections import Projection, project
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data

_DTYPES = {
    DataType.Dense: "float32",
    DataType.Index: "int32",
    DataType.SparseNonValue: "sparse_binary",
    DataType.SparseValue: "sparse_float",
}


# data ------------------------------------------------------------------------------
class DataKind(Kind):
    name = "data"

    def infer_spec(self, inputs, attrs):
        tp: InputType = attrs["type"]
        image = None
        h, w, depth = attrs.get("height"), attrs.get("width"), attrs.get("depth") or 1
        if h and w:
            if tp.dim % (h * w * depth):
                raise LayerConfigError(
                    f"dim {tp.dim} is not divisible by height*width*depth = {h * w * depth}."
                )
            image = (tp.dim // (h * w * depth) * depth, h, w)
        return Spec(tp.dim, _DTYPES[tp.type], int(tp.seq_type), image)

    def apply(self, params, inputs, attrs, *, key, mode):
        raise LayerConfigError("data layers are fed, not computed.")


register_kind(DataKind())


@base.layer_function
def data(
    name: str,
    type: InputType,
    height: int | None = None,
    width: int | None = None,
    depth: int | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A data layer: where one field of each sample enters the network.

    Args:
        name: the layer name, used by ``feeding``.
        type: a ``paddle.data_type`` InputType; the layer size is ``type.dim``.
        height, width, depth: image geometry of a dense input (channels inferred).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of size ``type.dim``.

    Example:
        >>> x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    """
    if not isinstance(name, str) or not name:
        raise LayerTypeError(f"data(): name must be a non-empty str; received {name!r}.")
    if not isinstance(type, InputType):
        raise LayerTypeError(
            f"layer '{name}': type must be a paddle.data_type InputType such as "
            f"dense_vector(784); received {type!r}."
        )
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    attrs = {"type": type, "height": height, "width": width, "depth": depth}
    return base.build("data", name=name, inputs=(), attrs=attrs)


# fc --------------------------------------------------------------------------------
class FcKind(Kind):
    name = "fc"
    aligns_rows = True
    keeps_lengths = True

    def infer_spec(self, inputs, attrs):
        base.expect(inputs, "input", "values")
        return Spec(attrs["size"], seq_level=base.rows_seq_level(inputs, "fc inputs"))

    def param_specs(self, inputs, attrs):
        decls = [
            ParamDecl(f"w{i}", (s.size, attrs["size"]), ("param", i), attrs_mod.SMART)
            for i, s in enumerate(inputs)
        ]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, attrs["size"]), ("bias",), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        out = sum(project(x, params[f"w{i}"]) for i, x in enumerate(inputs))
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)  # the inputs share one sequence level


register_kind(FcKind())


@base.layer_function
def fc(
    input: Layer | Sequence[Layer],
    size: int,
    act: BaseActivation | None = None,
    name: str | None = None,
    param_attr: ParamAttr | Sequence[ParamAttr] | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
    parameter_name: str | None = None,
) -> Layer:
    """Fully connected: ``act(sum_i x_i W_i + b)``; a list input has one weight per input.

    Args:
        input: a layer or a list of layers (dense, sparse, or sequences of them).
        size: output width.
        act: activation (default ``Tanh``).
        name: the layer name (default ``__fc_layer_<n>__``).
        param_attr: a ``Param`` or a list of them, one per input.
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        parameter_name: name the weight(s) ``P`` (``P.w0``, ``P.w1`` ... for several
            inputs) and the bias ``P.wbias``.

    Returns:
        A layer of size ``size``; weights ``[in_i, size]``, bias ``[1, size]``.

    Example:
        >>> y = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    """
    name = base.layer_name(name, "fc_layer")
    inputs = base.as_layers(input, layer=name)
    size = base.positive_int(size, layer=name, arg="size")
    attrs = {
        "size": size,
        "act": as_activation(Tanh() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build(
        "fc",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, len(inputs), layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
        parameter_name=parameter_name,
    )


# embedding -------------------------------------------------------------------------
class EmbeddingKind(Kind):
    name = "embedding"
    keeps_lengths = True

    def infer_spec(self, inputs, attrs):
        (s,) = inputs
        if s.dtype != "int32":  # v2 built its table projection and failed when it ran
            base.cannot_run(
                f"input must hold integer ids (paddle.data_type.integer_value...); received "
                f"{s.dtype} values. v2 built such a layer without complaint and failed when "
                "it ran (its table lookup reads ids). Fix: declare the input as "
                f"paddle.data_type.integer_value({s.size}) or an integer_value_sequence."
            )
        return Spec(attrs["size"], seq_level=s.seq_level)

    def param_specs(self, inputs, attrs):
        return [ParamDecl("w0", (inputs[0].size, attrs["size"]), ("param", 0), attrs_mod.SMART)]

    def apply(self, params, inputs, attrs, *, key, mode):
        (ids,) = inputs
        return with_data(ids, params["w0"][data_of(ids)])


register_kind(EmbeddingKind())


@base.layer_function
def embedding(
    input: Layer,
    size: int,
    name: str | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
    parameter_name: str | None = None,
) -> Layer:
    """Look up a learned vector for each id: ``out = W[id]``.

    ``W`` is a ``[vocab, size]`` table with ``vocab = input.size`` (the range of the
    ids); every id, or every step of an id sequence, picks its row.

    Args:
        input: an integer-id layer (``integer_value`` or ``integer_value_sequence``).
        size: the width of each vector.
        name: the layer name (default ``__embedding_<n>__``).
        param_attr: a ``Param`` for the table; name it to share the table (with
            another embedding, or with ``GeneratedInput(embedding_name=...)``).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        parameter_name: the table's name (default ``_<name>.w0``).

    Returns:
        A layer of size ``size`` (a sequence when the ids are a sequence); table
        ``[input.size, size]``.

    Example:
        >>> emb = paddle.layer.embedding(input=word, size=32)
        >>> emb.size
        32
    """
    name = base.layer_name(name, "embedding")
    (inp,) = base.as_layers(input, layer=name)
    attrs = {
        "size": base.positive_int(size, layer=name, arg="size"),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build(
        "embedding",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        parameter_name=parameter_name,
    )


# concat / addto / dropout ----------------------------------------------------------
class ConcatKind(Kind):
    name = "concat"
    aligns_rows = True
    keeps_lengths = True

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        level = base.same_seq_level(inputs, "concat inputs")
        size = sum(s.size for s in inputs)
        images = [s.image for s in inputs]
        image = None
        if all(images) and len({im[1:] for im in images}) == 1:
            image = (sum(im[0] for im in images), *images[0][1:])
        return Spec(size, seq_level=level, image=image)

    def apply(self, params, inputs, attrs, *, key, mode):
        out = jnp.concatenate([data_of(x) for x in inputs], axis=-1)
        return with_data(inputs[0], out)


register_kind(ConcatKind())


@base.layer_function
def concat(
    input: Sequence[Layer] | Sequence[Projection],
    act: BaseActivation | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
) -> Layer:
    """Concatenate features side by side: ``act([x_1, x_2, ..., x_n])``.

    The inputs are all layers, or all projections (v2's concat of projections:
    ``act([p_1(x_1), ..., p_n(x_n)] + b)``, each projection with its own width and
    weight). Images of equal height and width concatenate along their channels.

    Args:
        input: a list of layers (dense, of one sequence level), or a list of
            projections, each with its width set (``size=`` where it has one).
        act: activation (default ``Linear``; v2's ``Identity``).
        name: the layer name (default ``__concat_<n>__``).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        bias_attr: projections only: ``True`` or a ``Param`` adds a bias of the output
            size; ``None``/``False`` (default) none. Layers take no bias.

    Returns:
        A layer whose size is the sum of the input (or projection) sizes; an image
        ``(sum of channels, H, W)`` when the inputs are images of one ``H, W``.
        Projection ``i`` owns ``_<name>.w{i}``, the bias is ``_<name>.wbias``.

    Example:
        >>> xy = paddle.layer.concat(input=[x, y])
        >>> xy.size
        16
        >>> both = paddle.layer.concat(input=[
        ...     paddle.layer.full_matrix_projection(input=x, size=4),
        ...     paddle.layer.identity_projection(input=y)], bias_attr=True)
        >>> both.size
        12
    """
    name = base.layer_name(name, "concat")
    items = input if isinstance(input, (list, tuple)) else [input]
    if items and all(_is_projection(item) for item in items):
        return mixed.concat_projections(
            list(items), name=name, act=act, layer_attr=layer_attr, bias_attr=bias_attr
        )
    inputs = base.as_layers(input, layer=name)
    if bias_attr not in (None, False):
        raise LayerConfigError(f"layer '{name}': concat of layers takes no bias_attr.")
    attrs = {
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build("concat", name=name, inputs=inputs, attrs=attrs)


def _is_projection(item: Any) -> bool:
    return hasattr(item, "to_attr") and hasattr(item, "param_attr")


class AddtoKind(Kind):
    name = "addto"
    aligns_rows = True
    keeps_lengths = True

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        sizes = [s.size for s in inputs]
        if len(set(sizes)) > 1:
            raise LayerConfigError(f"all inputs must have the same size; received sizes {sizes}.")
        return Spec(
            sizes[0], seq_level=base.same_seq_level(inputs, "addto inputs"), image=inputs[0].image
        )

    def param_specs(self, inputs, attrs):
        if not attrs["bias"]:
            return []
        return [ParamDecl("wbias", (1, inputs[0].size), ("bias",), attrs_mod.SMART)]

    def channels_last(self, attrs, input_is_channels_last):
        return input_is_channels_last and not attrs["bias"]  # a residual sum of a chain

    def apply(self, params, inputs, attrs, *, key, mode):
        if isinstance(inputs[0], ChannelsLast):
            return ChannelsLast(sum(x.data for x in inputs))
        out = sum(data_of(x) for x in inputs)
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)


register_kind(AddtoKind())


@base.layer_function
def addto(
    input: Layer | Sequence[Layer],
    act: BaseActivation | None = None,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Sum layers of equal size: ``act(sum_i x_i + b)``, with no weights.

    Args:
        input: a layer or a list of dense layers of one size and sequence level.
        act: activation (default ``Linear``).
        name: the layer name (default ``__addto_<n>__``).
        bias_attr: ``False``/``None`` (default) no bias; ``True`` or a ``Param`` adds
            ``b`` (``[1, size]``).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of the common input size (the first input's image, if any).

    Example:
        >>> s = paddle.layer.addto(input=[x, y], act=paddle.activation.Relu(), bias_attr=True)
        >>> s.size
        8
    """
    name = base.layer_name(name, "addto")
    inputs = base.as_layers(input, layer=name)
    attrs = {
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    bias = attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name)
    return base.build("addto", name=name, inputs=inputs, attrs=attrs, bias=bias)


@base.layer_function
def dropout(input: Layer, dropout_rate: float, name: str | None = None) -> Layer:
    """Dropout, not inverted (v2's): random zeros in training, a fixed scale in test.

    Training: ``out_j = m_j x_j`` with ``m_j ~ Bernoulli(1 - rate)``; test:
    ``out = (1 - rate) x``. It is an ``addto`` of one input with
    ``Extra(drop_rate=dropout_rate)`` (no bias, linear activation), as in v2.

    Args:
        input: a dense layer.
        dropout_rate: the probability ``rate`` of zeroing each value.
        name: the layer name (default ``__dropout_<n>__``).

    Returns:
        A layer of the input's size.

    Example:
        >>> h = paddle.layer.dropout(input=x, dropout_rate=0.5)
        >>> h.size
        8
    """
    name = base.layer_name(name, "dropout")
    rate = base.number(dropout_rate, layer=name, arg="dropout_rate")
    return addto(
        input=input, act=Linear(), name=name, layer_attr=attrs_mod.ExtraAttr(drop_rate=rate)
    )
