"""Linear-chain CRF layers: the ``crf`` cost and ``crf_decoding`` (Viterbi).

Both layers read one transition parameter of shape ``[size + 2, size]``: row 0 holds
the start weights ``a``, row 1 the end weights ``b`` and rows ``2..`` the matrix
``w`` (``w[i, j]`` scores tag ``i`` followed by tag ``j``). Naming it with
``param_attr=paddle.attr.Param(name=...)`` shares it between the cost and the decoder.
The input ``x`` is a sequence of unnormalised emission scores (a linear activation).
A tag path ``y`` of a length-``L`` sequence scores

$$
s(y) = a_{y_0} + x_{0, y_0} + \\sum_{t=1}^{L-1} (w_{y_{t-1}, y_t} + x_{t, y_t})
+ b_{y_{L-1}}
$$

The forward algorithm (a ``lax.scan`` in log space) gives ``log Z = logsumexp_y s(y)``;
Viterbi (a max-scan plus a backtrace scan) gives ``argmax_y s(y)``, ties going to the
lower tag as in v2. Padding steps are replaced by zeros before any arithmetic, so
garbage there changes neither values nor gradients.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, ParamAttrAt, ParamDecl, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import CostChecks, CostKind, per_sample, v2_note
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, step_mask


# the model -------------------------------------------------------------------------
def split_transitions(param: Any) -> tuple[Any, Any, Any]:
    """``(a, b, w)``: start ``[N]``, end ``[N]`` and transition ``[N, N]`` weights."""
    return param[0], param[1], param[2:]


def _clean(seq: Seq) -> tuple[Any, Any]:
    """``(x, mask)``: the emissions with zeros in the padding, and the step mask."""
    mask = step_mask(seq)
    return jnp.where(mask[..., None], seq.data, 0.0), mask


def _time_major(x: Any, mask: Any) -> tuple[Any, Any]:
    """Steps ``1..T-1`` of ``x`` and ``mask`` with time first, for ``lax.scan``."""
    return jnp.swapaxes(x[:, 1:], 0, 1), jnp.swapaxes(mask[:, 1:], 0, 1)


def log_partition(x: Any, mask: Any, param: Any) -> Any:
    """``log Z`` per sequence, ``[B]``, by the forward algorithm in log space."""
    a, b, w = split_transitions(param)

    def step(alpha, inp):
        x_t, m_t = inp
        new = jax.nn.logsumexp(alpha[:, :, None] + w[None], axis=1) + x_t
        return jnp.where(m_t[:, None], new, alpha), None

    alpha, _ = lax.scan(step, a[None] + x[:, 0], _time_major(x, mask))
    return jax.nn.logsumexp(alpha + b[None], axis=-1)


def path_score(x: Any, tags: Any, lengths: Any, mask: Any, param: Any) -> Any:
    """``s(y)`` per sequence, ``[B]``, for the tag paths ``tags`` ``[B, T]``."""
    a, b, w = split_transitions(param)
    tags = jnp.where(mask, jnp.clip(tags, 0, w.shape[0] - 1), 0)
    emit = jnp.take_along_axis(x, tags[..., None], axis=-1)[..., 0]
    trans = jnp.where(mask[:, 1:], w[tags[:, :-1], tags[:, 1:]], 0.0)
    last = jnp.take_along_axis(tags, jnp.maximum(lengths - 1, 0)[:, None], axis=1)[:, 0]
    return emit.sum(axis=1) + trans.sum(axis=1) + a[tags[:, 0]] + b[last]


def viterbi(x: Any, mask: Any, param: Any) -> Any:
    """The best tag path per sequence, int32 ``[B, T]`` (0 in the padding)."""
    a, b, w = split_transitions(param)
    identity = jnp.arange(w.shape[0], dtype=jnp.int32)[None]

    def forward(alpha, inp):
        x_t, m_t = inp
        scores = alpha[:, :, None] + w[None]
        best = jnp.argmax(scores, axis=1).astype(jnp.int32)
        new = jnp.max(scores, axis=1) + x_t
        keep = m_t[:, None]
        return jnp.where(keep, new, alpha), jnp.where(keep, best, identity)

    alpha, back = lax.scan(forward, a[None] + x[:, 0], _time_major(x, mask))
    last = jnp.argmax(alpha + b[None], axis=-1).astype(jnp.int32)

    def backtrace(tag, back_t):
        return jnp.take_along_axis(back_t, tag[:, None], axis=1)[:, 0], tag

    first, later = lax.scan(backtrace, last, back, reverse=True)
    tags = jnp.concatenate([first[:, None], jnp.swapaxes(later, 0, 1)], axis=1)
    return jnp.where(mask, tags, 0)


# checks ----------------------------------------------------------------------------
def _check_emissions(spec: Spec, size: int) -> None:
    base.expect(spec, "input")
    with v2_note(
        "a CRF needs the sequence boundaries, which a plain input does not carry",
        "declare the input and label as sequences (dense_vector_sequence / "
        "integer_value_sequence); one-step sequences tag single samples",
    ):
        if spec.seq_level != 1:
            raise LayerConfigError(
                f"input has seq_level {spec.seq_level}; expected 1 (a sequence of emission "
                "scores, e.g. paddle.data_type.dense_vector_sequence)."
            )
    with v2_note(
        "its transition matrix is [size + 2, size] while the input has another width",
        "give size = the input's size (the number of tags), or leave size unset",
    ):
        if spec.size != size:
            raise LayerConfigError(
                f"input has size {spec.size}; expected size = {size} (the number of tags)."
            )
    if size < 2:
        raise LayerConfigError(f"size is {size}; a CRF needs at least 2 tags.")


def _check_tags(spec: Spec, arg: str, size: int | None = None) -> None:
    with v2_note(
        "a CRF reads tag ids",
        f"declare the {arg} as paddle.data_type.integer_value_sequence({size or spec.size})",
    ):
        base.expect(spec, arg, "ids")
    if size is not None and spec.dtype == "int32" and spec.size > size:
        base.suspicious(
            f"{arg} is an integer_value_sequence({spec.size}) but the CRF has {size} tags; "
            f"expected {size} (v2 built and ran such a layer; ids >= {size} are no tag)."
        )
    with v2_note(
        "a CRF reads one tag id per step of a sequence",
        f"declare the {arg} as paddle.data_type.integer_value_sequence",
    ):
        if spec.seq_level != 1:
            raise LayerConfigError(
                f"{arg} has seq_level {spec.seq_level}; expected 1 (one tag id per step, "
                "paddle.data_type.integer_value_sequence)."
            )


def _transition_decl(size: int) -> list[ParamDecl]:
    return [ParamDecl("w0", (size + 2, size), ParamAttrAt(0), attrs_mod.SMART)]


def _optional_size(size: Any, input_layer: Any, *, layer: str) -> int:
    if size is None:
        return input_layer.spec.size
    return base.positive_int(size, layer=layer, arg="size")


def _tag_ids(position: int, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> int | None:
    """The label (input 1) holds tag ids below the CRF's ``size``."""
    return attrs["size"] if position == 1 else None


