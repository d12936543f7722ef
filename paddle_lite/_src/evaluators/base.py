"""The evaluator contract (v2 ``paddle.evaluator``) and the helpers every family shares.

An evaluator reads the values of some layers of the trained network and turns
them into metrics reported in ``event.metrics``. It is split in two pure parts so
the trainer can compute it inside the jitted step:

- ``batch_stats(values) -> {stat: jax.Array}`` (pure jax, jit-able): sufficient
  statistics of one batch (sums, counts, histograms), from the values of
  ``inputs`` in order. Statistics are **additive**: the statistics of a pass are
  the element-wise sum of its batches' statistics.
- ``result(stats) -> {metric key: float}`` (host, numpy): the metrics from
  statistics summed over any number of batches.

Declaring an evaluator (``paddle.evaluator.auc(input=..., label=...)``) appends it
to the current naming scope, like v2's global config: a trainer picks up every
declared evaluator whose inputs are all in its topology. ``reset_names()`` clears
the declared evaluators. Default names are v2's ``__<v1 name>_<n>__``
(``__auc_evaluator_0__``).

Values are flat rows: dense ``[B, size]``, ids ``[B]``, sequences ``Seq`` (one row
per valid step; padding is ignored). Over sequences every metric counts steps,
as v2 did (a sequence batch has one row per token).

The evaluators build on this module: ``classification`` (``classification_error`` and
the evaluators a cost attaches), ``auc``, ``precision_recall``, ``pnpair``, ``sums``
(``sum``, ``column_sum``), ``chunk``, ``ctc_error``, ``detection`` and the printers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer, current_scope, freeze
from paddle_lite._src.layers import base
from paddle_lite._src.values import Seq, Sparse, data_of
from paddle_lite._src.values import step_mask as seq_step_mask


class Evaluator:
    """A metric over the values of ``inputs``, accumulated over a pass.

    Attributes:
        name: the metric key (prefix ``name.`` for evaluators with several keys).
        inputs: the layers whose values ``batch_stats`` reads, in order.
        attrs: static settings (``top_k``, ``weighted`` ...), read-only.
        type: v2's evaluator type (``"classification_error"``, ``"last-column-auc"``).
    """

    type: ClassVar[str] = ""
    __slots__ = ("name", "inputs", "attrs")

    name: str
    inputs: tuple[Layer, ...]
    attrs: Mapping[str, Any]

    def __init__(self, name: str, inputs: Sequence[Layer], attrs: Mapping[str, Any]) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "attrs", freeze(attrs))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"evaluator '{self.name}' is immutable; cannot set '{key}'.")

    def __repr__(self) -> str:
        names = ", ".join(i.name for i in self.inputs)
        return f"<Evaluator {self.name!r} type={self.type} inputs=[{names}]>"

    def batch_stats(self, values: Sequence[Any], valid: Any = None) -> dict[str, jax.Array]:
        """Additive statistics of one batch from the values of ``inputs`` (pure jax).

        ``valid`` (optional bool ``[B]``) marks the real samples of a padded batch;
        the others count nowhere.
        """
        raise NotImplementedError

    def result(self, stats: Mapping[str, np.ndarray]) -> dict[str, float]:
        """Metric key -> value from statistics summed over batches (numpy)."""
        raise NotImplementedError

    def grad_taps(self) -> dict[str, Any]:
        """``{layer name: function}`` applied to those layers' outputs (and the batch's
        row weights, None when every row is real) in the training forward pass (a
        printer of gradients hooks the backward pass this way)."""
        return {}

    def weights(self, values: Sequence[Any], like: Any, mask: Any) -> Any:
        """Per-row weights ``[N]`` (0 on padding): the last input when weighted, else 1."""
        if not self.attrs.get("weighted", False):
            return mask.astype(jnp.float32)
        return row_weights(values[-1], like, mask)


# rows of values ----------------------------------------------------------------------
def _steps_axes(value: Any) -> int:
    if not isinstance(value, Seq):
        return 1
    return 3 if value.sub_lengths is not None else 2


def step_mask(value: Any) -> Any:
    """Bool mask of the valid rows of a value: ``[B]``, ``[B, T]`` or ``[B, S, T]``."""
    if not isinstance(value, Seq):
        return jnp.ones(value.shape[:1], bool)
    return seq_step_mask(value)


def fit_steps(data: Any, shape: tuple[int, ...], fill: Any = 0) -> Any:
    """Pad (with ``fill``) or cut the step axes of ``data`` to ``shape`` (bucket mismatch)."""
    for axis, n in enumerate(shape[1:], start=1):
        have = data.shape[axis]
        if have > n:
            data = jax.lax.slice_in_dim(data, 0, n, axis=axis)
        elif have < n:
            pad = [(0, 0)] * data.ndim
            pad[axis] = (0, n - have)
            data = jnp.pad(data, pad, constant_values=fill)
    return data


def rows(value: Any, like: Any = None, valid: Any = None) -> tuple[Any, Any]:
    """``(data [N, ...], mask [N])``: one row per sample, or per valid step of a sequence.

    With ``like`` (a sequence), a sequence ``value`` is first padded or cut to the
    step axes of ``like`` so both give the same rows. ``valid`` (bool ``[B]``) masks
    whole samples.
    """
    like = value if like is None else like
    n = _steps_axes(like)
    data = data_of(value)
    if isinstance(like, Seq) and isinstance(value, Seq):
        data = fit_steps(data, like.data.shape[:n])
    mask = step_mask(like)
    if valid is not None:
        mask = mask & jnp.asarray(valid, bool).reshape((-1,) + (1,) * (mask.ndim - 1))
    flat = data.reshape((-1,) + data.shape[n:])
    return flat, mask.reshape(-1)


def row_weights(weight: Any, like: Any, mask: Any) -> Any:
    """Weights ``[N]`` aligned with ``rows(like)``; a per-sample weight covers each step."""
    if isinstance(weight, Seq):
        w, _ = rows(weight, like)
        w = w[:, 0]
    else:
        w = weight[:, 0]
        if isinstance(like, Seq):
            lead = step_mask(like).shape
            w = jnp.broadcast_to(w.reshape((-1,) + (1,) * (len(lead) - 1)), lead).reshape(-1)
    return jnp.where(mask, w.astype(jnp.float32), 0.0)


def label_rows(label: Any, like: Any) -> Any:
    """Label rows ``[N]`` aligned with ``rows(like)``: ids, or the one column of dense values."""
    y, _ = rows(label, like)
    return y[:, 0] if y.ndim == 2 else y


def is_sparse(value: Any) -> bool:
    """Whether ``value`` is a sparse vector (or a sequence of them)."""
    return isinstance(value.data if isinstance(value, Seq) else value, Sparse)


def multi_hot(label: Any, width: int) -> Any:
    """A sparse label (or a sequence of them) as 0/1 rows ``[..., width]``: 1 in the columns
    it lists. v2 read a sparse label's columns, not its values; padding entries (value 0)
    list nothing, so a listed column of value 0 in a sparse float label counts as absent."""
    sparse = label.data if isinstance(label, Seq) else label
    lead = sparse.ids.shape[:-1]
    ids = sparse.ids.reshape(-1, sparse.ids.shape[-1])
    on = (sparse.values.reshape(ids.shape) != 0).astype(jnp.float32)
    n = ids.shape[0]
    hot = jnp.zeros((n, width), jnp.float32).at[jnp.arange(n)[:, None], ids].max(on, mode="drop")
    hot = hot.reshape((*lead, width))
    return label._replace(data=hot) if isinstance(label, Seq) else hot


# declaring --------------------------------------------------------------------------
def evaluator_name(name: Any, prefix: str) -> str:
    """``name`` when given (a non-empty str), else v2's next ``__<prefix>_<n>__``."""
    if name is None:
        return base.layer_name(None, prefix)
    if not isinstance(name, str) or not name:
        raise LayerTypeError(f"evaluator name must be a non-empty str; received {name!r}.")
    return name


