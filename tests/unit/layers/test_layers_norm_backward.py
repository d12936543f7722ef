"""batch_norm's and img_cmrnorm's gradients against float64 transcriptions of v2's own
backward passes (BatchNormalizationLayer::backward, CrossMapNormalGrad), the moving
statistics of batch norms that share them (mean_var_names), v2's lower bound on
epsilon, and sum_to_one_norm over sequences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError

L, A, DT = paddle.layer, paddle.activation, paddle.data_type


@pytest.fixture(autouse=True)
def float64_and_fresh_names():
    jax.config.update("jax_enable_x64", True)
    try:
        with L.name_scope():
            yield
    finally:
        jax.config.update("jax_enable_x64", False)


def _image(name, c, h, w):
    return L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)


def _grads(out, params, feeds, g, mode):
    """Gradients of ``sum(out * g)`` with respect to the parameters and the feeds."""

    def loss(p, f):
        (value,), _ = forward([out], p, f, mode=mode)
        return jnp.sum(value * g)

    dp, df = jax.grad(loss, argnums=(0, 1))(params, feeds)
    return {k: np.asarray(v) for k, v in dp.items()}, {k: np.asarray(v) for k, v in df.items()}


# batch_norm: v2's backward ------------------------------------------------------------
def v2_batch_norm_train(x, g, gamma, beta, eps):
    """BatchNormalizationLayer::forward and ::backward in training, ``x``, ``g``
    ``[B, C, P]``: the statistics over the ``B*P`` rows of ``expandMat``; returns the
    output and the gradients of x, gamma and beta."""
    b, c, p = x.shape
    rows, grows = x.transpose(0, 2, 1).reshape(-1, c), g.transpose(0, 2, 1).reshape(-1, c)
    n = rows.shape[0]
    mean = rows.sum(0) / n
    var = np.maximum((rows**2).sum(0) / n - mean**2, 0.0)  # E[x^2] - E^2[x], clipped
    std = np.sqrt(var + eps)
    norm_in = (rows - mean) / std
    out = norm_in * gamma + beta
    d_beta, d_gamma = grows.sum(0), (grows * norm_in).sum(0)
    norm_in_grad = grows * gamma
    std_grad = -(norm_in_grad * norm_in).sum(0) / n
    mean_grad = -norm_in_grad.sum(0) / n
    d_rows = (norm_in_grad + norm_in * std_grad + mean_grad) / std

    def back(v):
        return v.reshape(b, p, c).transpose(0, 2, 1).reshape(b, -1)

    return back(out), back(d_rows), d_gamma, d_beta


@pytest.mark.parametrize(("image", "eps"), [((3, 2, 2), 1e-5), ((4, 1, 1), 1e-3)])
def test_batch_norm_training_gradient_is_v2s_backward(image, eps):
    x = _image("x", *image)
    bn = L.batch_norm(input=x, act=A.Linear(), epsilon=eps)
    c = image[0]
    rng = np.random.default_rng(7)
    params = {
        bn.params[0].name: rng.normal(size=(1, c)),
        bn.params[1].name: rng.normal(size=(1, c)),
        bn.params[2].name: rng.uniform(0.5, 1.5, size=(1, c)),
        bn.params[3].name: rng.normal(size=(1, c)),
    }
    xv = rng.normal(size=(5, bn.size)) * 2 + 0.5
    g = rng.normal(size=(5, bn.size))
    gamma, beta = params[bn.params[0].name][0], params[bn.params[3].name][0]
    want = v2_batch_norm_train(xv.reshape(5, c, -1), g.reshape(5, c, -1), gamma, beta, eps)
    (out,), _ = forward([bn], params, {"x": xv}, mode="train")
    np.testing.assert_allclose(np.asarray(out), want[0], rtol=1e-10, atol=1e-12)
    dp, df = _grads(bn, params, {"x": xv}, g, "train")
    np.testing.assert_allclose(df["x"], want[1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dp[bn.params[0].name][0], want[2], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dp[bn.params[3].name][0], want[3], rtol=1e-10, atol=1e-12)
    for moving in bn.params[1:3]:  # static: no gradient
        np.testing.assert_array_equal(dp[moving.name], 0.0)


# batch_norm: shared moving statistics -------------------------------------------------
def _shared_bn_network(fraction):
    xa, xb = L.data(name="xa", type=DT.dense_vector(3)), L.data(name="xb", type=DT.dense_vector(3))
    names = ("shared_mean", "shared_var")
    bns = [
        L.batch_norm(
            input=x, act=A.Linear(), mean_var_names=names, moving_average_fraction=fraction
        )
        for x in (xa, xb)
    ]
    return bns, L.addto(input=bns, act=A.Linear(), bias_attr=False)


def test_batch_norms_sharing_moving_statistics_update_them_in_turn():
    """v2 ran the layers one after another on one moving-mean buffer: the second layer
    averages its batch statistics into the first layer's result."""
    f = 0.8
    (bn_a, bn_b), out = _shared_bn_network(f)
    rng = np.random.default_rng(3)
    params = {p.name: rng.normal(size=p.shape) for bn in (bn_a, bn_b) for p in bn.params}
    params["shared_var"] = np.abs(params["shared_var"])
    feeds = {"xa": rng.normal(size=(4, 3)) + 2.0, "xb": rng.normal(size=(4, 3)) * 3.0}
    _, updates = forward([out], params, feeds, mode="train")
    mean, var = params["shared_mean"][0], params["shared_var"][0]
    for name in ("xa", "xb"):  # the order v2 ran them: bn_a, then bn_b
        mean = f * mean + (1 - f) * feeds[name].mean(0)
        var = f * var + (1 - f) * feeds[name].var(0)
    np.testing.assert_allclose(np.asarray(updates["shared_mean"])[0], mean, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(updates["shared_var"])[0], var, rtol=1e-12)


