"""v2's ``ctc_error`` evaluator (``ctc_edit_distance``): the edit distance of the CTC
best-path decode to the label.

The decode and the edit distance run inside ``batch_stats`` in pure jax: the distance is
a ``lax.scan`` over label positions with a vectorised row update.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_layer,
    check_sequence,
    declare,
    evaluator_name,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.values import Seq


def best_path(out: Seq) -> tuple[Any, Any]:
    """CTC best-path decode ``(ids [B, T], lengths [B])``: arg-max per step, repeats
    collapsed, blanks (the last class) dropped; ids past a length are -1."""
    blank = out.data.shape[-1] - 1
    path = jnp.argmax(out.data, axis=-1).astype(jnp.int32)
    n_step = path.shape[1]
    prev = jnp.pad(path, ((0, 0), (1, 0)), constant_values=-1)[:, :-1]
    valid = jnp.arange(n_step)[None, :] < out.lengths[:, None]
    keep = valid & (path != blank) & (path != prev)
    pos = jnp.where(keep, jnp.cumsum(keep, axis=1) - 1, n_step)
    rows = jnp.broadcast_to(jnp.arange(path.shape[0])[:, None], path.shape)
    ids = jnp.full(path.shape, -1, jnp.int32).at[rows, pos].set(path, mode="drop")
    return ids, jnp.sum(keep, axis=1, dtype=jnp.int32)


def edit_distance(ref: Any, ref_len: Any, hyp: Any, hyp_len: Any) -> Any:
    """Levenshtein distance ``[B]`` between id prefixes ``ref[b, :ref_len[b]]`` and
    ``hyp[b, :hyp_len[b]]`` (unit costs)."""
    n_hyp = hyp.shape[1]
    cols = jnp.arange(n_hyp + 1, dtype=jnp.int32)
    first = jnp.broadcast_to(cols, (ref.shape[0], n_hyp + 1))
    take = lambda row, j: jnp.take_along_axis(row, j[:, None], axis=1)[:, 0]  # noqa: E731

    def step(carry, x):
        prev, dist = carry
        i, sym = x
        cost = (sym[:, None] != hyp).astype(jnp.int32)
        diag = jnp.minimum(prev[:, 1:] + 1, prev[:, :-1] + cost)
        tmp = jnp.concatenate([jnp.full_like(prev[:, :1], i), diag], axis=1)
        row = jax.lax.cummin(tmp - cols, axis=1) + cols
        return (row, jnp.where(ref_len == i, take(row, hyp_len), dist)), None

    start = (first, take(first, hyp_len))
    xs = (jnp.arange(1, ref.shape[1] + 1, dtype=jnp.int32), ref.T)
    (_, dist), _ = jax.lax.scan(step, start, xs)
    return dist


class CtcError(Evaluator):
    """Normalised edit distance of the CTC best path to the label, averaged over sequences."""

    type = "ctc_edit_distance"
    KEYS = ("error", "deletion_error", "insertion_error", "substitution_error", "sequence_error")

    def batch_stats(self, values, valid=None):
        out, label = values
        hyp, hyp_len = best_path(out)
        dist = edit_distance(label.data, label.lengths, hyp, hyp_len).astype(jnp.float32)
        n, m = label.lengths.astype(jnp.float32), hyp_len.astype(jnp.float32)
        real = jnp.ones(n.shape, bool) if valid is None else jnp.asarray(valid, bool)
        longest = jnp.maximum(n, m)
        scale = jnp.where(real & (longest > 0), 1.0 / jnp.maximum(longest, 1.0), 0.0)
        dist = jnp.where(real, dist, 0.0)
        return {
            "error": jnp.sum(dist * scale),
            "deletion_error": jnp.sum(jnp.maximum(n - m, 0.0) * scale),
            "insertion_error": jnp.sum(jnp.maximum(m - n, 0.0) * scale),
            "substitution_error": jnp.sum((dist - jnp.abs(n - m)) * scale),
            "sequence_error": jnp.sum(dist != 0, dtype=jnp.float32),
            "sequences": jnp.sum(real, dtype=jnp.float32),
        }

    def result(self, stats):
        n = float(stats["sequences"])
        return {f"{self.name}.{k}": float(stats[k]) / n if n else 0.0 for k in self.KEYS}


@base.layer_function
def ctc_error(input: Layer, label: Layer, name: str | None = None) -> Evaluator:
    """Edit distance of the CTC best-path decode to the label (v2 ``ctc_edit_distance``).

    The decode takes the arg-max class per step, collapses repeats and drops the
    blank (the last class, ``input.size - 1``). Per sequence, with Levenshtein
    distance ``d``, label length ``n`` and decode length ``m``:

    $$
    error = d / \\max(n, m)
    $$

    averaged over sequences (0 when both are empty). Like v2's backtrace, the split
    reports ``deletion = max(n-m, 0)``, ``insertion = max(m-n, 0)`` and
    ``substitution = d - |n-m|``, each over ``max(n, m)``; ``sequence_error`` is the
    fraction of sequences with ``d > 0``.

    Args:
        input: the per-step class probabilities, a dense sequence of ``classes + 1``.
        label: the label ids, an integer sequence.
        name: the key prefix (default ``__ctc_error_evaluator_<n>__``).

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metrics ``name.error``,
        ``name.deletion_error``, ``name.insertion_error``, ``name.substitution_error``,
        ``name.sequence_error``.

    Example:
        ```python
        paddle.evaluator.ctc_error(input=prob_seq, label=label_seq)
        ```
    """
    name = evaluator_name(name, "ctc_error_evaluator")
    where = where_of(name, "ctc_error")
    inp = check_layer(input, where, "input")
    lbl = check_layer(label, where, "label", mode="ids")
    if inp.spec.size < 2:
        raise LayerConfigError(
            f"{where}: input '{inp.name}' has size {inp.spec.size}; expected the classes "
            "plus a blank (at least 2)."
        )
    check_sequence(inp, where, "input")
    check_sequence(lbl, where, "label")
    return declare(build(CtcError, name, [inp, lbl], {}))