def declare(evaluator: Evaluator) -> Evaluator:
    """Record ``evaluator`` in the current scope (v2's global config) and return it."""
    current_scope().evaluators.append(evaluator)
    return evaluator


def check_layer(
    value: Any,
    where: str,
    arg: str,
    *,
    mode: str = "dense",
    size: int | None = None,
    why: str = "",
) -> Layer:
    """``value`` as a layer whose spec the input ``mode`` accepts (and of ``size``), else a
    typed error (modes as in ``layers.base.expect``)."""
    if not isinstance(value, Layer):
        raise LayerTypeError(
            f"{where}: {arg} must be a layer (the output of a paddle.layer function); "
            f"received {value!r} of type {type(value).__name__}."
        )
    base.expect(value.spec, f"{where}: {arg} '{value.name}'", mode, size=size, why=why)
    return value


def check_dense_label(label: Layer, where: str, expected: str) -> None:
    """Refuse a dense ``label`` of size other than 1; ``expected`` ends the message."""
    if label.spec.dtype == "float32" and label.spec.size != 1:
        raise LayerConfigError(
            f"{where}: label '{label.name}' has size {label.spec.size}; {expected}."
        )


def check_sequence(layer: Layer, where: str, arg: str) -> None:
    """A ``LayerConfigError`` unless ``layer`` is a sequence (seq_level 1)."""
    if layer.spec.seq_level != 1:
        raise LayerConfigError(
            f"{where}: {arg} '{layer.name}' has seq_level {layer.spec.seq_level}; expected "
            "a sequence (seq_level 1)."
        )


