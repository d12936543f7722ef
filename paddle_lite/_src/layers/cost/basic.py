"""Cost layers: the cross entropies.

The shared machinery (``CostKind``, ``build_cost``) is in ``cost.base``; ranking and
binary-judgement costs are in ``cost.rank``, robust (Huber, smooth L1) ones in ``cost.robust``,
the squared error and the sum in ``cost.square``.

Every cost outputs float32 ``[batch, 1]``: the per-sample cost, multiplied by the
optional ``weight`` layer (a size-1 per-sample weight). The trainer sums these over
the batch (book §0.1). Over sequences the per-sample cost is the sum over the valid
steps; padding is ignored through the lengths. As in v2, ``coeff`` scales only the
gradient: the reported cost is unscaled.

Logarithms of probabilities are taken of ``max(p, 1e-37)``: a zero probability costs
about 85.2 instead of ``inf`` and its gradient stays finite.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src.activations import Sigmoid, Softmax
from paddle_lite._src.attrs import ExtraAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import (
    CostChecks,
    CostKind,
    build_cost,
    check_same_size,
    class_ids,
    safe_log,
    v2_note,
)
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Sparse

_LOG = logging.getLogger(__name__)


def _label_prob(p: Any, ids: Any) -> Any:
    ids = jnp.clip(ids, 0, p.shape[-1] - 1)
    return jnp.take_along_axis(p, ids[..., None], axis=-1)[..., 0]


def _check_class_label(specs: Mapping[str, Spec]) -> None:
    base.expect(specs["input"], "input")
    n = specs["input"].size
    with v2_note(
        "its cross entropy reads one class id per sample",
        f"declare the label as paddle.data_type.integer_value({n})",
    ):
        base.expect(specs["label"], "label", "ids")
    if specs["label"].dtype == "int32" and specs["label"].size > n:
        base.suspicious(
            f"label is an integer_value({specs['label'].size}) but the input has {n} classes; "
            f"expected integer_value({n}) (v2 built and ran such a layer; ids >= {n} fall "
            "outside the input)."
        )


# cross entropies -------------------------------------------------------------------
class CrossEntropyKind(CostKind):
    name = "multi_class_cross_entropy"
    v2 = V2Layer(type="multi-class-cross-entropy")

    host = CostChecks(id_bounds=class_ids)  # class ids index the input's columns

    def check(self, specs, attrs):
        if attrs.get("soft_label") and specs["label"].dtype == "float32":
            check_same_size(specs)
        else:
            _check_class_label(specs)

    def step_cost(self, values, attrs):
        p, label = values
        if jnp.issubdtype(label.dtype, jnp.floating):
            return -(label * safe_log(p)).sum(axis=-1)
        return -safe_log(_label_prob(p, label))


class SelfNormKind(CrossEntropyKind):
    name = "cross_entropy_with_selfnorm"
    v2 = V2Layer(type="multi_class_cross_entropy_with_selfnorm", size=0)

    def check(self, specs, attrs):
        _check_class_label(specs)

    def step_cost(self, values, attrs):
        p, ids = values
        log_z = safe_log(p.sum(axis=-1))
        alpha = attrs["softmax_selfnorm_alpha"]
        return -safe_log(_label_prob(p, ids)) + log_z + alpha * log_z**2


class MultiBinaryKind(CostKind):
    """v2's ``MultiBinaryLabelCrossEntropy`` (CostLayer.cpp) over its three label forms.

    A sparse label lists the positive classes (``CpuMatrix::multiBinaryLabelCrossEntropy``
    reads only the columns, never the values); an id label is the one positive class
    (``toOneHotSparseMatrix``); a dense label is thresholded at 0.5
    (``binaryLabelCrossEntropy``: ``t > 0.5 ? -log(p) : -log(1 - p)``).
    """

    name = "multi_binary_label_cross_entropy"

    host = CostChecks(id_bounds=class_ids)  # an id is the positive class's column

    def check(self, specs, attrs):
        base.expect(specs["input"], "input")
        if specs["label"].dtype == "int32":
            return
        n = specs["input"].size
        with v2_note(
            "it needs a sparse matrix of the positive classes as its label",
            f"declare the label as paddle.data_type.sparse_binary_vector({n}) (the ids of "
            "the positive classes), dense 0/1 vectors or one class id per sample",
        ):
            base.expect(specs["label"], "label", "values", size=n, why=" (= input.size)")

    def step_cost(self, values, attrs):
        p, t = values
        if isinstance(t, Sparse):
            # Padding has value 0, so a listed class with value 0 counts as unlisted.
            ids, on = jnp.clip(t.ids, 0, p.shape[-1] - 1), (t.values != 0).astype(p.dtype)
        elif jnp.issubdtype(t.dtype, jnp.integer):
            ids, on = jnp.clip(t, 0, p.shape[-1] - 1)[..., None], 1.0
        else:
            return -jnp.where(t > 0.5, safe_log(p), safe_log(1.0 - p)).sum(axis=-1)
        p_on = jnp.take_along_axis(p, ids, axis=-1)
        positive = (on * (safe_log(p_on) - safe_log(1.0 - p_on))).sum(axis=-1)
        return -safe_log(1.0 - p).sum(axis=-1) - positive


for _kind in (CrossEntropyKind(), SelfNormKind(), MultiBinaryKind()):
    register_kind(_kind)


def _evaluator_names(evaluator: Any, *, layer: str) -> tuple[str, ...]:
    if evaluator is None:
        return ("classification_error",)
    items = evaluator if isinstance(evaluator, (list, tuple)) else [evaluator]
    names = []
    for e in items:
        label = e if isinstance(e, str) else getattr(e, "__name__", None)
        if not isinstance(label, str) or not label:
            raise LayerTypeError(
                f"layer '{layer}': evaluator must be an evaluator function, its name or a "
                f"list of them; received {e!r}."
            )
        names.append(label.removesuffix("_evaluator"))
    return tuple(names)


@base.layer_function
def classification_cost(
    input: Layer,
    label: Layer,
    weight: Layer | None = None,
    name: str | None = None,
    evaluator: Callable[..., Evaluator] | Sequence[Callable[..., Evaluator]] | None = None,
    layer_attr: ExtraAttr | None = None,
    coeff: float = 1.0,
) -> Layer:
    """Multi-class cross entropy of a softmax output: ``w * -log(p[label])``.

    Attaches v2's ``classification_error_evaluator`` (attr ``evaluators``). As in v2,
    ``coeff`` scales only the gradient.

    Args:
        input: a layer with a Softmax activation (or a sequence of them).
        label: an ``integer_value(input.size)`` layer (an id sequence for sequences).
        weight: optional size-1 layer, a per-sample weight.
        name: the layer name (default ``__cost_<n>__``).
        evaluator: evaluators to attach (default: classification error).
        layer_attr: ``Extra(device=...)`` only.
        coeff: the gradient's multiplier.

    Returns:
        A size-1 cost layer, ``[batch, 1]``; a sequence costs the sum over its steps.

    Example:
        >>> prob = paddle.layer.fc(input=x, size=10, act=paddle.activation.Softmax())
        >>> cost = paddle.layer.classification_cost(input=prob, label=lbl)
    """
    name = base.layer_name(name, "cost")
    inp = base.as_layer(input, layer=name, arg="input")
    if not isinstance(inp.activation, Softmax):
        raise LayerConfigError(
            f"layer '{name}': classification_cost needs input with a Softmax activation; "
            f"input '{inp.name}' has {inp.activation!r}. Give it act=paddle.activation."
            "Softmax() or use cross_entropy_cost."
        )
    return build_cost(
        "multi_class_cross_entropy",
        name=name,
        args=[("input", inp), ("label", label)],
        weight=weight,
        coeff=coeff,
        layer_attr=layer_attr,
        evaluators=_evaluator_names(evaluator, layer=name),
    )


@base.layer_function
def cross_entropy_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    coeff: float = 1.0,
    weight: Layer | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Multi-class cross entropy ``w * -log(p[label])`` of a probability vector.

    As in v2, ``coeff`` scales only the gradient.

    Args:
        input: probabilities (any activation; no softmax check).
        label: an ``integer_value(input.size)`` layer.
        name: the layer name (default ``__cross_entropy_<n>__``).
        coeff: the gradient's multiplier.
        weight: optional size-1 per-sample weight.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> cost = paddle.layer.cross_entropy_cost(input=prob, label=lbl)
    """
    name = base.layer_name(name, "cross_entropy")
    return build_cost(
        "multi_class_cross_entropy",
        name=name,
        args=[("input", input), ("label", label)],
        weight=weight,
        coeff=coeff,
        layer_attr=layer_attr,
    )