def test_shared_moving_statistics_after_training_follow_v2():
    f = 0.9
    (bn_a, _), out = _shared_bn_network(f)
    y = L.data(name="y", type=DT.dense_vector(3))
    cost = L.square_error_cost(input=out, label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.0))
    rng = np.random.default_rng(5)
    batches = [
        [tuple(rng.normal(size=3).astype(np.float32) for _ in range(3)) for _ in range(4)]
        for _ in range(2)
    ]
    trainer.train(lambda: iter(batches), num_passes=1)
    mean, var = np.zeros(3), np.zeros(3)
    for batch in batches:
        for i in (0, 1):
            x = np.stack([row[i] for row in batch]).astype(np.float64)
            mean, var = f * mean + (1 - f) * x.mean(0), f * var + (1 - f) * x.var(0)
    np.testing.assert_allclose(params.get("shared_mean")[0], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params.get("shared_var")[0], var, rtol=1e-5, atol=1e-6)


def test_batch_norm_epsilon_below_v2s_bound_is_refused():
    x = L.data(name="x", type=DT.dense_vector(4))
    L.batch_norm(input=x, epsilon=1e-5)  # v2's bound itself is fine
    with pytest.raises(LayerConfigError, match=r"epsilon must be >= 1e-05 .*; received 1e-06"):
        L.batch_norm(input=x, epsilon=1e-6)
    with pytest.raises(LayerConfigError, match="epsilon"):
        L.batch_norm(input=x, epsilon=0)


# img_cmrnorm: v2's backward ------------------------------------------------------------
def v2_cmrnorm(x, g, size, scale, power):
    """CrossMapNormal and CrossMapNormalGrad (CPU) on ``x``, ``g`` ``[B, C, H, W]``, with
    config_parser's ``scale / size``: the forward window starts at ``-(size-1)/2``, the
    backward one at ``-size/2`` (C++ division truncates toward zero)."""
    c = x.shape[1]
    scale = scale / size
    denoms = np.ones_like(x)
    start = -int((size - 1) / 2)
    for ch in range(c):
        for s in range(start, start + size):
            if 0 <= ch + s < c:
                denoms[:, ch] += scale * x[:, ch + s] ** 2
    out = x * denoms**-power
    grad = np.zeros_like(x)
    start = -int(size / 2)
    ratio = -2.0 * scale * power
    for ch in range(c):
        grad[:, ch] += denoms[:, ch] ** -power * g[:, ch]
        for s in range(start, start + size):
            if 0 <= ch + s < c:
                k = ch + s
                grad[:, ch] += g[:, k] * out[:, k] * ratio / denoms[:, k] * x[:, ch]
    return out, grad


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_img_cmrnorm_gradient_is_v2s_backward(size):
    x = _image("x", 5, 2, 3)
    layer = L.img_cmrnorm(input=x, size=size, scale=0.9, power=0.7)
    rng = np.random.default_rng(size)
    xv, g = rng.normal(size=(3, 30)), rng.normal(size=(3, 30))
    want_out, want_grad = v2_cmrnorm(xv.reshape(3, 5, 2, 3), g.reshape(3, 5, 2, 3), size, 0.9, 0.7)
    (out,), _ = forward([layer], {}, {"x": xv})
    np.testing.assert_allclose(np.asarray(out), want_out.reshape(3, -1), rtol=1e-12)
    _, df = _grads(layer, {}, {"x": xv}, g, "train")
    np.testing.assert_allclose(df["x"], want_grad.reshape(3, -1), rtol=1e-10, atol=1e-12)


# sum_to_one_norm over sequences -------------------------------------------------------
def test_sum_to_one_norm_of_a_sequence_normalises_each_step():
    """v2's SumToOneNormLayer works on the rows of its input matrix: a sequence's steps."""
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    out = L.sum_to_one_norm(input=x)
    assert out.spec.seq_level == 1
    rng = np.random.default_rng(2)
    data = rng.uniform(0.1, 1.0, size=(2, 4, 3))
    feed = Seq(data, np.array([4, 2], np.int32))
    (value,), _ = forward([out], {}, {"x": feed})
    got = np.asarray(value.data)
    np.testing.assert_allclose(got[0], data[0] / data[0].sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(got[1, :2], data[1, :2] / data[1, :2].sum(1, keepdims=True))
    assert np.isfinite(got).all()  # padding steps stay finite
    with pytest.raises(LayerConfigError, match="integer ids"):
        L.sum_to_one_norm(input=L.data(name="ids", type=DT.integer_value(4)))
    np.testing.assert_array_equal(np.asarray(value.lengths), [4, 2])
    g = rng.normal(size=data.shape)
    g[1, 2:] = 0.0  # what a consumer of the sequence sends back for padding steps

    def loss(d):
        (v,), _ = forward([out], {}, {"x": feed._replace(data=d)})
        return jnp.sum(v.data * g)

    grad = np.asarray(jax.grad(loss)(data))
    for b, n in enumerate([4, 2]):  # SumToOneNormLayer::backward: (g - <g, out>) / sum
        xs, gs = data[b, :n], g[b, :n]
        total = xs.sum(1, keepdims=True)
        want = (gs - (gs * xs / total).sum(1, keepdims=True)) / total
        np.testing.assert_allclose(grad[b, :n], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(grad[1, 2:], 0.0)
