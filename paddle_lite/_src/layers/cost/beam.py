"""``cross_entropy_over_beam``: the globally normalised cost of learning to search.

A search runs ``E`` expansions. Expansion 0 scores the candidates of a sequence
(``s_0`` a sequence of scores, one row of ``K`` selected candidate indices); each
later expansion ``e`` scores, in a nested sequence, one sub-sequence per candidate
kept at expansion ``e-1`` (in order: row by row, skipping ``-1``), and selects ``K``
candidates in each (rows go to sub-sequences in batch order, as v2 reads them: a
sequence of rows, one per sub-sequence, such as ``kmax_seq_score`` of the nested
scores gives). A path is a chain of
selected candidates, one per expansion; its score is the sum of their scores.

The gold path (one gold index per expansion, inside the gold's sub-sequence) is
followed until the first expansion ``L`` whose selection misses it (or the last).
The cost is the softmax cross entropy of the gold path among all paths ending at
expansion ``L`` -- plus the gold path itself when it fell off the beam:
``cost = log sum_p exp(score_p) - score_gold`` (v2's CrossEntropyOverBeam).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, V2Layer, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.sequence.select import batch_rows, first_number, refuse_level
from paddle_lite._src.layers.sequence.slice import pack_valid
from paddle_lite._src.specs import Spec


class BeamInput:
    """One expansion of a beam search for ``cross_entropy_over_beam``.

    Args:
        candidate_scores: a layer of size 1: the score of every candidate (a sequence
            for the first expansion, a nested sequence for the later ones).
        selected_candidates: the indices of the ``K`` candidates kept
            (``kmax_seq_score`` of ``candidate_scores``).
        gold: the index of the gold candidate, one integer per sample.

    Example:
        >>> scores = paddle.layer.data(
        ...     name="scores", type=paddle.data_type.dense_vector_sequence(1))
        >>> gold = paddle.layer.data(name="gold", type=paddle.data_type.integer_value(50))
        >>> top = paddle.layer.kmax_seq_score(input=scores, beam_size=4)
        >>> beam = paddle.layer.BeamInput(
        ...     candidate_scores=scores, selected_candidates=top, gold=gold)
    """

    def __init__(self, candidate_scores: Layer, selected_candidates: Layer, gold: Layer) -> None:
        for arg, value in (
            ("candidate_scores", candidate_scores),
            ("selected_candidates", selected_candidates),
            ("gold", gold),
        ):
            base.as_layer(value, layer="BeamInput", arg=arg)
        if candidate_scores.size != 1:
            raise LayerConfigError(
                f"BeamInput: candidate_scores '{candidate_scores.name}' has size "
                f"{candidate_scores.size}; expected 1 (one score per candidate)."
            )
        self.candidate_scores = candidate_scores
        self.selected_candidates = selected_candidates
        self.gold = gold


def _expansion(scores: Any, selected: Any, first: bool) -> tuple[Any, Any]:
    """``(scores [B, S, T], candidates [B, S, K])`` of one expansion; a row past the
    number of sub-sequences holds only ``-1``."""
    if first:
        ones = jnp.ones_like(scores.lengths)
        return jnp.asarray(scores.data)[:, None, :, 0], batch_rows(selected, ones, 1)
    cand = batch_rows(selected, scores.lengths, scores.data.shape[1])
    return jnp.asarray(scores.data)[..., 0], cand


def _path_scores(scores: Any, cand: Any, previous: Any) -> Any:
    """Path scores ``[B, S, K]`` ending at each candidate: its score plus the score of
    its parent path (sub-sequence ``r`` extends the ``r``-th kept path before)."""
    idx = jnp.clip(cand.astype(jnp.int32), 0, scores.shape[2] - 1)
    own = jnp.take_along_axis(scores, idx, axis=2)
    if previous is None:
        return own
    kept, flat = previous
    parent, _ = pack_valid(kept.reshape(kept.shape[0], -1))
    n_sub = own.shape[1]
    parent = jnp.pad(parent, ((0, 0), (0, max(0, n_sub - parent.shape[1]))))[:, :n_sub]
    return own + jnp.take_along_axis(flat, parent, axis=1)[..., None]


def _cost_at(paths: Any, kept: Any, gold_score: Any, extra: Any) -> Any:
    """``log sum exp`` over the kept paths (and the gold path when ``extra``), minus
    the gold path's score."""
    b = paths.shape[0]
    flat = jnp.where(kept, paths, -jnp.inf).reshape(b, -1)
    extra = extra | ~kept.reshape(b, -1).any(axis=1)
    gold = jnp.where(extra, gold_score, -jnp.inf)[:, None]
    return jax.nn.logsumexp(jnp.concatenate([flat, gold], axis=1), axis=1) - gold_score


