"""Conv/pool chains computed channels-last inside ``forward`` give the flat CHW results."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from paddle_lite._src import activations as acts
from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import channels_last, poolings
from paddle_lite._src import data_types as dt
from paddle_lite._src.compile import forward
from paddle_lite._src.graph import name_scope
from paddle_lite._src.kinds import get_kind, run
from paddle_lite._src.layers import conv, core, pool
from paddle_lite._src.topology import traverse

NHWC_CONV = "lhs_spec=(0, 3, 1, 2)"  # how a jaxpr prints an NHWC convolution


def _net(shared_biases=True, act=None):
    """data 2x12x12 -> conv 3x3 -> max 2/2 (tiles) -> conv 3x3 -> avg 3/2 pad 1 -> fc."""
    with name_scope():
        x = core.data(name="x", type=dt.dense_vector(2 * 12 * 12), height=12, width=12)
        c1 = conv.img_conv(
            input=x, filter_size=3, num_filters=4, shared_biases=shared_biases, act=act
        )
        p1 = pool.img_pool(input=c1, pool_size=2, stride=2)
        c2 = conv.img_conv(input=p1, filter_size=3, num_filters=6, groups=2, padding=1)
        p2 = pool.img_pool(input=c2, pool_size=3, stride=2, padding=1, pool_type=poolings.Avg())
        out = core.fc(input=p2, size=5, act=acts.Softmax())
    return [c1, p1, c2, p2, out]


def _params(layers, seed=0):
    rng = np.random.RandomState(seed)
    return {
        p.name: (0.3 * rng.randn(*p.shape)).astype(np.float32)
        for n in traverse(layers)
        for p in n.params
    }


def _flat_forward(layers, params, feeds):
    """Every layer run on flat CHW values, as outside ``forward``."""
    values = {}
    for node in traverse(layers):
        if node.kind == "data":
            values[id(node)] = feeds[node.name]
            continue
        ins = [values[id(i)] for i in node.inputs]
        values[id(node)], _ = run(node, params, ins, key=None, mode="test")
    return [values[id(n)] for n in layers]


@pytest.mark.parametrize("shared_biases", [True, False])
def test_chain_values_and_gradients_match_flat_layers(shared_biases):
    layers = _net(shared_biases)
    params = _params(layers)
    rng = np.random.RandomState(1)
    feeds = {"x": rng.randn(3, 2 * 12 * 12).astype(np.float32)}
    got, _ = jax.jit(lambda p, f: forward(layers, p, f))(params, feeds)
    want = _flat_forward(layers, params, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    weights = rng.randn(3, 5).astype(np.float32)

    def loss(p, fn):
        return (fn(p)[-1] * weights).sum()

    g_chain = jax.grad(loss)(params, lambda p: forward(layers, p, feeds)[0])
    g_flat = jax.grad(loss)(params, lambda p: _flat_forward(layers, p, feeds))
    for name in params:
        np.testing.assert_allclose(g_chain[name], g_flat[name], rtol=1e-4, atol=1e-5)
        assert g_chain[name].shape == params[name].shape


def test_the_chain_convolves_channels_last():
    layers = _net()
    jaxpr = str(
        jax.make_jaxpr(lambda p, f: forward(layers[-1:], p, f)[0])(
            _params(layers), {"x": np.zeros((2, 288), np.float32)}
        )
    )
    assert jaxpr.count(NHWC_CONV) == 2


@pytest.mark.parametrize(
    "extra",
    [
        {"act": acts.Softmax()},  # not element-wise
        {"layer_attr": attrs_mod.ExtraAttr(drop_rate=0.5)},  # dropout masks by position
    ],
)
def test_layers_that_depend_on_the_layout_stay_flat(extra):
    with name_scope():
        x = core.data(name="x", type=dt.dense_vector(2 * 6 * 6), height=6, width=6)
        c = conv.img_conv(input=x, filter_size=3, num_filters=2, **extra)
        assert not channels_last.joins(c, get_kind("img_conv"), [np.zeros((1, 72))], False)
    jaxpr = str(
        jax.make_jaxpr(lambda p, f: forward([c], p, f)[0])(
            _params([c]), {"x": np.zeros((2, 72), np.float32)}
        )
    )
    assert NHWC_CONV not in jaxpr


def test_a_pool_on_flat_input_stays_flat_and_outputs_are_flat():
    with name_scope():
        x = core.data(name="x", type=dt.dense_vector(2 * 4 * 4), height=4, width=4)
        p = pool.img_pool(input=x, pool_size=2, stride=2)
    assert not channels_last.joins(p, get_kind("img_pool"), [np.zeros((1, 32))], False)
    xv = np.arange(64, dtype=np.float32).reshape(2, 32)
    (out,), _ = forward([p], {}, {"x": xv})
    np.testing.assert_array_equal(out, xv.reshape(2, 2, 2, 2, 2, 2).max(axis=(3, 5)).reshape(2, -1))
