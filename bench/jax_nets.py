"""The benchmark's networks written directly in JAX + optax: the reference side.

Each is what a careful user would write by hand for the same network: a parameter
pytree with the book's initial scales, a loss that sums the per-sample costs (v2's
convention), the chapter's optimizer from optax building blocks, and one jitted,
buffer-donating step per batch (:func:`make_step`). Images are NCHW as paddle_lite
computes them; sequences arrive padded to the same length buckets as paddle_lite's
feeder uses, with their lengths, and padded steps are masked exactly as its layers do.

Optimizers are optax's: AdaGrad accumulates the decayed gradient and Adam's epsilon
sits outside the bias correction, small numerical differences from v2's rules that
cost the same arithmetic. ModelAverage is a running sum of the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax


class JaxNet(NamedTuple):
    """``init(key) -> (params, state)``; ``loss(params, state, batch, key) -> (cost, state)``.

    ``scored``, where given, is the same loss that also counts the batch's
    classification errors: ``scored(...) -> (cost, state, errors)`` (``errors`` None for a
    regression); ``loss`` is then derived from it (:func:`scored_net`).
    """

    init: Callable[[Any], tuple[Any, Any]]
    loss: Callable[[Any, Any, dict[str, Any], Any], tuple[Any, Any]]
    tx: optax.GradientTransformation
    average: bool = False  # keep a running sum of the parameters (v2 ModelAverage)
    scored: Callable[[Any, Any, dict[str, Any], Any], tuple[Any, Any, Any]] | None = None


def scored_net(
    init: Callable[[Any], tuple[Any, Any]],
    scored: Callable[[Any, Any, dict[str, Any], Any], tuple[Any, Any, Any]],
    tx: optax.GradientTransformation,
    average: bool = False,
) -> JaxNet:
    """A :class:`JaxNet` whose ``loss`` is ``scored`` without the error count (which XLA
    then drops from the compiled step: the device-batch side computes only the cost)."""

    def loss(p, s, b, key):
        cost, state, _ = scored(p, s, b, key)
        return cost, state

    return JaxNet(init, loss, tx, average, scored)


class Carry(NamedTuple):
    """What the reference step carries from batch to batch (donated each call)."""

    params: Any
    state: Any
    opt_state: Any
    average: Any
    step: Any
    key: Any


def _update(net: JaxNet, loss: Callable[..., Any], precision: str, carry: Carry, batch: Any):
    """One training step of ``loss`` (``-> (cost, (state, extra))``): the new carry, the
    batch's cost and ``extra``, all computed before the update."""
    key = jax.random.fold_in(carry.key, carry.step)
    grad = jax.value_and_grad(loss, has_aux=True)
    with jax.default_matmul_precision(precision):
        (cost, (state, extra)), grads = grad(carry.params, carry.state, batch, key)
    updates, opt_state = net.tx.update(grads, carry.opt_state, carry.params)
    params = optax.apply_updates(carry.params, updates)
    average = carry.average
    if average is not None:
        average = jax.tree_util.tree_map(jnp.add, average, params)
    return Carry(params, state, opt_state, average, carry.step + 1, carry.key), cost, extra


def make_step(
    net: JaxNet, matmul_precision: str = "highest", compiler_options: dict | None = None
) -> Callable[[Carry, Any], Any]:
    """The jitted ``step(carry, batch) -> (carry, cost_sum)``, ``carry`` donated, compiled
    with XLA's default options or ``compiler_options``."""

    def loss(p, s, b, key):
        cost, state = net.loss(p, s, b, key)
        return cost, (state, None)

    def step(carry: Carry, batch: dict[str, Any]) -> tuple[Carry, Any]:
        new, cost, _ = _update(net, loss, matmul_precision, carry, batch)
        return new, cost

    if compiler_options:
        return jax.jit(step, donate_argnums=(0,), compiler_options=compiler_options)
    return jax.jit(step, donate_argnums=(0,))


def make_scored_step(net: JaxNet, matmul_precision: str = "highest") -> Callable[..., Any]:
    """The jitted ``step(carry, batch) -> (carry, cost_sum, errors)`` of ``net.scored``,
    ``carry`` donated: the batch's summed cost and its number of misclassified samples
    (None for a regression), as paddle_lite's step computes its cost and evaluator."""

    def loss(p, s, b, key):
        cost, state, errors = net.scored(p, s, b, key)
        return cost, (state, errors)

    def step(carry: Carry, batch: dict[str, Any]) -> tuple[Carry, Any, Any]:
        return _update(net, loss, matmul_precision, carry, batch)

    return jax.jit(step, donate_argnums=(0,))


def init_carry(net: JaxNet, seed: int = 0) -> Carry:
    """The first carry, on the device."""
    params, state = net.init(jax.random.PRNGKey(seed))
    average = jax.tree_util.tree_map(jnp.zeros_like, params) if net.average else None
    carry = Carry(params, state, net.tx.init(params), average, np.int32(0), jax.random.PRNGKey(1))
    return jax.device_put(carry)


