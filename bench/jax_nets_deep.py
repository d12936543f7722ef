"""Plain JAX + optax references for chapters 3, 4 and 6: ResNet, N-gram, stacked LSTM.

See :mod:`bench.jax_nets` for the conventions (summed costs, NCHW, the same padding
buckets, optax optimizers).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax

from bench.jax_nets import JaxNet, classified, conv, dense, momentum, scale_leaves, scored_net


# chapter 3: ResNet for CIFAR ----------------------------------------------------------
def _conv_bn_init(key: Any, c_in: int, c_out: int, k: int) -> tuple[dict, dict]:
    w = jax.random.normal(key, (c_out, c_in, k, k)) / np.sqrt(k * k * c_in)
    params = {"w": w, "scale": jnp.ones(c_out), "shift": jnp.zeros(c_out)}
    return params, {"mean": jnp.zeros(c_out), "var": jnp.ones(c_out)}


def _conv_bn(p: dict, s: dict, x: Any, stride: int, pad: int, relu: bool) -> tuple[Any, dict]:
    """Convolution without bias, batch norm on batch statistics (moving average 0.9)."""
    y = conv(x, p["w"], stride, pad)
    mean = y.mean(axis=(0, 2, 3))
    var = jnp.square(y - mean[None, :, None, None]).mean(axis=(0, 2, 3))
    scale = p["scale"] * lax.rsqrt(var + 1e-5)
    y = (y - mean[None, :, None, None]) * scale[None, :, None, None]
    y = y + p["shift"][None, :, None, None]
    new = {
        "mean": lax.stop_gradient(0.9 * s["mean"] + 0.1 * mean),
        "var": lax.stop_gradient(0.9 * s["var"] + 0.1 * var),
    }
    return (jax.nn.relu(y) if relu else y), new


def _resnet_plan(depth: int) -> list[tuple[int, int, int]]:
    """``(c_in, c_out, stride)`` of each basic block of the book's ``resnet_cifar10``."""
    n = (depth - 2) // 6
    plan = []
    for c_in, c_out, stride in ((16, 16, 1), (16, 32, 2), (32, 64, 2)):
        plan += [(c_in, c_out, stride)] + [(c_out, c_out, 1)] * (n - 1)
    return plan


def _block_init(key: Any, c_in: int, c_out: int) -> tuple[dict, dict]:
    k = jax.random.split(key, 3)
    parts = {"a": _conv_bn_init(k[0], c_in, c_out, 3), "b": _conv_bn_init(k[1], c_out, c_out, 3)}
    if c_in != c_out:
        parts["short"] = _conv_bn_init(k[2], c_in, c_out, 1)
    return {n: v[0] for n, v in parts.items()}, {n: v[1] for n, v in parts.items()}


def _block(p: dict, s: dict, x: Any, stride: int) -> tuple[Any, dict]:
    h, sa = _conv_bn(p["a"], s["a"], x, stride, 1, True)
    h, sb = _conv_bn(p["b"], s["b"], h, 1, 1, False)
    new = {"a": sa, "b": sb}
    short = x
    if "short" in p:
        short, new["short"] = _conv_bn(p["short"], s["short"], x, stride, 0, False)
    return jax.nn.relu(h + short), new


def resnet(depth: int, batch: int) -> JaxNet:
    """``resnet_cifar10(depth)``, 8x8 average pool, fc 10 softmax; Momentum (discexp)."""
    plan = _resnet_plan(depth)

    def init(key):
        k = jax.random.split(key, len(plan) + 2)
        p1, s1 = _conv_bn_init(k[0], 3, 16, 3)
        blocks = [
            _block_init(ki, c_in, c_out) for ki, (c_in, c_out, _) in zip(k[1:-1], plan, strict=True)
        ]
        params = {"conv1": p1, "blocks": [b[0] for b in blocks], "fc": dense(k[-1], 64, 10)}
        return params, {"conv1": s1, "blocks": [b[1] for b in blocks]}

    def scored(p, s, b, key):
        h, s1 = _conv_bn(p["conv1"], s["conv1"], b["x"].reshape(-1, 3, 32, 32), 1, 1, True)
        states = []
        for bp, bs, (_, _, stride) in zip(p["blocks"], s["blocks"], plan, strict=True):
            h, new = _block(bp, bs, h, stride)
            states.append(new)
        pooled = h.mean(axis=(2, 3))
        logits = pooled @ p["fc"]["w"] + p["fc"]["b"]
        return classified(logits, b["y"], {"conv1": s1, "blocks": states})

    # discexp: lr * 0.1 ** floor(samples / 5,000,000), counted in steps of `batch` samples
    lr = optax.exponential_decay(0.1 / 128, 50000 * 100 / batch, 0.1, staircase=True)
    return scored_net(init, scored, momentum(lr, 0.0002 * 128))


# chapter 4: N-gram language model -----------------------------------------------------
def ngram(dict_size: int, emb: int = 32, hidden: int = 256) -> JaxNet:
    """Shared embedding of 4 words, fc 256 sigmoid with dropout 0.5, fc softmax; AdaGrad."""

    def init(key):
        k = jax.random.split(key, 3)
        params = {
            "emb": 0.001 * jax.random.normal(k[0], (dict_size, emb)),
            "fc1": dense(k[1], 4 * emb, hidden, std=1.0 / np.sqrt(emb * 8)),
            "fc2": dense(k[2], hidden, dict_size),
        }
        return params, {}

    def scored(p, s, b, key):
        ids = b["ids"]
        context = p["emb"][ids[:, :4]].reshape(ids.shape[0], -1)
        h = jax.nn.sigmoid(context @ p["fc1"]["w"] + p["fc1"]["b"])
        h = h * jax.random.bernoulli(key, 0.5, h.shape)  # v2's dropout is not rescaled
        return classified(h @ p["fc2"]["w"] + p["fc2"]["b"], ids[:, 4], s)

    tx = optax.chain(
        optax.add_decayed_weights(8e-4),
        optax.adagrad(3e-3, initial_accumulator_value=0.0, eps=1e-6),
        scale_leaves(lambda path: 2.0 if path.endswith("['b']") else 1.0),  # bias lr x2
    )
    return scored_net(init, scored, tx)


