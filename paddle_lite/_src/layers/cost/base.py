"""The shared cost machinery: ``CostKind``, ``build_cost`` and their helpers.

``CostKind`` is a cost over named inputs, per sample, weighted and summed over the
valid steps of a sequence; ``build_cost`` checks a cost function's arguments and
builds its node; ``check_same_size``, ``safe_log`` and ``as_target`` are the check,
the safe logarithm and the label conversion that the cost families (``cost``,
``cost.rank``, ``cost.robust``) share. The contract every cost follows is stated in
``cost``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, LengthRule
from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq, data_of, nan_unless, paired_rows, step_mask

TINY = 1e-37


def safe_log(p: Any) -> Any:
    """``log(max(p, 1e-37))``."""
    return jnp.log(jnp.maximum(p, TINY))


def clip_value_only(x: Any, bound: float) -> Any:
    """``x`` clipped to ``[-bound, bound]`` in value, with the gradient of ``x`` itself.

    v2's kernels clip a score before a softrelu in the forward pass, and their hand-written
    backward, ``sigmoid(clipped) - target``, flows on beyond the clip.
    """
    return x + jax.lax.stop_gradient(jnp.clip(x, -bound, bound) - x)


def as_target(label: Any, like: Any) -> Any:
    """A float label per row: ids ``[...]`` or dense ``[..., 1]`` values."""
    label = label if label.ndim < like.ndim else label[..., 0]
    return label.astype(jnp.float32)


def per_sample(cost: Any, template: Any, weight: Any, coeff: float) -> Any:
    """``weight * cost`` summed over the valid steps of ``template``: ``[B, 1]``.

    As in v2, ``coeff`` scales the gradient only: the value is the unscaled cost.
    """
    if isinstance(weight, Seq):
        cost = cost * weight.data[..., 0]
    if isinstance(template, Seq):
        cost = jnp.where(step_mask(template), cost, 0.0).sum(axis=tuple(range(1, cost.ndim)))
    if weight is not None and not isinstance(weight, Seq):
        cost = cost * weight[:, 0]
    if coeff != 1.0:
        cost = coeff * cost + jax.lax.stop_gradient((1.0 - coeff) * cost)
    return cost[:, None].astype(jnp.float32)


@dataclasses.dataclass(frozen=True)
class OneRowPerSample(LengthRule):
    """A sequence input beside plain ones holds one row per sample (v2 paired the rows
    of the whole batch)."""

    position: int

    def broken(self, lengths: np.ndarray) -> np.ndarray:
        return lengths != 1

    def says(self, row: int, length: int) -> str:
        return (
            f"is a sequence beside plain inputs, so it needs one row per sample; sample {row} "
            f"has {length}. v2 paired the rows of the whole batch (it stopped where their "
            "counts differed, and paired rows of different samples where only the totals "
            "agreed); make the label a sequence too, or reduce the sequence to one row "
            "(last_seq, pooling)."
        )


@dataclasses.dataclass(frozen=True)
class CostChecks(HostChecks):
    """What the host checks before a cost: its inputs' rows pair, and a sequence among
    plain inputs has one row per sample."""

    aligns_rows: bool = True

    def length_rules(self, inputs, attrs):
        named = len(inputs) - bool(attrs.get("weighted", False))  # a weight comes last
        if {s.seq_level for s in inputs[:named]} != {0, 1}:
            return ()
        return tuple(OneRowPerSample(i) for i, s in enumerate(inputs) if s.seq_level)


def class_ids(position: int, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> int | None:
    """``HostChecks.id_bounds`` of a cost whose label (input 1) holds class ids, which
    index its input's columns."""
    return inputs[0].size if position == 1 else None