# building blocks ----------------------------------------------------------------------
def dense(key: Any, n_in: int, n_out: int, std: float | None = None) -> dict[str, Any]:
    """A fully connected layer: weight ``std * N(0, 1)`` (default 1/sqrt(fan-in)), bias 0."""
    std = 1.0 / np.sqrt(n_in) if std is None else std
    return {"w": std * jax.random.normal(key, (n_in, n_out)), "b": jnp.zeros(n_out)}


def xent(logits: Any, labels: Any) -> Any:
    """Summed multi-class cross-entropy of a softmax output."""
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[:, None], axis=1).sum()


def classified(logits: Any, labels: Any, state: Any) -> tuple[Any, Any, Any]:
    """``(summed cross-entropy, state, errors)``: errors counts the samples whose largest
    output is not their label (v2's classification_error_evaluator, times the batch)."""
    errors = jnp.sum(jnp.argmax(logits, axis=-1) != labels)
    return xent(logits, labels), state, errors


def conv(x: Any, w: Any, stride: int = 1, pad: int = 0) -> Any:
    """NCHW convolution with OIHW weights."""
    return lax.conv_general_dilated(
        x, w, (stride, stride), [(pad, pad)] * 2, dimension_numbers=("NCHW", "OIHW", "NCHW")
    )


def max_pool(x: Any, size: int, stride: int) -> Any:
    window, strides = (1, 1, size, size), (1, 1, stride, stride)
    return lax.reduce_window(x, -jnp.inf, lax.max, window, strides, "VALID")


def momentum(lr: Any, l2: float) -> optax.GradientTransformation:
    """v2 Momentum 0.9 with L2 decay: ``v = 0.9 v + (g + l2 w); w -= lr v``."""
    return optax.chain(optax.add_decayed_weights(l2), optax.sgd(lr, momentum=0.9))


def scale_leaves(rule: Callable[[str], float]) -> optax.GradientTransformation:
    """Multiply each update by ``rule(path)``: per-parameter learning-rate multipliers."""

    def update(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        def scale(path: Any, u: Any) -> Any:
            factor = rule(jax.tree_util.keystr(path))
            return u if factor == 1.0 else u * factor

        return jax.tree_util.tree_map_with_path(scale, updates), state

    return optax.GradientTransformation(lambda params: optax.EmptyState(), update)


# chapters 1 and 2 ---------------------------------------------------------------------
def fit_a_line(dim: int = 13) -> JaxNet:
    """``fc(dim -> 1)``, summed squared error, SGD at lr 1e-3 (chapter 1: ``dim`` 13)."""

    def scored(p, s, b, key):
        pred = b["x"] @ p["w"] + p["b"]
        return jnp.sum(jnp.square(pred - b["y"])), s, None

    return scored_net(lambda key: (dense(key, dim, 1), {}), scored, optax.sgd(1e-3))


def mlp() -> JaxNet:
    """784-128-64-10, ReLU, softmax; Momentum 0.9, lr 0.1/128, L2 0.0005*128."""

    def init(key):
        k = jax.random.split(key, 3)
        sizes = [(784, 128), (128, 64), (64, 10)]
        return [dense(ki, *s) for ki, s in zip(k, sizes, strict=True)], {}

    def scored(p, s, b, key):
        h = b["x"]
        for layer in p[:-1]:
            h = jax.nn.relu(h @ layer["w"] + layer["b"])
        return classified(h @ p[-1]["w"] + p[-1]["b"], b["y"], s)

    return scored_net(init, scored, momentum(0.1 / 128, 0.0005 * 128))


def lenet() -> JaxNet:
    """conv 5x5x20, max-pool 2, conv 5x5x50, max-pool 2 (ReLU), fc 10 softmax."""

    def init(key):
        k = jax.random.split(key, 3)
        c1 = jax.random.normal(k[0], (20, 1, 5, 5)) / np.sqrt(25.0)
        c2 = jax.random.normal(k[1], (50, 20, 5, 5)) / np.sqrt(500.0)
        convs = [{"w": c1, "b": jnp.zeros(20)}, {"w": c2, "b": jnp.zeros(50)}]
        return {"conv": convs, "fc": dense(k[2], 800, 10)}, {}

    def scored(p, s, b, key):
        h = b["x"].reshape(-1, 1, 28, 28)
        for layer in p["conv"]:
            h = jax.nn.relu(conv(h, layer["w"]) + layer["b"][None, :, None, None])
            h = max_pool(h, 2, 2)
        logits = h.reshape(h.shape[0], -1) @ p["fc"]["w"] + p["fc"]["b"]
        return classified(logits, b["y"], s)

    return scored_net(init, scored, momentum(0.1 / 128, 0.0005 * 128))
