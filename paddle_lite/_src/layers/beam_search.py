"""Beam search over a step graph as one ``lax.while_loop`` on ``[batch, beam]`` state.

The search follows v2's ``RecurrentGradientMachine::beamSearch``:

- every live path proposes its ``beam_size`` most probable next words (v2's
  ``max_id`` with a beam), scored ``logprob(path) + log p(word)``;
- a proposal that is ``eos`` (or reaches ``max_length`` words) ends its path, which
  joins the source's finished paths; the best ``beam_size`` other proposals stay live;
- finished paths scoring below the worst live path are dropped; a source stops once
  it holds ``beam_size`` finished paths and none of its live paths beats the worst
  score ever finished (v2's ``minFinalPathLogProb``);
- the loop ends when no source has a live path, or after ``max_length`` steps.

The results are the ``num_results`` best finished paths of each source, words
including the final ``eos``. Finished paths are kept in a buffer of ``beam_size`` per
source, which gives the same results as v2's unbounded list: a dropped path is worse
than every kept one, so it would have been dropped or ranked out there too.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src.step_graph import StepGraph, run_step
from paddle_lite._src.typing import data_of

NEG = -jnp.inf


class BeamResult(NamedTuple):
    """Generated sequences (a jax pytree): ``ids`` int32 ``[B, N, L]``, ``lengths``
    ``[B, N]`` (0 for a missing result), ``scores`` ``[B, N]`` (sequence log
    probabilities, best first; ``-inf`` when missing) and ``word_scores`` ``[B, N, L]``
    (each word's log probability)."""

    ids: Any
    lengths: Any
    scores: Any
    word_scores: Any


class _State(NamedTuple):
    t: Any
    mems: Any
    scores: Any  # [B, K] live paths' log probabilities (-inf: no path)
    ids: Any  # [B, K, L]
    words: Any  # [B, K, L] per-word log probabilities
    f_scores: Any  # [B, K] finished paths
    f_ids: Any
    f_words: Any
    f_len: Any  # [B, K]
    min_final: Any  # [B] v2's minFinalPathLogProb (starts at 0)


def _take(x: Any, idx: Any) -> Any:
    """``x[b, idx[b, j], ...]`` for ``x [B, M, ...]`` and ``idx [B, J]``."""
    idx = idx.reshape(idx.shape + (1,) * (x.ndim - 2))
    return jnp.take_along_axis(x, idx, axis=1)


def _by_parent(mem: Any, parent: Any, batch: int, beam: int) -> Any:
    """Rows of a ``[B*K, ...]`` memory reordered to follow each new path's parent."""
    rows = mem.reshape((batch, beam) + mem.shape[1:])
    return _take(rows, parent).reshape(mem.shape)


def _initial(mems: Any, batch: int, beam: int, length: int) -> _State:
    first = jnp.where(jnp.arange(beam) == 0, 0.0, NEG)
    zeros_i = jnp.zeros((batch, beam, length), jnp.int32)
    zeros_f = jnp.zeros((batch, beam, length), jnp.float32)
    return _State(
        t=jnp.int32(0),
        mems=mems,
        scores=jnp.broadcast_to(first, (batch, beam)).astype(jnp.float32),
        ids=zeros_i,
        words=zeros_f,
        f_scores=jnp.full((batch, beam), NEG, jnp.float32),
        f_ids=zeros_i,
        f_words=zeros_f,
        f_len=jnp.zeros((batch, beam), jnp.int32),
        min_final=jnp.zeros((batch,), jnp.float32),
    )


def _proposals(state: _State, probs: Any, beam: int) -> tuple[Any, Any, Any, Any]:
    """Each live path's ``beam`` best words: ``(scores, words, word logp, parent)``."""
    batch = state.scores.shape[0]
    top_p, top_i = lax.top_k(probs, beam)
    logp = jnp.log(top_p)
    scores = (state.scores.reshape(-1, 1) + logp).reshape(batch, beam * beam)
    parent = jnp.broadcast_to(jnp.repeat(jnp.arange(beam), beam), (batch, beam * beam))
    return scores, top_i.reshape(batch, -1), logp.reshape(batch, -1), parent


def _histories(state: _State, parent: Any, words: Any, logp: Any) -> tuple[Any, Any]:
    """The word and word-score histories of proposals extending ``parent`` paths."""
    ids = _take(state.ids, parent).at[:, :, state.t].set(words)
    wl = _take(state.words, parent).at[:, :, state.t].set(logp)
    return ids, wl


def _finish(state, cand, fin, ids, wl, min_live, has_live, beam):  # noqa: ANN001, ANN202
    """Merge finished proposals into the finished paths; v2's pruning and running min."""
    scores = jnp.concatenate([state.f_scores, jnp.where(fin, cand, NEG)], axis=1)
    scores = jnp.where(has_live[:, None] & (scores < min_live[:, None]), NEG, scores)
    lowest = jnp.min(jnp.where(jnp.isfinite(scores), scores, jnp.inf), axis=1)
    min_final = jnp.where(has_live, jnp.minimum(state.min_final, lowest), state.min_final)
    f_scores, sel = lax.top_k(scores, beam)
    lengths = jnp.concatenate([state.f_len, jnp.full(cand.shape, state.t + 1, jnp.int32)], axis=1)
    f_ids = _take(jnp.concatenate([state.f_ids, ids], axis=1), sel)
    f_words = _take(jnp.concatenate([state.f_words, wl], axis=1), sel)
    return f_scores, f_ids, f_words, _take(lengths, sel), min_final


def _advance(state: _State, values: dict, spec: dict) -> _State:
    """One search step from the step graph's values at the live paths."""
    beam, eos, max_length = spec["beam_size"], spec["eos_id"], spec["max_length"]
    batch = state.scores.shape[0]
    probs = data_of(values[spec["prob"]])
    cand, words, logp, parent = _proposals(state, probs, beam)
    ids, wl = _histories(state, parent, words, logp)
    ended = (words == eos) | (state.t + 1 >= max_length)
    valid = jnp.isfinite(cand)
    live_sc, sel = lax.top_k(jnp.where(valid & ~ended, cand, NEG), beam)
    kept = jnp.isfinite(live_sc)
    has_live = kept.any(axis=1)
    min_live = jnp.min(jnp.where(kept, live_sc, jnp.inf), axis=1)
    max_live = jnp.max(jnp.where(kept, live_sc, NEG), axis=1)
    f_scores, f_ids, f_words, f_len, min_final = _finish(
        state, cand, valid & ended, ids, wl, min_live, has_live, beam
    )
    full = jnp.isfinite(f_scores).sum(axis=1) >= beam
    stop = has_live & full & (min_final >= max_live)
    live_parent = _take(parent, sel)
    mems = {
        name: _by_parent(values[target], live_parent, batch, beam) for name, target in spec["links"]
    }
    mems[spec["predict_memory"]] = _take(words, sel).reshape(-1)
    return _State(
        t=state.t + 1,
        mems=mems,
        scores=jnp.where(stop[:, None], NEG, live_sc),
        ids=_take(ids, sel),
        words=_take(wl, sel),
        f_scores=f_scores,
        f_ids=f_ids,
        f_words=f_words,
        f_len=f_len,
        min_final=min_final,
    )


def _tile(value: Any, beam: int) -> Any:
    """Each sample's value repeated for its ``beam`` paths (rows ``b*K .. b*K+K-1``)."""
    return jax.tree_util.tree_map(lambda x: jnp.repeat(x, beam, axis=0), value)


def search(
    graph: StepGraph, params: Any, env: dict, mems: dict, batch: int, spec: dict
) -> BeamResult:
    """Run the beam search; ``env`` and ``mems`` hold one row per source.

    ``spec`` holds ``beam_size``, ``eos_id``, ``max_length``, ``num_results``,
    ``prob`` (the step's probability layer), ``predict_memory`` (the memory of the
    previous word) and ``links`` (``(memory, layer)`` pairs of the other memories).
    """
    beam, length = spec["beam_size"], spec["max_length"]
    env = _tile(env, beam)

    def cond(state: _State) -> Any:
        return (state.t < length) & jnp.isfinite(state.scores).any()

    def body(state: _State) -> _State:
        values = run_step(graph, {**env, **state.mems}, params, key=None, mode="test")
        return _advance(state, values, spec)

    state = lax.while_loop(cond, body, _initial(_tile(mems, beam), batch, beam, length))
    n = spec["num_results"]
    return BeamResult(
        ids=state.f_ids[:, :n],
        lengths=jnp.where(jnp.isfinite(state.f_scores[:, :n]), state.f_len[:, :n], 0),
        scores=state.f_scores[:, :n],
        word_scores=state.f_words[:, :n],
    )
