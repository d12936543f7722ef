"""``embedding``: a learned vector for each id, ``out = W[id]``."""

from __future__ import annotations

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, ParamAttrAt, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


class EmbeddingKind(Kind):
    name = "embedding"
    per_row = True
    host = HostChecks(keeps_lengths=True)
    v2 = V2Layer(type="mixed")  # v2's embedding is a mixed layer of one table projection

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
        return [ParamDecl("w0", (inputs[0].size, attrs["size"]), ParamAttrAt(0), attrs_mod.SMART)]

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