@base.layer_function
def cross_entropy(input: Layer, label: Layer, name: str | None = None, coeff: float = 1.0) -> Layer:
    """The design doc's cross entropy, with a class id or a distribution as label.

    ``cost = -log p[label]`` for an id label, ``cost = -sum_j q_j log p_j`` for a label
    ``q`` that is a distribution (the cross entropy between two distributions, e.g.
    two towers' softmax outputs). As in v2, ``coeff`` scales only the gradient.

    Args:
        input: probabilities ``p`` (e.g. a softmax output).
        label: an ``integer_value(input.size)`` layer, or a dense layer of
            ``input.size`` holding a distribution ``q``.
        name: the layer name (default ``__cross_entropy_<n>__``).
        coeff: the gradient's multiplier.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> cost = paddle.layer.cross_entropy(input=prob, label=lbl)
        >>> other = paddle.layer.fc(input=y, size=10, act=paddle.activation.Softmax())
        >>> soft = paddle.layer.cross_entropy(input=prob, label=other)
    """
    name = base.layer_name(name, "cross_entropy")
    return build_cost(
        "multi_class_cross_entropy",
        name=name,
        args=[("input", input), ("label", label)],
        coeff=coeff,
        soft_label=True,
    )


@base.layer_function
def cross_entropy_with_selfnorm_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    coeff: float = 1.0,
    softmax_selfnorm_alpha: float = 0.1,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Cross entropy of an unnormalised positive output, with a self-normalising penalty.

    With ``Z = sum_j p_j`` (v2's CostLayer):

        cost = -log(p[label] / Z) + alpha * log(Z)^2

    The penalty pushes ``Z`` towards 1, so that ``p`` itself can be read as a
    distribution at test time. As in v2, ``coeff`` scales only the gradient.

    Args:
        input: positive unnormalised scores (e.g. ``act=Exp``).
        label: an ``integer_value(input.size)`` layer.
        name: the layer name (default ``__cross_entropy_with_selfnorm_<n>__``).
        coeff: the gradient's multiplier.
        softmax_selfnorm_alpha: weight ``alpha`` of the ``log(Z)^2`` penalty.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> scores = paddle.layer.fc(input=x, size=10, act=paddle.activation.Exp())
        >>> cost = paddle.layer.cross_entropy_with_selfnorm_cost(input=scores, label=lbl)
    """
    name = base.layer_name(name, "cross_entropy_with_selfnorm")
    alpha = base.number(softmax_selfnorm_alpha, layer=name, arg="softmax_selfnorm_alpha")
    return build_cost(
        "cross_entropy_with_selfnorm",
        name=name,
        args=[("input", input), ("label", label)],
        coeff=coeff,
        layer_attr=layer_attr,
        softmax_selfnorm_alpha=alpha,
    )


@base.layer_function
def multi_binary_label_cross_entropy_cost(
    input: Layer,
    label: Layer,
    name: str | None = None,
    coeff: float = 1.0,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Independent binary cross entropies: ``-sum_j [t_j log p_j + (1-t_j) log(1-p_j)]``.

    One yes/no decision per class (multi-label classification). Logs a warning when
    the input activation is not Sigmoid. As in v2, ``coeff`` scales only the gradient.

    Args:
        input: probabilities in (0, 1) (a Sigmoid output).
        label: a ``sparse_binary_vector(input.size)`` (ids of the positive labels; a
            ``sparse_float_vector``'s values are ignored, as in v2), an
            ``integer_value(input.size)`` (the one positive label) or a dense vector of
            ``input.size`` (positive where above 0.5, as in v2).
        name: the layer name (default ``__multi_binary_label_cross_entropy_<n>__``).
        coeff: the gradient's multiplier.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]`` (sequences: summed over steps).

    Example:
        >>> labels = paddle.layer.data(name="labels",
        ...                            type=paddle.data_type.sparse_binary_vector(10))
        >>> p = paddle.layer.fc(input=x, size=10, act=paddle.activation.Sigmoid())
        >>> cost = paddle.layer.multi_binary_label_cross_entropy_cost(input=p, label=labels)
    """
    name = base.layer_name(name, "multi_binary_label_cross_entropy")
    inp = base.as_layer(input, layer=name, arg="input")
    if not isinstance(inp.activation, Sigmoid):
        _LOG.warning(
            "layer '%s': input '%s' has activation %r; multi_binary_label_cross_entropy_cost "
            "expects probabilities, so a Sigmoid activation is recommended.",
            name,
            inp.name,
            inp.activation,
        )
    return build_cost(
        "multi_binary_label_cross_entropy",
        name=name,
        args=[("input", inp), ("label", label)],
        coeff=coeff,
        layer_attr=layer_attr,
    )
