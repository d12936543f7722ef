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

Paths are kept as back-pointers: each step records, per live path, its last word, that
word's log probability and the live path it extends (``[max_length, B, K]`` rows, one
written per step), and a finished path records its last word and the live path it
extends. The words are read back once, after the search, by walking the pointers
backwards over the steps run; a step costs the same whatever ``max_length`` is.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src.step_graph import StepGraph, next_memory, run_step
from paddle_lite._src.values import data_of

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
    words: Any  # [L, B, K] row t: each live path's word at step t
    logp: Any  # [L, B, K] that word's log probability
    parent: Any  # [L, B, K] the live path (at step t - 1) it extends
    f_scores: Any  # [B, K] finished paths
    f_word: Any  # [B, K] their last word
    f_logp: Any  # [B, K] its log probability
    f_parent: Any  # [B, K] the live path (at step f_len - 2) they extend
    f_len: Any  # [B, K]
    min_final: Any  # [B] v2's minFinalPathLogProb (starts at 0)


def _take(x: Any, idx: Any) -> Any:
    """``x[b, idx[b, j], ...]`` for ``x [B, M, ...]`` and ``idx [B, J]``."""
    idx = idx.reshape(idx.shape + (1,) * (x.ndim - 2))
    return jnp.take_along_axis(x, idx, axis=1)


def _by_parent(mem: Any, parent: Any, batch: int, beam: int) -> Any:
    """Rows of a ``[B*K, ...]`` memory (each leaf of a sequence memory) reordered to
    follow each new path's parent."""

    def rows(x: Any) -> Any:
        return _take(x.reshape((batch, beam) + x.shape[1:]), parent).reshape(x.shape)

    return jax.tree_util.tree_map(rows, mem)


def _initial(mems: Any, batch: int, beam: int, length: int) -> _State:
    first = jnp.where(jnp.arange(beam) == 0, 0.0, NEG)
    rows_i = jnp.zeros((length, batch, beam), jnp.int32)
    zeros_i = jnp.zeros((batch, beam), jnp.int32)
    return _State(
        t=jnp.int32(0),
        mems=mems,
        scores=jnp.broadcast_to(first, (batch, beam)).astype(jnp.float32),
        words=rows_i,
        logp=jnp.zeros((length, batch, beam), jnp.float32),
        parent=rows_i,
        f_scores=jnp.full((batch, beam), NEG, jnp.float32),
        f_word=zeros_i,
        f_logp=jnp.zeros((batch, beam), jnp.float32),
        f_parent=zeros_i,
        f_len=zeros_i,
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


def _finish(state, cand, fin, last, min_live, has_live, beam):
    """Merge finished proposals into the finished paths; v2's pruning and running min.

    ``last`` holds the proposals' ``(word, log prob, parent)``."""
    scores = jnp.concatenate([state.f_scores, jnp.where(fin, cand, NEG)], axis=1)
    scores = jnp.where(has_live[:, None] & (scores < min_live[:, None]), NEG, scores)
    lowest = jnp.min(jnp.where(jnp.isfinite(scores), scores, jnp.inf), axis=1)
    min_final = jnp.where(has_live, jnp.minimum(state.min_final, lowest), state.min_final)
    f_scores, sel = lax.top_k(scores, beam)
    length = jnp.full(cand.shape, state.t + 1, jnp.int32)
    old = (state.f_word, state.f_logp, state.f_parent, state.f_len)
    kept = [
        _take(jnp.concatenate([o, n], axis=1), sel)
        for o, n in zip(old, (*last, length), strict=True)
    ]
    return f_scores, *kept, min_final


def _advance(state: _State, values: dict, spec: dict) -> _State:
    """One search step from the step graph's values at the live paths."""
    beam, eos, max_length = spec["beam_size"], spec["eos_id"], spec["max_length"]
    batch = state.scores.shape[0]
    probs = data_of(values[spec["prob"]])
    cand, words, logp, parent = _proposals(state, probs, beam)
    ended = (words == eos) | (state.t + 1 >= max_length)
    valid = jnp.isfinite(cand)
    live_sc, sel = lax.top_k(jnp.where(valid & ~ended, cand, NEG), beam)
    kept = jnp.isfinite(live_sc)
    has_live = kept.any(axis=1)
    min_live = jnp.min(jnp.where(kept, live_sc, jnp.inf), axis=1)
    max_live = jnp.max(jnp.where(kept, live_sc, NEG), axis=1)
    f_scores, f_word, f_logp, f_parent, f_len, min_final = _finish(
        state, cand, valid & ended, (words, logp, parent), min_live, has_live, beam
    )
    full = jnp.isfinite(f_scores).sum(axis=1) >= beam
    stop = has_live & full & (min_final >= max_live)
    live_parent = _take(parent, sel)
    mems = {
        name: _by_parent(next_memory(values[target], state.mems[name]), live_parent, batch, beam)
        for name, target in spec["links"]
    }
    live_word = _take(words, sel)
    mems[spec["predict_memory"]] = live_word.reshape(-1)
    return _State(
        t=state.t + 1,
        mems=mems,
        scores=jnp.where(stop[:, None], NEG, live_sc),
        words=state.words.at[state.t].set(live_word),
        logp=state.logp.at[state.t].set(_take(logp, sel)),
        parent=state.parent.at[state.t].set(live_parent),
        f_scores=f_scores,
        f_word=f_word,
        f_logp=f_logp,
        f_parent=f_parent,
        f_len=f_len,
        min_final=min_final,
    )


def _backtrack(state: _State, n: int) -> tuple[Any, Any]:
    """The words and word log probabilities ``[B, n, L]`` of the ``n`` best finished
    paths, read back from the pointers (zeros past each path's end)."""
    end = jnp.where(jnp.isfinite(state.f_scores[:, :n]), state.f_len[:, :n], 0) - 1
    at_end = jnp.arange(state.words.shape[0]) == end[..., None]  # [B, n, L]
    ids = jnp.where(at_end, state.f_word[:, :n, None], 0)
    word_scores = jnp.where(at_end, state.f_logp[:, :n, None], 0.0)

    def body(carry: tuple) -> tuple:
        s, slot, ids, word_scores = carry
        on = s < end  # the paths that have a word at step s
        here = jnp.arange(ids.shape[-1]) == s

        def read(rows: Any) -> Any:
            return jnp.take_along_axis(rows[s], slot, axis=1)

        ids = jnp.where(here & on[..., None], read(state.words)[..., None], ids)
        word_scores = jnp.where(here & on[..., None], read(state.logp)[..., None], word_scores)
        return s - 1, jnp.where(on, read(state.parent), slot), ids, word_scores

    start = (state.t - 1, state.f_parent[:, :n], ids, word_scores)
    _, _, ids, word_scores = lax.while_loop(lambda c: c[0] >= 0, body, start)
    return ids, word_scores


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
        values, _ = run_step(graph, {**env, **state.mems}, params, key=None, mode="test")
        return _advance(state, values, spec)

    state = lax.while_loop(cond, body, _initial(_tile(mems, beam), batch, beam, length))
    n = spec["num_results"]
    ids, word_scores = _backtrack(state, n)
    return BeamResult(
        ids=ids,
        lengths=jnp.where(jnp.isfinite(state.f_scores[:, :n]), state.f_len[:, :n], 0),
        scores=state.f_scores[:, :n],
        word_scores=word_scores,
    )
