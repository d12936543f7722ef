"""Plain JAX + optax reference for chapter 8: the attention GRU encoder-decoder.

The book's ``seq_to_seq_net`` in training mode, written directly: a shared-nothing
source embedding, a forward and a backward GRU over the source (each behind a 3H
transform without bias), the decoder booted from ``tanh(W · backward[0])``, and a
teacher-forced GRU decoder whose every step attends over the encoded source (state
projection, ``tanh`` with the encoded projection, a scalar score, a softmax over the
source positions, the weighted sum) before its 3D input transform; the output is a
softmax over the target dictionary. The cost is the cross entropy summed over the
target words of the batch; Adam at the book's rate. See :mod:`bench.jax_nets` for the
conventions.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax

from bench.jax_nets import JaxNet
from bench.jax_nets_deep import scan_masked


def gru_cell(p: dict, x: Any, h: Any) -> Any:
    """v2's GRU step: ``x`` ``[B, 3H]`` (update, reset, candidate parts)."""
    h_dim = h.shape[-1]
    xu, xr, xc = jnp.split(x + p["b"], 3, axis=-1)
    u = jax.nn.sigmoid(xu + h @ p["w"][:, :h_dim])
    r = jax.nn.sigmoid(xr + h @ p["w"][:, h_dim : 2 * h_dim])
    c = jnp.tanh(xc + (r * h) @ p["w"][:, 2 * h_dim :])
    return (1.0 - u) * h + u * c


def gru_seq(p: dict, x: Any, mask: Any, lengths: Any, reverse: bool) -> Any:
    """A GRU over ``x`` ``[B, T, 3H]``, masked past each length (reversed within it)."""

    def cell(h, x_t):
        h_new = gru_cell(p, x_t, h)
        return h_new, h_new

    h0 = jnp.zeros((x.shape[0], p["w"].shape[0]), x.dtype)
    return scan_masked(cell, h0, x, mask, lengths, reverse)


def _normal(key: Any, shape: tuple[int, ...]) -> Any:
    return jax.random.normal(key, shape) / np.sqrt(shape[0])  # v2's smart init


def _init(key: Any, dict_size: int, emb: int, enc: int, dec: int) -> tuple[dict, dict]:
    k = iter(jax.random.split(key, 16))
    gru = lambda n_in, h: {  # noqa: E731 - the 3H transform, then the cell
        "t": _normal(next(k), (n_in, 3 * h)),
        "w": _normal(next(k), (h, 3 * h)),
        "b": jnp.zeros(3 * h),
    }
    params = {
        "src_emb": _normal(next(k), (dict_size, emb)),
        "trg_emb": _normal(next(k), (dict_size, emb)),
        "fwd": gru(emb, enc),
        "bwd": gru(emb, enc),
        "enc_proj": _normal(next(k), (2 * enc, dec)),
        "boot": _normal(next(k), (enc, dec)),
        "att_state": _normal(next(k), (dec, dec)),
        "att_score": _normal(next(k), (dec, 1)),
        "in_context": _normal(next(k), (2 * enc, 3 * dec)),
        "in_word": _normal(next(k), (emb, 3 * dec)),
        "dec": {"w": _normal(next(k), (dec, 3 * dec)), "b": jnp.zeros(3 * dec)},
        "out": {"w": _normal(next(k), (dec, dict_size)), "b": jnp.zeros(dict_size)},
    }
    return params, {}


def _attend(p: dict, h: Any, enc: Any, enc_proj: Any, src_mask: Any) -> Any:
    """``simple_attention``: the context ``[B, 2E]`` for decoder states ``h`` ``[B, D]``."""
    m = jnp.tanh((h @ p["att_state"])[:, None, :] + enc_proj)
    score = jnp.where(src_mask, (m @ p["att_score"])[..., 0], -jnp.inf)
    weight = jax.nn.softmax(score, axis=1)
    return jnp.einsum("bs,bse->be", weight, enc)


def seq2seq(dict_size: int, emb: int, enc: int, dec: int) -> JaxNet:
    """The book's training network at the given widths; Adam lr 5e-5."""

    def loss(p, s, b, key):
        src_len, trg_len = b["src_lengths"], b["trg_lengths"]
        src_mask = jnp.arange(b["src"].shape[1])[None, :] < src_len[:, None]
        trg_mask = jnp.arange(b["trg"].shape[1])[None, :] < trg_len[:, None]
        x = p["src_emb"][b["src"]]
        fwd = gru_seq(p["fwd"], x @ p["fwd"]["t"], src_mask, src_len, reverse=False)
        bwd = gru_seq(p["bwd"], x @ p["bwd"]["t"], src_mask, src_len, reverse=True)
        encoded = jnp.concatenate([fwd, bwd], axis=-1)
        enc_proj = encoded @ p["enc_proj"]
        h0 = jnp.tanh(bwd[:, 0] @ p["boot"])
        words = p["trg_emb"][b["trg"]] @ p["in_word"]

        def body(h, inp):
            w_t, m_t = inp
            context = _attend(p, h, encoded, enc_proj, src_mask)
            h_new = gru_cell(p["dec"], context @ p["in_context"] + w_t, h)
            h_new = jnp.where(m_t[:, None], h_new, h)
            return h_new, h_new

        _, states = lax.scan(body, h0, (jnp.swapaxes(words, 0, 1), trg_mask.T))
        logits = jnp.swapaxes(states, 0, 1) @ p["out"]["w"] + p["out"]["b"]
        logp = jax.nn.log_softmax(logits)
        picked = jnp.take_along_axis(logp, b["trg_next"][..., None], axis=-1)[..., 0]
        return -jnp.sum(jnp.where(trg_mask, picked, 0.0)), s

    return JaxNet(
        lambda key: _init(key, dict_size, emb, enc, dec),
        loss,
        optax.adam(5e-5, b1=0.9, b2=0.999, eps=1e-8),
    )