# chapter 6: stacked LSTM --------------------------------------------------------------
def reverse_within(x: Any, lengths: Any) -> Any:
    """Each sequence of ``x`` ``[B, T, ...]`` reversed within its length."""
    steps = jnp.arange(x.shape[1])[None, :]
    idx = jnp.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)
    return jnp.take_along_axis(x, idx[:, :, None], axis=1)


def scan_masked(cell: Any, carry: Any, x: Any, mask: Any, lengths: Any, reverse: bool) -> Any:
    """``cell(carry, x_t) -> (carry, h_t)`` over the steps of ``x`` ``[B, T, ...]``: past
    each length the carry is kept and the output is 0; ``reverse`` runs each sequence
    from its own last step. Returns the outputs ``[B, T, ...]``."""
    xs = jnp.where(mask[:, :, None], x, 0.0)
    if reverse:
        xs = reverse_within(xs, lengths)

    def body(carry, inp):
        x_t, m_t = inp
        new, out = cell(carry, x_t)
        keep = m_t[:, None]
        carry = jax.tree_util.tree_map(lambda n, o: jnp.where(keep, n, o), new, carry)
        return carry, jnp.where(keep, out, 0.0)

    _, out = lax.scan(body, carry, (jnp.swapaxes(xs, 0, 1), mask.T))
    out = jnp.swapaxes(out, 0, 1)
    return reverse_within(out, lengths) if reverse else out


def lstm(p: dict, x: Any, mask: Any, lengths: Any, reverse: bool) -> Any:
    """Peephole LSTM over ``x`` ``[B, T, 4H]`` (gates a, i, f, o; ReLU candidate)."""
    h_dim = p["w"].shape[0]
    bias, peep = p["b"][: 4 * h_dim], p["b"][4 * h_dim :].reshape(3, h_dim)

    def cell(carry, x_t):
        h, c = carry
        a, i, f, o = jnp.split(x_t + bias + h @ p["w"], 4, axis=-1)
        i, f = jax.nn.sigmoid(i + c * peep[0]), jax.nn.sigmoid(f + c * peep[1])
        c_new = jax.nn.relu(a) * i + c * f
        h_new = jax.nn.sigmoid(o + c_new * peep[2]) * jnp.tanh(c_new)
        return (h_new, c_new), h_new

    zeros = jnp.zeros((x.shape[0], h_dim), x.dtype)
    return scan_masked(cell, (zeros, zeros), x, mask, lengths, reverse)


def _two_input_fc(key: Any, n_a: int, n_b: int, n_out: int) -> dict[str, Any]:
    """fc over [previous fc, previous lstm]: smart init from the fc, zeros from the lstm."""
    return {
        "wa": jax.random.normal(key, (n_a, n_out)) / np.sqrt(n_a),
        "wb": jnp.zeros((n_b, n_out)),
        "b": jnp.zeros(n_out),
    }


def stacked_lstm(dict_size: int, emb: int, hid: int, levels: int = 3) -> JaxNet:
    """The book's ``stacked_lstm_net``: fc ``hid`` + LSTM ``hid/4`` per level; Adam."""
    h_dim = hid // 4

    def init(key):
        k = jax.random.split(key, 2 * levels + 2)
        params = {"emb": jax.random.normal(k[0], (dict_size, emb)) / np.sqrt(dict_size)}
        params["fc1"] = {"wa": jax.random.normal(k[1], (emb, hid)) / np.sqrt(emb)}
        params["fc1"]["b"] = jnp.zeros(hid)
        for i in range(1, levels + 1):
            w = jax.random.normal(k[2 * i], (h_dim, 4 * h_dim)) / np.sqrt(h_dim)
            params[f"lstm{i}"] = {"w": w, "b": jnp.zeros(7 * h_dim)}
            if i > 1:
                params[f"fc{i}"] = _two_input_fc(k[2 * i + 1], hid, h_dim, hid)
        params["out"] = _two_input_fc(k[-1], hid, h_dim, 2)
        return params, {}

    def scored(p, s, b, key):
        lengths = b["lengths"]
        mask = jnp.arange(b["word"].shape[1])[None, :] < lengths[:, None]
        fc = p["emb"][b["word"]] @ p["fc1"]["wa"] + p["fc1"]["b"]
        out = lstm(p["lstm1"], fc, mask, lengths, reverse=False)
        for i in range(2, levels + 1):
            q = p[f"fc{i}"]
            fc = fc @ q["wa"] + out @ q["wb"] + q["b"]
            out = lstm(p[f"lstm{i}"], fc, mask, lengths, reverse=i % 2 == 0)
        pool_fc = jnp.where(mask[:, :, None], fc, -jnp.inf).max(axis=1)
        pool_out = jnp.where(mask[:, :, None], out, -jnp.inf).max(axis=1)
        q = p["out"]
        return classified(pool_fc @ q["wa"] + pool_out @ q["wb"] + q["b"], b["label"], s)

    tx = optax.chain(
        optax.adam(2e-3, b1=0.9, b2=0.999, eps=1e-8),
        scale_leaves(lambda path: 1e-3 if path.endswith("['wa']") and "fc1" not in path else 1.0),
    )
    return scored_net(init, scored, tx, average=True)