class CostKind(Kind):
    """A cost over the inputs named ``args``, plus a trailing ``weight`` when weighted.

    Subclasses define ``check(specs, attrs)`` (build-time checks of the named input
    specs) and ``step_cost(values, attrs)``: the cost of each row, or each step of a
    sequence, from the inputs' data arrays (shape: the first input's data shape
    without its feature axis).
    """

    args: tuple[str, ...] = ("input", "label")
    host: HostChecks = CostChecks()
    is_cost = True
    scales_by_coeff = True  # v2's CostLayer::backward scaled the gradient by coeff

    def check(self, specs: Mapping[str, Spec], attrs: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def step_cost(self, values: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def infer_spec(self, inputs, attrs):
        specs = dict(zip(self.args, inputs, strict=False))
        levels = {arg: s.seq_level for arg, s in specs.items()}
        if len(set(levels.values())) > 1 and set(levels.values()) != {0, 1}:
            raise LayerConfigError(
                f"inputs have different sequence levels {levels}; they must all be plain "
                "values (0), all sequences of the same level, or plain values beside "
                "sequences of one row per sample (1)."
            )
        self.check(specs, attrs)
        if attrs.get("weighted", False):
            weight = inputs[len(self.args)]
            base.expect(weight, "weight", size=1, why=" (one weight per sample)")
            if weight.seq_level not in (0, inputs[0].seq_level):
                raise LayerConfigError(
                    f"weight has seq_level {weight.seq_level}; expected 0 (per sample) or "
                    f"{inputs[0].seq_level} (per step)."
                )
        return Spec(1)

    def apply(self, params, inputs, attrs, *, key, mode):
        # Plain values beside sequences: v2 paired the batch's rows, which is one row
        # per sample when each sequence has one; a sample with another count costs NaN
        # (the host refuses those it can see: ``feeding.lengths``).
        n = len(self.args)
        weighted = attrs.get("weighted", False)
        values, one_row = paired_rows(list(inputs[:n]))
        weight = inputs[n] if weighted else None
        if one_row is not None and isinstance(weight, Seq):
            one_row, weight = one_row & (weight.lengths == 1), weight.data[:, 0]
        cost = self.step_cost([data_of(v) for v in values], attrs)
        coeff = attrs.get("coeff", 1.0) if self.scales_by_coeff else 1.0
        out = per_sample(cost, values[0], weight, coeff)
        return nan_unless(out, one_row)


def build_cost(
    kind: str,
    *,
    name: str,
    args: Sequence[tuple[str, Any]],
    weight: Any = None,
    coeff: Any = 1.0,
    layer_attr: Any = None,
    **attrs: Any,
) -> Layer:
    """Check the arguments of a cost function and build its node."""
    inputs = [base.as_layer(value, layer=name, arg=arg) for arg, value in args]
    if weight is not None:
        inputs.append(base.as_layer(weight, layer=name, arg="weight"))
    base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    full = {
        "coeff": base.number(coeff, layer=name, arg="coeff"),
        "weighted": weight is not None,
        **attrs,
    }
    return base.build(kind, name=name, inputs=inputs, attrs=full)


def check_same_size(specs: Mapping[str, Spec], mode: str = "dense") -> None:
    """A label of the input's size (``mode`` as in ``base.expect``); an id label gets
    v2's story and the fix."""
    base.expect(specs["input"], "input")
    n = specs["input"].size
    with v2_note(
        "it read the label's dense values, which an integer_value label does not have",
        f"declare the target as paddle.data_type.dense_vector({n}) (one float per output); "
        "for class ids use classification_cost or cross_entropy_cost",
    ):
        base.expect(specs["label"], "label", mode, size=n, why=" (= input.size)")


@contextlib.contextmanager
def v2_note(what_v2_did: str, fix: str) -> Iterator[None]:
    """Turn a check v2 did not make when building into a refusal to run, with the fix.

    v2 built several malformed cost layers without complaint and only failed once training
    ran. As in v2 such a layer is built and parsed (with a warning); compiling or running
    it raises ``LayerConfigError`` with this message (see ``base.cannot_run``).
    """
    try:
        yield
    except LayerConfigError as exc:
        base.cannot_run(
            f"{exc} v2 built such a layer without complaint and failed when it ran "
            f"({what_v2_did}). Fix: {fix}."
        )