# crf -------------------------------------------------------------------------------
class CrfKind(CostKind):
    name = "crf"

    host = CostChecks(needs_a_step=True, id_bounds=_tag_ids)
    v2 = V2Layer(size=lambda n: n.attrs["size"])  # v2 writes the number of tags

    def check(self, specs, attrs):
        _check_emissions(specs["input"], attrs["size"])
        _check_tags(specs["label"], "label", attrs["size"])

    def infer_spec(self, inputs, attrs):
        spec = super().infer_spec(inputs, attrs)
        if attrs["weighted"] and inputs[2].seq_level != 0:
            raise LayerConfigError(
                f"weight has seq_level {inputs[2].seq_level}; expected 0 (one weight per sequence)."
            )
        return spec

    def param_specs(self, inputs, attrs):
        return _transition_decl(attrs["size"])

    def apply(self, params, inputs, attrs, *, key, mode):
        emissions, label = inputs[0], inputs[1]
        x, mask = _clean(emissions)
        lengths = emissions.lengths
        if x.shape[1] == 0:
            return per_sample(jnp.zeros(lengths.shape), None, None, 1.0)
        cost = log_partition(x, mask, params["w0"]) - path_score(
            x, label.data, lengths, mask, params["w0"]
        )
        cost = jnp.where(lengths > 0, cost, 0.0)
        weight = inputs[2] if attrs["weighted"] else None
        return per_sample(cost, cost, weight, attrs["coeff"])


register_kind(CrfKind())