def positive_int(value: Any, where: str, arg: str) -> int:
    """``value`` as a positive int, else a typed error naming ``arg``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LayerTypeError(f"{where}: {arg} must be an int; received {value!r}.")
    if value <= 0:
        raise LayerConfigError(f"{where}: {arg} must be positive; received {value}.")
    return int(value)


def same_level(
    where: str, main: Layer, others: Mapping[str, Layer | None], paired: bool = False
) -> None:
    """Refuse inputs whose sequence level differs from ``main``'s. ``paired`` (the
    evaluators of a cost pairing sequences of one row per sample with plain values,
    ``CostKind.one_row_inputs``) also accepts plain values beside sequences."""
    levels = {main.spec.seq_level, *(x.spec.seq_level for x in others.values() if x)}
    if paired and levels == {0, 1}:
        return
    for arg, layer in others.items():
        if layer is not None and layer.spec.seq_level != main.spec.seq_level:
            raise LayerConfigError(
                f"{where}: {arg} '{layer.name}' has seq_level {layer.spec.seq_level}; expected "
                f"{main.spec.seq_level}, the level of input '{main.name}'."
            )


def check_weight(weight: Any, where: str, main: Layer) -> Layer | None:
    """The optional per-sample (or per-step) size-1 weight layer."""
    if weight is None:
        return None
    w = check_layer(weight, where, "weight", size=1, why=" (one weight per sample)")
    if w.spec.seq_level not in (0, main.spec.seq_level):
        raise LayerConfigError(
            f"{where}: weight '{w.name}' has seq_level {w.spec.seq_level}; expected 0 (per "
            f"sample) or {main.spec.seq_level} (per step)."
        )
    return w


def build(
    cls: type[Evaluator],
    name: str,
    inputs: Sequence[Layer | None],
    attrs: Mapping[str, Any],
    weight: Layer | None = None,
) -> Evaluator:
    """An evaluator of ``cls`` over ``inputs`` (+ ``weight`` last), not yet declared."""
    layers = [i for i in inputs if i is not None]
    if weight is not None:
        layers.append(weight)
    return cls(name, layers, dict(attrs, weighted=weight is not None))


def where_of(name: str, kind: str) -> str:
    """The evaluator as error messages name it."""
    return f"evaluator '{name}' ({kind})"


def total_stats(batches: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """The element-wise sum of several batches' statistics (host side).

    Example:
        ```python
        ev.result(total_stats([ev.batch_stats(v) for v in batch_values]))
        ```
    """
    keys = batches[0].keys() if batches else ()
    return {k: sum(np.asarray(b[k], np.float64) for b in batches) for k in keys}
