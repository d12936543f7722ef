"""Shared helpers of the math-layer tests (test_layers_math_extra, test_layers_math_learned):
float64 values, fresh names, a forward runner and the gradients of ``sum(out * G)``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq, data_of

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(23)


@pytest.fixture(autouse=True)
def float64_and_fresh_names():
    jax.config.update("jax_enable_x64", True)
    try:
        with paddle.layer.name_scope():
            yield
    finally:
        jax.config.update("jax_enable_x64", False)


def dense(name, dim, **kw):
    return L.data(name=name, type=DT.dense_vector(dim), **kw)


def init_params(out):
    return {s.name: np.asarray(initialize(s, 3), np.float64) for s in Topology(out).param_specs()}


def run(out, feeds, params=None):
    params = init_params(out) if params is None else params
    (value,), _ = forward([out], params, feeds)
    return value


def grads(out, params, feeds, wrt):
    """``(d/dparams, d/dfeeds[wrt])`` of ``sum(out * G)``, and ``G`` (random, float64)."""
    probe = np.asarray(data_of(run(out, feeds, params)))
    g = RNG.normal(size=probe.shape)

    def loss(p, f):  # a sequence feed is differentiated through its data
        fed = {
            k: feeds[k]._replace(data=v) if isinstance(feeds[k], Seq) else v for k, v in f.items()
        }
        (value,), _ = forward([out], p, {**feeds, **fed})
        return jnp.sum(data_of(value) * g)

    dp, df = jax.grad(loss, argnums=(0, 1))(params, {k: data_of(feeds[k]) for k in wrt})
    return {k: np.asarray(v) for k, v in dp.items()}, {k: np.asarray(v) for k, v in df.items()}, g


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