@base.layer_function
def crf(
    input: Layer,
    label: Layer,
    size: int | None = None,
    weight: Layer | None = None,
    param_attr: ParamAttr | None = None,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Linear-chain CRF cost: the negative log-likelihood of the label path.

    A tag path ``y`` of a length-``L`` sequence of emissions ``x`` scores

    $$
    s(y) = a_{y_0} + x_{0, y_0} + \\sum_{t=1}^{L-1} (w_{y_{t-1}, y_t} + x_{t, y_t})
    + b_{y_{L-1}}
    $$

    with start weights ``a`` (row 0 of the transition parameter), end weights ``b``
    (row 1) and transitions ``w`` (rows ``2..``: ``w[i, j]`` scores tag ``i`` followed
    by tag ``j``). The cost of a sequence is

    $$
    cost = \\log Z - s(y), \\quad \\log Z = \\log \\sum_{y'} \\exp s(y')
    $$

    times the optional ``weight``; a length-0 sequence costs 0. As in v2, ``coeff``
    scales only the gradient. Label ids outside ``[0, size)`` are clipped into it (v2
    stopped with a check failure).

    Args:
        input: a dense sequence of emission scores of size ``size`` (linear activation).
        label: an integer sequence of tag ids (``integer_value_sequence(size)``).
        size: the number of tags (default ``input.size``; must equal it).
        weight: an optional size-1 layer, one weight per sequence.
        param_attr: a ``Param`` for the ``[size + 2, size]`` transitions (default init
            N(0, 1/sqrt(size + 2))); name it to share it with ``crf_decoding``.
        name: the layer name (default ``__crf_layer_<n>__``).
        coeff: the gradient scale.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``: one cost per sequence.

    Example:
        >>> emission = paddle.layer.fc(input=emb, size=10, act=paddle.activation.Linear())
        >>> cost = paddle.layer.crf(size=10, input=emission, label=tags,
        ...                         param_attr=paddle.attr.Param(name="crfw"))
    """
    name = base.layer_name(name, "crf_layer")
    inputs = [
        base.as_layer(input, layer=name, arg="input"),
        base.as_layer(label, layer=name, arg="label"),
    ]
    if weight is not None:
        inputs.append(base.as_layer(weight, layer=name, arg="weight"))
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    attrs = {
        "size": _optional_size(size, inputs[0], layer=name),
        "coeff": base.number(coeff, layer=name, arg="coeff"),
        "weighted": weight is not None,
    }
    return base.build(
        "crf",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
    )


# crf_decoding ----------------------------------------------------------------------
class CrfDecodingKind(Kind):
    name = "crf_decoding"
    host = HostChecks(aligns_rows=True, needs_a_step=True, id_bounds=_tag_ids)

    def infer_spec(self, inputs, attrs):
        _check_emissions(inputs[0], attrs["size"])
        if len(inputs) == 1:
            return Spec(attrs["size"], "int32", seq_level=1)
        _check_tags(inputs[1], "label")
        return Spec(1, seq_level=1)

    def param_specs(self, inputs, attrs):
        return _transition_decl(attrs["size"])

    def apply(self, params, inputs, attrs, *, key, mode):
        emissions = inputs[0]
        x, mask = _clean(emissions)
        if x.shape[1] == 0:
            tags = jnp.zeros(mask.shape, jnp.int32)
        else:
            tags = viterbi(x, mask, params["w0"])
        if len(inputs) == 1:
            return emissions._replace(data=tags)
        wrong = jnp.where(mask, tags != inputs[1].data, False)
        return emissions._replace(data=wrong.astype(jnp.float32)[..., None])


register_kind(CrfDecodingKind())


@base.layer_function
def crf_decoding(
    input: Layer,
    size: int,
    label: Layer | None = None,
    param_attr: ParamAttr | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Viterbi decoding of a linear-chain CRF: the best tag path of each sequence.

    $$
    \\hat y = \\arg\\max_y s(y)
    $$

    with ``s`` the path score of [`crf`][paddle_lite.layer.crf] (ties go to the lower tag id, as in
    v2). Without ``label`` the output is the tag ids; with ``label`` it is 1.0 at each step where
    ``\\hat y_t \\ne label_t`` and 0.0 where they agree (feed it to ``paddle.evaluator.sum`` to
    count errors). The layer has no gradient.

    Args:
        input: a dense sequence of emission scores of size ``size``.
        size: the number of tags (must equal ``input.size``).
        label: optional integer sequence of the true tag ids.
        param_attr: a ``Param`` for the ``[size + 2, size]`` transitions; give the
            name used by ``crf`` to decode with its trained transitions.
        name: the layer name (default ``__crf_decoding_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        Without label: an int32 id sequence of size ``size`` (data ``[batch, T]``);
        with label: a size-1 float sequence of 0/1 errors (data ``[batch, T, 1]``).
        Padding steps hold 0.

    Example:
        >>> emission = paddle.layer.fc(input=emb, size=10, act=paddle.activation.Linear())
        >>> best = paddle.layer.crf_decoding(size=10, input=emission,
        ...                                  param_attr=paddle.attr.Param(name="crfw"))
        >>> errors = paddle.layer.crf_decoding(size=10, input=emission, label=tags,
        ...                                    param_attr=paddle.attr.Param(name="crfw"))
    """
    name = base.layer_name(name, "crf_decoding_layer")
    inputs = [base.as_layer(input, layer=name, arg="input")]
    if label is not None:
        inputs.append(base.as_layer(label, layer=name, arg="label"))
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    attrs = {"size": base.positive_int(size, layer=name, arg="size")}
    return base.build(
        "crf_decoding",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
    )