def beam_cost(beams: Sequence[tuple[Any, Any, Any]]) -> Any:
    """The cost ``[B]`` of each sample over ``beams`` of ``(scores, selected, gold)``."""
    b = beams[0][2].shape[0]
    row = jnp.zeros((b,), jnp.int32)
    alive = jnp.ones((b,), bool)
    gold_score = jnp.zeros((b,), beams[0][0].data.dtype)
    cost = jnp.zeros((b,), gold_score.dtype)
    previous = None
    for e, (scores, selected, gold) in enumerate(beams):
        sc, cand = _expansion(scores, selected, e == 0)
        paths, kept = _path_scores(sc, cand, previous), cand != -1
        g = first_number(gold)
        gold_score = gold_score + sc[jnp.arange(b), row, jnp.clip(g, 0, sc.shape[2] - 1)]
        hit = cand[jnp.arange(b), row] == g[:, None].astype(cand.dtype)
        found = hit.any(axis=1)
        ends_here = alive & (~found | (e == len(beams) - 1))
        cost = jnp.where(ends_here, _cost_at(paths, kept, gold_score, ~found), cost)
        flat_pos = row * cand.shape[2] + jnp.argmax(hit, axis=1)
        before = jnp.arange(kept[0].size)[None, :] < flat_pos[:, None]
        row = (kept.reshape(b, -1) & before).sum(axis=1).astype(jnp.int32)
        alive = alive & found
        previous = (kept, paths.reshape(b, -1))
    return cost


def _gold_positions(position: int, inputs: Sequence[Any], attrs: Any) -> float | None:
    """The gold of each beam (every third input) is a position, not a class id."""
    return math.inf if position % 3 == 2 else None


class CrossEntropyOverBeamKind(Kind):
    name = "cross_entropy_over_beam"
    v2 = V2Layer(size=0)  # v2 writes no size
    is_cost = True

    host = HostChecks(id_bounds=_gold_positions)

    def infer_spec(self, inputs, attrs):
        if not inputs or len(inputs) % 3:
            raise LayerConfigError(
                f"inputs come in (scores, selected, gold) triples; received {len(inputs)}."
            )
        width = inputs[1].size
        for e in range(len(inputs) // 3):
            scores, selected, gold = inputs[3 * e : 3 * e + 3]
            first = e == 0
            base.expect(scores, f"beam {e} candidate_scores", size=1)
            what = "a sequence" if first else "a nested sequence"
            refuse_level(scores, f"beam {e} candidate_scores", (1 if first else 2,), what)
            base.expect(selected, f"beam {e} selected_candidates", size=width, why=" (beam 0's)")
            rows = "rows of candidate indices"
            refuse_level(selected, f"beam {e} selected_candidates", (0, 1), rows)
            base.expect(gold, f"beam {e} gold", "dense_or_ids")
            refuse_level(gold, f"beam {e} gold", (0,), "one index per sample")
        return Spec(1)

    def apply(self, params, inputs, attrs, *, key, mode):
        beams = [tuple(inputs[i : i + 3]) for i in range(0, len(inputs), 3)]
        return beam_cost(beams)[:, None].astype(jnp.float32)


register_kind(CrossEntropyOverBeamKind())


@base.layer_function
def cross_entropy_over_beam(
    input: BeamInput | Sequence[BeamInput],
    name: str | None = None,
) -> Layer:
    """The cross entropy of the gold path over all paths of a multi-step beam search.

    ``cost = log sum_{p in paths} exp(score_p) - score_gold``, where a path's score is
    the sum of its candidates' scores over the expansions it runs through, and the
    paths are those of the first expansion whose beam misses the gold (or of the last
    expansion), plus the gold path when it fell off (see the module doc).

    Args:
        input: a ``BeamInput`` or a list of them, one per expansion.
        name: the layer name (default ``__cross_entropy_over_beam_<n>__``).

    Returns:
        A cost layer of size 1: one cost per sample.

    Example:
        >>> scores = paddle.layer.data(
        ...     name="scores", type=paddle.data_type.dense_vector_sequence(1))
        >>> gold = paddle.layer.data(name="gold", type=paddle.data_type.integer_value(50))
        >>> top = paddle.layer.kmax_seq_score(input=scores, beam_size=4)
        >>> cost = paddle.layer.cross_entropy_over_beam(input=paddle.layer.BeamInput(
        ...     candidate_scores=scores, selected_candidates=top, gold=gold))
        >>> cost.size
        1
    """
    name = base.layer_name(name, "cross_entropy_over_beam")
    beams = input if isinstance(input, (list, tuple)) else [input]
    if not beams:
        raise LayerConfigError(f"layer '{name}': input is an empty list; expected BeamInputs.")
    inputs = []
    for i, beam in enumerate(beams):
        if not isinstance(beam, BeamInput):
            raise LayerTypeError(
                f"layer '{name}': input[{i}] must be a paddle.layer.BeamInput; received "
                f"{beam!r} of type {type(beam).__name__}."
            )
        inputs += [beam.candidate_scores, beam.selected_candidates, beam.gold]
    return base.build("cross_entropy_over_beam", name=name, inputs=inputs, attrs={})
