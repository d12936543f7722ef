"""v2's ``chunk`` evaluator: the segment F1 of a tagger (IOB, IOE, IOBES, plain chunks).

It decodes whole sequences inside ``batch_stats`` in pure jax (no host hook): chunk
boundaries are element-wise functions of neighbouring tags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_layer,
    check_sequence,
    declare,
    evaluator_name,
    fit_steps,
    positive_int,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base

# scheme -> (tags per chunk type, begin, inside, end, single); -1 = the scheme has no such tag
SCHEMES: Mapping[str, tuple[int, int, int, int, int]] = {
    "IOB": (2, 0, 1, -1, -1),
    "IOE": (2, -1, 0, 1, -1),
    "IOBES": (4, 0, 1, 2, 3),
    "plain": (1, -1, -1, -1, -1),
}


def _is_end(pt, pty, t, ty, scheme, other):
    """v2 ``isChunkEnd``: does the chunk holding (pt, pty) end before (t, ty)?"""
    _, b, i, e, s = scheme
    same_kind = jnp.where((pt == b) | (pt == i), (t == b) | (t == s), (pt == e) | (pt == s))
    return jnp.where(pty == other, False, jnp.where((ty == other) | (ty != pty), True, same_kind))


def _is_begin(pt, pty, t, ty, scheme, other):
    """v2 ``isChunkBegin``: does a chunk start at (t, ty) after (pt, pty)?"""
    _, b, i, e, s = scheme
    after_end = (pt == e) | (pt == s)
    same_kind = (t == b) | (t == s) | (((t == i) | (t == e)) & after_end)
    return jnp.where(
        pty == other,
        ty != other,
        jnp.where(ty == other, False, jnp.where(ty != pty, True, same_kind)),
    )


def chunk_segments(ids: Any, lengths: Any, scheme: tuple[int, ...], n_types: int):
    """Chunks of tag sequences ``[B, T]``: ``(ends, starts, types)``, each ``[B, T]``.

    ``ends[b, k]`` marks a chunk ending at step k; ``starts[b, k]`` is the step the
    chunk holding step k began at, ``types[b, k]`` its chunk type. Steps past a
    length, and ids whose type is not below ``n_types`` (the "O" tag), are outside.
    """
    n_tag, other = scheme[0], n_types
    steps = jnp.arange(ids.shape[1])
    ids = jnp.where(steps[None, :] < lengths[:, None], jnp.maximum(ids, 0), other * n_tag)
    tag, typ = ids % n_tag, ids // n_tag
    typ = jnp.where(typ >= other, other, typ)
    prev_tag = jnp.pad(tag, ((0, 0), (1, 0)), constant_values=-1)[:, :-1]
    prev_typ = jnp.pad(typ, ((0, 0), (1, 0)), constant_values=other)[:, :-1]
    next_tag = jnp.pad(tag, ((0, 0), (0, 1)), constant_values=0)[:, 1:]
    next_typ = jnp.pad(typ, ((0, 0), (0, 1)), constant_values=other)[:, 1:]
    begins = _is_begin(prev_tag, prev_typ, tag, typ, scheme, other)
    ends = _is_end(tag, typ, next_tag, next_typ, scheme, other)
    starts = jax.lax.cummax(jnp.where(begins, steps[None, :], -1), axis=1)
    return ends, starts, typ


def _count(mask: Any) -> Any:
    return jnp.sum(mask, dtype=jnp.float32)


class Chunk(Evaluator):
    """Chunk precision / recall / F1 from counts of inferred, labelled and correct chunks."""

    type = "chunk"

    def batch_stats(self, values, valid=None):
        out, label = values
        lengths = label.lengths if valid is None else jnp.where(valid, label.lengths, 0)
        scheme, n_types = SCHEMES[self.attrs["chunk_scheme"]], self.attrs["num_chunk_types"]
        pred = out.data
        if not jnp.issubdtype(pred.dtype, jnp.integer):
            pred = jnp.argmax(pred, axis=-1).astype(jnp.int32)
        pred = fit_steps(pred.reshape(pred.shape[0], -1), label.data.shape[:2], n_types * scheme[0])
        o_end, o_start, o_type = chunk_segments(pred, lengths, scheme, n_types)
        l_end, l_start, l_type = chunk_segments(label.data, lengths, scheme, n_types)
        excluded = jnp.asarray(self.attrs["excluded_chunk_types"] + (-1,), jnp.int32)
        o_keep = o_end & ~jnp.isin(o_type, excluded)
        l_keep = l_end & ~jnp.isin(l_type, excluded)
        correct = o_keep & l_end & (o_type == l_type) & (o_start == l_start)
        return {
            "num_infer_chunks": _count(o_keep),
            "num_label_chunks": _count(l_keep),
            "num_correct_chunks": _count(correct),
        }

    def result(self, stats):
        infer, label = float(stats["num_infer_chunks"]), float(stats["num_label_chunks"])
        correct = float(stats["num_correct_chunks"])
        precision = correct / infer if infer else 0.0
        recall = correct / label if label else 0.0
        f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
        return {
            f"{self.name}.precision": precision,
            f"{self.name}.recall": recall,
            f"{self.name}.F1-score": f1,
        }


def _chunk_attrs(
    where: str, chunk_scheme: Any, num_chunk_types: Any, excluded: Any
) -> dict[str, Any]:
    if chunk_scheme not in SCHEMES:
        raise LayerConfigError(
            f"{where}: chunk_scheme is {chunk_scheme!r}; expected one of {list(SCHEMES)}."
        )
    n_types = positive_int(num_chunk_types, where, "num_chunk_types")
    excluded = () if excluded is None else excluded
    if not isinstance(excluded, (list, tuple)) or not all(
        isinstance(e, int) and not isinstance(e, bool) for e in excluded
    ):
        raise LayerTypeError(
            f"{where}: excluded_chunk_types must be a list of int chunk types; "
            f"received {excluded!r}."
        )
    return {
        "chunk_scheme": chunk_scheme,
        "num_chunk_types": n_types,
        "excluded_chunk_types": tuple(excluded),
    }


@base.layer_function
def chunk(
    input: Layer,
    label: Layer,
    chunk_scheme: str,
    num_chunk_types: int,
    name: str | None = None,
    excluded_chunk_types: Sequence[int] | None = None,
) -> Evaluator:
    """Chunk detection precision, recall and F1 of a sequence tagger (v2 ``chunk``).

    A tag id encodes ``chunk_type * n_tags + tag`` with per-scheme tags (IOB: B0 I1;
    IOE: I0 E1; IOBES: B0 I1 E2 S3; plain: one tag) and "O" =
    ``num_chunk_types * n_tags``. Chunks are decoded from ``input`` and ``label`` with
    v2's begin/end rules; a chunk is correct when its start, end and type all match.

    $$
    P = correct / inferred, \\quad R = correct / labelled, \\quad
    F1 = 2PR / (P + R)
    $$

    (0 when a count is 0). Chunks whose type is in ``excluded_chunk_types`` count
    nowhere. Ids of a type beyond ``num_chunk_types`` are read as "O".

    Args:
        input: the predicted tag ids, an integer sequence (e.g. ``crf_decoding``); a
            dense sequence is read through its arg-max.
        label: the true tag ids, an integer sequence.
        chunk_scheme: ``"IOB"``, ``"IOE"``, ``"IOBES"`` or ``"plain"``.
        num_chunk_types: the number of chunk types other than "O".
        name: the key prefix (default ``__chunk_evaluator_<n>__``).
        excluded_chunk_types: chunk types to leave out.

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metrics ``name.precision``,
        ``name.recall``, ``name.F1-score``.

    Example:
        ```python
        paddle.evaluator.chunk(input=crf_dec, label=target, chunk_scheme="IOB",
                               num_chunk_types=(len(label_dict) - 1) // 2)
        ```
    """
    name = evaluator_name(name, "chunk_evaluator")
    where = where_of(name, "chunk")
    attrs = _chunk_attrs(where, chunk_scheme, num_chunk_types, excluded_chunk_types)
    inp = check_layer(input, where, "input", mode="dense_or_ids")
    lbl = check_layer(label, where, "label", mode="ids")
    check_sequence(inp, where, "input")
    check_sequence(lbl, where, "label")
    return declare(build(Chunk, name, [inp, lbl], attrs))
