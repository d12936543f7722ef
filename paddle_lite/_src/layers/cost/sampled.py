"""Costs for many classes: ``nce`` (noise-contrastive estimation) and ``hsigmoid``
(hierarchical sigmoid over v2's binary code tree).

Both score classes with one row per class of a weight per input (``w_i[class]``, v2's
``[num_classes, in_i]`` and ``[num_classes - 1, in_i]`` layouts) plus a bias, read
integer class ids from a data layer, and output one cost per sample (a sequence input
gives one cost per step, summed per sequence).

**nce.** With ``k = num_neg_samples``, noise distribution ``q`` (uniform by default)
and ``o_c = sigmoid(b_c + sum_i x_i . w_i[c])``, a sample with label ``t`` costs

$$
-\\log \\frac{o_t}{o_t + k q_t}
- \\sum_{j=1}^{k} \\log \\frac{k q_{n_j}}{o_{n_j} + k q_{n_j}}
$$

where training draws the ``k`` noise classes ``n_j`` from ``q`` (with replacement, the
label may be drawn, as in v2). In test mode the layer is deterministic: the noise
sum is replaced by its expectation ``sum_c k q_c (-log(k q_c / (o_c + k q_c)))`` over
all classes (v2 drew samples in test passes too). The sigmoid is v2's activation: its
argument clipped to ``[-40, 13]``, its derivative ``o (1 - o)`` of the clipped output
everywhere, so a far-off score keeps a finite cost and a gradient (see ``v2_sigmoid``).

**hsigmoid.** Class ``c`` has the code ``c + num_classes``, of ``L = bitlen - 1`` bits;
bit ``j`` (``j < L``) chooses between the children of node ``(code >> (j+1)) - 1``.
With ``z_j = clip(b_node + sum_i x_i . w_i[node], -40, 40)`` the cost is
``sum_j softplus(z_j) - sum_{j: bit set} z_j``; its gradient by the unclipped score is
v2's ``sigmoid(z_j) - bit_j``, beyond the clip too. As in v2 every sample is charged for
the longest code ``bitlen(num_classes - 1)``: each missing bit adds ``softplus(0) =
log 2`` (a constant, with no gradient).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import v2_sigmoid
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    HostChecks,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.cost.base import clip_value_only, per_sample, safe_log
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Sparse, data_of

SOFTRELU_CLIP = 40.0


# shared -----------------------------------------------------------------------------
def _check_inputs(inputs, attrs, *, sparse_label: bool = False) -> None:
    """Dense feature inputs, an id label (or, with ``sparse_label``, a sparse vector of
    the positive classes) of the same sequence level, an optional weight."""
    n = attrs["n_inputs"]
    features, label = inputs[:n], inputs[n]
    base.expect(features, "input")
    if not (sparse_label and label.dtype in ("sparse_binary", "sparse_float")):
        base.expect(label, "label", "ids")
    levels = {s.seq_level for s in inputs[: n + 1]}
    if len(levels) > 1:
        raise LayerConfigError(
            f"inputs and label have different sequence levels {sorted(levels)}; expected one "
            "class id per input row."
        )
    if label.size > attrs["num_classes"]:
        base.suspicious(
            f"label holds ids below {label.size} but num_classes is {attrs['num_classes']}: "
            "ids >= num_classes fall outside the layer's tables (v2 built such a layer and "
            "read past its tables for them). Pass num_classes >= the label's range."
        )
    if len(inputs) > n + 1:
        base.expect(inputs[n + 1], "weight", size=1, why=" (one weight per sample)")


def _label_bound(position: int, inputs: Sequence[Spec], attrs: Any) -> int | None:
    """The label (after the ``n_inputs`` features) holds class ids below ``num_classes``."""
    return attrs["num_classes"] if position == attrs["n_inputs"] else None


def _class_decls(inputs, attrs, rows: int) -> list[ParamDecl]:
    decls = [
        ParamDecl(f"w{i}", (rows, s.size), ParamAttrAt(i), attrs_mod.SMART)
        for i, s in enumerate(inputs[: attrs["n_inputs"]])
    ]
    if attrs["bias"]:
        decls.append(ParamDecl("wbias", (1, rows), BiasAttr(), attrs_mod.SMART))
    return decls


def _scores(params, xs, attrs, classes) -> Any:
    """``b[c] + sum_i x_i . w_i[c]`` for class ids ``classes`` ``[..., K]``."""
    out = jnp.take(jnp.asarray(params["wbias"])[0], classes, mode="clip") if attrs["bias"] else 0.0
    for i, x in enumerate(xs):
        rows = jnp.take(jnp.asarray(params[f"w{i}"]), classes, axis=0, mode="clip")
        out = out + jnp.einsum("...d,...kd->...k", x, rows)
    return out


def _cost_layer(prefix, input, label, weight, name, num_classes, layer_attr):
    """``(name, inputs, attrs)`` from the arguments nce and hsigmoid share, checked."""
    name = base.layer_name(name, prefix)
    features = base.as_layers(input, layer=name)
    inputs = [*features, _data_layer(label, name, "label")]
    if weight is not None:
        inputs.append(_data_layer(weight, name, "weight"))
    if num_classes is None:
        num_classes = inputs[len(features)].size
    attrs = {
        "n_inputs": len(features),
        "num_classes": base.positive_int(num_classes, layer=name, arg="num_classes"),
        "weighted": weight is not None,
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return name, inputs, attrs


def _data_layer(value: Any, name: str, arg: str) -> Any:
    layer = base.as_layer(value, layer=name, arg=arg)
    if layer.kind != "data":
        raise LayerConfigError(
            f"layer '{name}': {arg} must be a data layer (v2 requires it); received "
            f"'{layer.name}' of kind {layer.kind}."
        )
    return layer


def _finish(cost, inputs, attrs) -> Any:
    n = attrs["n_inputs"]
    weight = inputs[n + 1] if attrs["weighted"] else None
    return per_sample(cost, inputs[0], weight, 1.0)


# nce --------------------------------------------------------------------------------
class NceKind(Kind):
    name = "nce"
    is_cost = True
    v2 = V2Layer(active_type="sigmoid")  # which the cost applies here
    host = HostChecks(aligns_rows=True, id_bounds=_label_bound)

    def infer_spec(self, inputs, attrs):
        _check_inputs(inputs, attrs, sparse_label=True)
        return Spec(1)

    def param_specs(self, inputs, attrs):
        return _class_decls(inputs, attrs, attrs["num_classes"])

    def apply(self, params, inputs, attrs, *, key, mode):
        n, k = attrs["n_inputs"], attrs["num_neg_samples"]
        xs = [data_of(v) for v in inputs[:n]]
        label, on = _targets(data_of(inputs[n]), attrs["num_classes"])
        q = jnp.asarray(noise_distribution(attrs), jnp.float32)
        o_t = v2_sigmoid(_scores(params, xs, attrs, label))
        kq_t = k * q[label]
        cost = -(on * safe_log(o_t / (o_t + kq_t))).sum(axis=-1)
        if mode == "train":
            if key is None:
                raise LayerConfigError("nce in training mode needs a PRNG key; none was given.")
            noise = _draw(key, q, label.shape[:-1] + (k,), attrs["neg_distribution"] is None)
            o_n = v2_sigmoid(_scores(params, xs, attrs, noise))
            cost = cost - safe_log(k * q[noise] / (o_n + k * q[noise])).sum(axis=-1)
        else:
            all_ids = jnp.arange(attrs["num_classes"])
            o_all = v2_sigmoid(_scores(params, xs, attrs, all_ids))
            cost = cost - (k * q * safe_log(k * q / (o_all + k * q))).sum(axis=-1)
        return _finish(cost, inputs, attrs)


register_kind(NceKind())


def _targets(label: Any, num_classes: int) -> tuple[Any, Any]:
    """The target classes ``[..., K]`` and a mask of the real ones: one id, or (as v2's
    NCELayer reads a sparse label) each listed column, its value ignored; padding has
    value 0, so a listed column with value 0 counts as unlisted."""
    if isinstance(label, Sparse):
        return jnp.clip(label.ids, 0, num_classes - 1), (label.values != 0).astype(jnp.float32)
    ids = jnp.clip(label.astype(jnp.int32), 0, num_classes - 1)[..., None]
    return ids, jnp.ones(ids.shape, jnp.float32)


def noise_distribution(attrs: Any) -> np.ndarray:
    """The noise distribution ``q`` over classes: ``neg_distribution`` or uniform."""
    dist = attrs["neg_distribution"]
    if dist is None:
        return np.full(attrs["num_classes"], 1.0 / attrs["num_classes"])
    return np.asarray(dist, np.float64)


def _draw(key: Any, q: Any, shape: tuple[int, ...], uniform: bool) -> Any:
    if uniform:
        return jax.random.randint(key, shape, 0, q.shape[0])
    return jax.random.categorical(key, jnp.log(q), shape=shape)


def _neg_distribution(dist: Any, num_classes: int, *, layer: str) -> tuple[float, ...] | None:
    if dist is None:
        return None
    values = np.asarray(dist, np.float64).reshape(-1)
    if values.size != num_classes or (values < 0).any() or abs(values.sum() - 1.0) >= 1e-5:
        raise LayerConfigError(
            f"layer '{layer}': neg_distribution must hold num_classes ({num_classes}) "
            f"non-negative probabilities summing to 1; received {values.size} values summing "
            f"to {values.sum():g}."
        )
    return tuple(float(v) for v in values)


@base.layer_function
def nce(
    input: Layer | Sequence[Layer],
    label: Layer,
    num_classes: int | None = None,
    param_attr: ParamAttr | None = None,
    weight: Layer | None = None,
    num_neg_samples: int = 10,
    neg_distribution: Sequence[float] | None = None,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Noise-contrastive estimation: a cost for many classes that scores only a few.

    With ``k = num_neg_samples``, noise distribution ``q`` and
    ``o_c = sigmoid(b_c + sum_i x_i . w_i[c])``, a sample of label ``t`` costs

    $$
    -\\log \\frac{o_t}{o_t + k q_t}
    - \\sum_{j=1}^{k} \\log \\frac{k q_{n_j}}{o_{n_j} + k q_{n_j}}
    $$

    where training draws the ``k`` noise classes ``n_j`` from ``q`` (with replacement;
    the label may be drawn, as in v2). In test mode the noise sum is its expectation
    over all classes, ``sum_c k q_c (-log(k q_c / (o_c + k q_c)))``, so the cost is
    deterministic (v2 drew noise in test passes too). A sequence input costs the sum
    over its steps. The sigmoid is v2's: its argument clipped to ``[-40, 13]``, its
    derivative ``o (1 - o)`` of the clipped output, so far-off scores stay finite.

    Args:
        input: a dense layer or a list of them (the features).
        label: an integer-id data layer (class ids in ``[0, num_classes)``), or, as in
            v2, a ``sparse_binary_vector(num_classes)`` of several target classes, each
            costing the target term (with ``k`` noise classes per sample).
        num_classes: the number of classes (default ``label.size``).
        param_attr: a ``Param`` or one per input, for the ``[num_classes, in_i]`` weights
            (default init N(0, 1/sqrt(num_classes)), v2's).
        weight: an optional size-1 data layer: per-sample cost weights.
        num_neg_samples: noise classes drawn per sample (default 10).
        neg_distribution: the noise distribution (``num_classes`` values summing to 1);
            default uniform.
        bias_attr: ``None``/``True`` zero bias ``[1, num_classes]``, ``False`` none.
        name: the layer name (default ``__nce_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``.

    Example:
        >>> cost = paddle.layer.nce(input=x, label=lbl, num_classes=10, num_neg_samples=5)
    """
    name, inputs, attrs = _cost_layer(
        "nce_layer", input, label, weight, name, num_classes, layer_attr
    )
    attrs["num_neg_samples"] = base.positive_int(num_neg_samples, layer=name, arg="num_neg_samples")
    attrs["neg_distribution"] = _neg_distribution(
        neg_distribution, attrs["num_classes"], layer=name
    )
    return base.build(
        "nce",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, attrs["n_inputs"], layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


# hsigmoid ---------------------------------------------------------------------------
def code_table(num_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(nodes, bits, valid)``, each ``[num_classes, max_len]``: v2's SimpleCode tree.

    Class ``c`` has code ``c + num_classes``; bit ``j`` of a code of length
    ``bitlen(code) - 1`` sits at node ``(code >> (j + 1)) - 1`` and is ``(code >> j) & 1``.
    """
    max_len = int(num_classes - 1).bit_length()
    codes = np.arange(num_classes) + num_classes
    j = np.arange(max_len)
    lengths = np.array([int(c).bit_length() - 1 for c in codes])
    valid = j[None, :] < lengths[:, None]
    nodes = np.where(valid, (codes[:, None] >> (j[None, :] + 1)) - 1, 0)
    bits = np.where(valid, (codes[:, None] >> j[None, :]) & 1, 0)
    return nodes, bits, valid


class HsigmoidKind(Kind):
    name = "hsigmoid"
    is_cost = True
    host = HostChecks(aligns_rows=True, id_bounds=_label_bound)

    def infer_spec(self, inputs, attrs):
        _check_inputs(inputs, attrs)
        return Spec(1)

    def param_specs(self, inputs, attrs):
        return _class_decls(inputs, attrs, attrs["num_classes"] - 1)

    def apply(self, params, inputs, attrs, *, key, mode):
        n = attrs["n_inputs"]
        xs = [data_of(v) for v in inputs[:n]]
        label = jnp.clip(data_of(inputs[n]).astype(jnp.int32), 0, attrs["num_classes"] - 1)
        nodes, bits, valid = (jnp.asarray(a) for a in code_table(attrs["num_classes"]))
        z = _scores(params, xs, attrs, nodes[label])
        z = jnp.where(valid[label], clip_value_only(z, SOFTRELU_CLIP), 0.0)
        cost = jax.nn.softplus(z).sum(axis=-1) - jnp.where(bits[label] == 1, z, 0.0).sum(-1)
        return _finish(cost, inputs, attrs)


register_kind(HsigmoidKind())


@base.layer_function
def hsigmoid(
    input: Layer | Sequence[Layer],
    label: Layer,
    num_classes: int | None = None,
    name: str | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Hierarchical sigmoid: a cost for many classes as binary decisions down a tree.

    The ``num_classes - 1`` inner nodes each hold a weight row and a bias. Class ``c``
    has the code ``c + num_classes`` of ``L = bitlen - 1`` bits; bit ``j`` chooses
    between the children of node ``(code >> (j+1)) - 1`` (v2's SimpleCode). With
    ``z_j = clip(b_node + sum_i x_i . w_i[node], -40, 40)``:

    $$
    cost = \\sum_j \\log(1 + e^{z_j}) - \\sum_{j:\\, bit_j = 1} z_j
    $$

    the sum of ``-log sigmoid(+-z_j)`` along the path. As in v2, the gradient by the
    unclipped score is ``sigmoid(z_j) - bit_j`` beyond the clip too. As in v2 every sample is
    charged for the longest code, ``bitlen(num_classes - 1)`` bits: each missing bit
    adds ``log 2`` (a constant, with no gradient). A sequence input costs the sum over
    its steps.

    Args:
        input: a dense layer or a list of them (the features).
        label: an integer-id data layer (class ids in ``[0, num_classes)``).
        num_classes: the number of classes, > 2 (default ``label.size``).
        bias_attr: ``None``/``True`` zero bias ``[1, num_classes - 1]``, ``False`` none.
        param_attr: a ``Param`` or one per input, for the ``[num_classes - 1, in_i]``
            node weights (default init N(0, 1/sqrt(num_classes - 1)), v2's).
        name: the layer name (default ``__hsigmoid_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A size-1 cost layer, ``[batch, 1]``.

    Example:
        >>> cost = paddle.layer.hsigmoid(input=x, label=lbl, num_classes=10)
    """
    name, inputs, attrs = _cost_layer("hsigmoid", input, label, None, name, num_classes, layer_attr)
    if attrs["num_classes"] <= 2:
        raise LayerConfigError(
            f"layer '{name}': hsigmoid needs num_classes > 2; received {attrs['num_classes']} "
            "(v2: 'hsigmoid label size must larger than 2'). Use a two-class cost such as "
            "multi_binary_label_cross_entropy_cost for two classes."
        )
    return base.build(
        "hsigmoid",
        name=name,
        inputs=inputs,
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, attrs["n_inputs"], layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )
