"""Connectionist temporal classification costs: ``ctc`` and ``warp_ctc``.

Both give, per sequence, ``-log p(label | input)``: the probability, summed over every
frame-level path that collapses to the label (merge repeats, drop blanks), of the
per-frame class probabilities. The forward algorithm is optax's ``ctc_loss``.

- ``ctc`` (v2's ``LinearChainCTC``) reads *probabilities* (a softmax output) of
  ``num_classes + 1`` classes; the blank is the last class.
- ``warp_ctc`` reads *unnormalised scores* (a linear activation; the softmax is
  applied inside, as the warp-ctc library does); the blank is ``blank`` (default 0).

As in v2, ``norm_by_times`` divides only the gradient by the sequence length (the
reported cost is not divided), and a sequence too short for its label (fewer frames
than labels plus repeated neighbours) costs 0 with no gradient.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import optax

from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import Kind, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import safe_log, v2_note
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import step_mask


def feasible(labels: Any, label_mask: Any, lengths: Any) -> Any:
    """True where a sequence of ``lengths`` frames can emit its label: at least one
    frame per label plus one blank between equal neighbours."""
    repeats = (labels[:, 1:] == labels[:, :-1]) & label_mask[:, 1:]
    return lengths >= label_mask.sum(axis=1) + repeats.sum(axis=1)


def ctc_cost(log_probs: Any, inp: Any, label: Any, attrs: Any) -> Any:
    """``[B]`` costs from per-frame log-probabilities ``[B, T, C]`` (v2's rules applied)."""
    frame_mask, label_mask = step_mask(inp), step_mask(label)
    labels = label.data.astype(jnp.int32)
    cost = optax.ctc_loss(
        log_probs,
        1.0 - frame_mask.astype(log_probs.dtype),
        labels,
        1.0 - label_mask.astype(log_probs.dtype),
        blank_id=attrs["blank"],
    )
    cost = jnp.where(feasible(labels, label_mask, inp.lengths), cost, 0.0)
    if attrs["norm_by_times"]:
        scale = 1.0 / jnp.maximum(inp.lengths, 1).astype(cost.dtype)
        cost = scale * cost + jax.lax.stop_gradient((1.0 - scale) * cost)
    return cost[:, None].astype(jnp.float32)


class CtcKind(Kind):
    """v2's ``ctc`` (probabilities in) and ``warp_ctc`` (scores in)."""

    is_cost = True
    v2 = V2Layer(size=lambda n: n.attrs["size"])  # v2 writes the number of classes

    def __init__(self, name: str, takes_probabilities: bool) -> None:
        self.name, self.takes_probabilities = name, takes_probabilities

    def infer_spec(self, inputs, attrs):
        inp, label = inputs
        with v2_note(
            "its input must hold size = num_classes + 1 scores per frame",
            f"give the input {attrs['size']} outputs (the label's classes and the blank)",
        ):
            base.expect(inp, "input", size=attrs["size"], why=" (num_classes + 1: the blank)")
        base.expect(label, "label", "ids", size=attrs["size"] - 1, why=" (= size - 1)")
        for spec, arg in ((inp, "input"), (label, "label")):
            with v2_note(
                "CTC reads the frames and the labels as sequences",
                "declare them as dense_vector_sequence / integer_value_sequence",
            ):
                if spec.seq_level != 1:
                    raise LayerConfigError(
                        f"{arg} has seq_level {spec.seq_level}; expected 1: CTC aligns a "
                        "sequence of frames with a sequence of labels."
                    )
        if not 0 <= attrs["blank"] < attrs["size"]:
            raise LayerConfigError(
                f"blank={attrs['blank']} is not a class id; expected 0 <= blank < size "
                f"({attrs['size']})."
            )
        return Spec(1)

    def apply(self, params, inputs, attrs, *, key, mode):
        inp, label = inputs
        if self.takes_probabilities:
            log_probs = safe_log(inp.data)
        else:
            log_probs = jax.nn.log_softmax(inp.data, axis=-1)
        return ctc_cost(log_probs, inp, label, attrs)


register_kind(CtcKind("ctc", takes_probabilities=True))
register_kind(CtcKind("warp_ctc", takes_probabilities=False))


def _build(kind: str, prefix: str, input, label, size, name, blank, norm_by_times, layer_attr):
    name = base.layer_name(name, prefix)
    inputs = [
        base.as_layer(input, layer=name, arg="input"),
        base.as_layer(label, layer=name, arg="label"),
    ]
    size = base.positive_int(inputs[1].size + 1 if size is None else size, layer=name, arg="size")
    blank = size - 1 if blank is None else blank
    if isinstance(blank, bool) or not isinstance(blank, int):
        raise LayerConfigError(f"layer '{name}': blank must be an int; received {blank!r}.")
    attrs = {
        "size": size,
        "blank": blank,
        "norm_by_times": bool(norm_by_times),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build(kind, name=name, inputs=inputs, attrs=attrs)


@base.layer_function
def ctc(
    input: Layer,
    label: Layer,
    size: int | None = None,
    name: str | None = None,
    norm_by_times: bool = False,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """CTC cost over class *probabilities*; the blank is the last class (v2's ``ctc``).

    $$
    cost = -\\log \\sum_{\\pi:\\, B(\\pi) = label} \\prod_t p_t(\\pi_t)
    $$

    per sequence, where the frame paths ``pi`` run over ``size`` classes of which
    ``size - 1`` is the blank and ``B`` merges repeats, then drops blanks. A sequence
    with too few frames for its label costs 0, with no gradient (as in v2).

    Args:
        input: a sequence of probabilities of size ``size`` (a softmax output).
        label: an integer sequence of label ids in ``[0, size - 1)``
            (``integer_value_sequence(size - 1)``).
        size: the number of classes plus the blank (default ``label.size + 1``; must
            equal ``input.size``).
        name: the layer name (default ``__ctc_layer_<n>__``).
        norm_by_times: divide the gradient (not the cost) by the sequence length.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``: one cost per sequence.

    Example:
        >>> probs = paddle.layer.fc(input=emb, size=11, act=paddle.activation.Softmax())
        >>> cost = paddle.layer.ctc(input=probs, label=tags, size=11)
    """
    return _build("ctc", "ctc_layer", input, label, size, name, None, norm_by_times, layer_attr)


@base.layer_function
def warp_ctc(
    input: Layer,
    label: Layer,
    size: int | None = None,
    name: str | None = None,
    blank: int = 0,
    norm_by_times: bool = False,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """CTC cost over unnormalised *scores* with a softmax inside (v2's ``warp_ctc``).

    $$
    cost = -\\log \\sum_{\\pi:\\, B(\\pi) = label} \\prod_t softmax(x_t)_{\\pi_t}
    $$

    per sequence (``B`` merges repeats, then drops the blank ``blank``); a sequence
    with too few frames for its label costs 0, with no gradient (as in v2).

    Args:
        input: a sequence of scores of size ``size`` (use a linear activation).
        label: an integer sequence of the non-blank class ids
            (``integer_value_sequence(size - 1)``).
        size: the number of classes plus the blank (default ``label.size + 1``; must
            equal ``input.size``).
        name: the layer name (default ``__warp_ctc_layer_<n>__``).
        blank: the blank's class id, in ``[0, size)`` (default 0). With the default
            the labels are ids ``1 .. size - 1``, but a label declared
            ``integer_value_sequence(size - 1)`` is fed ids below ``size - 1`` only:
            pass ``blank=size - 1`` to feed labels ``0 .. size - 2``.
        norm_by_times: divide the gradient (not the cost) by the sequence length.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``: one cost per sequence.

    Example:
        >>> scores = paddle.layer.fc(input=emb, size=11, act=paddle.activation.Linear())
        >>> cost = paddle.layer.warp_ctc(input=scores, label=tags, blank=10)
    """
    return _build(
        "warp_ctc", "warp_ctc_layer", input, label, size, name, blank, norm_by_times, layer_attr
    )
