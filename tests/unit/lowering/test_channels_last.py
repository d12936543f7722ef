"""Conv/pool chains computed channels-last inside ``forward`` give the flat CHW results."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from paddle_lite import layer as L
from paddle_lite._src import activations as acts
from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import data_types as dt
from paddle_lite._src import poolings
from paddle_lite._src.compile import forward
from paddle_lite._src.graph import name_scope
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.layers import norm
from paddle_lite._src.layers.image import conv, pool
from paddle_lite._src.lowering import channels_last
from paddle_lite._src.run_layer import run
from paddle_lite._src.topology import traverse
from paddle_lite._src.values import VALID

NHWC_CONV = "lhs_spec=(0, 3, 1, 2)"  # how a jaxpr prints an NHWC convolution


@pytest.fixture
def xla_convolutions(monkeypatch):
    """Every convolution left to XLA, so that a jaxpr shows each of the chain's NHWC
    convolutions (on a CPU a first layer over at most 3 channels otherwise runs as
    patches times a matrix: ``test_conv_patches.py``)."""
    monkeypatch.setattr(conv, "PATCH_CHANNELS", 0)


def _net(shared_biases=True, act=None):
    """data 2x12x12 -> conv 3x3 -> max 2/2 (tiles) -> conv 3x3 -> avg 3/2 pad 1 -> fc."""
    with name_scope():
        x = L.data(name="x", type=dt.dense_vector(2 * 12 * 12), height=12, width=12)
        c1 = conv.img_conv(
            input=x, filter_size=3, num_filters=4, shared_biases=shared_biases, act=act
        )
        p1 = pool.img_pool(input=c1, pool_size=2, stride=2)
        c2 = conv.img_conv(input=p1, filter_size=3, num_filters=6, groups=2, padding=1)
        p2 = pool.img_pool(input=c2, pool_size=3, stride=2, padding=1, pool_type=poolings.Avg())
        out = L.fc(input=p2, size=5, act=acts.Softmax())
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


def test_the_chain_convolves_channels_last(xla_convolutions):
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
        x = L.data(name="x", type=dt.dense_vector(2 * 6 * 6), height=6, width=6)
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
        x = L.data(name="x", type=dt.dense_vector(2 * 4 * 4), height=4, width=4)
        p = pool.img_pool(input=x, pool_size=2, stride=2)
    assert not channels_last.joins(p, get_kind("img_pool"), [np.zeros((1, 32))], False)
    xv = np.arange(64, dtype=np.float32).reshape(2, 32)
    (out,), _ = forward([p], {}, {"x": xv})
    np.testing.assert_array_equal(out, xv.reshape(2, 2, 2, 2, 2, 2).max(axis=(3, 5)).reshape(2, -1))


def _residual_net(bias=False):
    """conv -> batch_norm(relu) -> conv -> batch_norm, added to the first batch norm's
    output (relu), -> avg pool -> fc: a ResNet block."""
    with name_scope():
        x = L.data(name="x", type=dt.dense_vector(3 * 8 * 8), height=8, width=8)
        c1 = conv.img_conv(input=x, filter_size=3, num_filters=4, padding=1, bias_attr=False)
        b1 = norm.batch_norm(input=c1, act=acts.Relu())
        c2 = conv.img_conv(input=b1, filter_size=3, num_filters=4, padding=1, bias_attr=False)
        b2 = norm.batch_norm(input=c2, act=acts.Linear())
        added = L.addto(input=[b1, b2], act=acts.Relu(), bias_attr=bias)
        p = pool.img_pool(input=added, pool_size=8, stride=1, pool_type=poolings.Avg())
        out = L.fc(input=p, size=5, act=acts.Softmax())
    return [b1, added, p, out]


def _flat_run(layers, params, feeds, mode, weights):
    """Every layer run on flat CHW values; returns (outputs, batch-norm updates)."""
    values, updates = {}, {}
    for node in traverse(layers):
        if node.kind == "data":
            values[id(node)] = feeds[node.name]
            continue
        ins = [values[id(i)] for i in node.inputs]
        key = jax.random.PRNGKey(0)
        values[id(node)], state = run(node, params, ins, key=key, mode=mode, row_weights=weights)
        updates.update(state)
    return [values[id(n)] for n in layers], updates


@pytest.mark.parametrize("mode", ["train", "test"])
@pytest.mark.parametrize("padded", [False, True])
def test_a_residual_batch_norm_block_runs_channels_last_as_flat_layers(
    mode, padded, xla_convolutions
):
    layers = _residual_net()
    params = _params(layers)
    for n in traverse(layers):  # moving variances must be positive for test mode
        for p in n.params:
            if p.shape == (1, 4) and n.kind == "batch_norm":
                params[p.name] = np.abs(params[p.name]) + 0.5
    rng = np.random.RandomState(2)
    feeds = {"x": rng.randn(4, 3 * 8 * 8).astype(np.float32)}
    weights = None
    if padded:  # the last row pads the batch (weight 0)
        weights = np.array([1, 1, 1, 0], np.float32)
        feeds[VALID] = weights
    jaxpr = str(jax.make_jaxpr(lambda p, f: forward(layers[-1:], p, f, None, mode))(params, feeds))
    assert jaxpr.count(NHWC_CONV) == 2
    assert jaxpr.count("transpose[") == 2  # into the chain, and out of it into fc
    got, got_updates = forward(layers, params, feeds, jax.random.PRNGKey(0), mode)
    want, want_updates = _flat_run(layers, params, feeds, mode, weights)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    assert got_updates.keys() == want_updates.keys() and bool(got_updates) == (mode == "train")
    for name in got_updates:
        np.testing.assert_allclose(got_updates[name], want_updates[name], rtol=2e-5, atol=2e-6)
    out_weights = rng.randn(4, 5).astype(np.float32)

    def loss(p, values):
        return (values(p)[-1] * out_weights).sum()

    g_chain = jax.grad(loss)(params, lambda p: forward(layers, p, feeds, None, mode)[0])
    g_flat = jax.grad(loss)(params, lambda p: _flat_run(layers, p, feeds, mode, weights)[0])
    for name in params:
        np.testing.assert_allclose(g_chain[name], g_flat[name], rtol=1e-4, atol=1e-5)


def test_batch_norm_moments_leave_weight_zero_rows_out():
    rng = np.random.RandomState(3)
    x = rng.randn(5, 3, 4).astype(np.float32)  # [rows, C, pixels]
    w = np.array([1, 1, 0, 1, 0], np.float32)
    real = x[w > 0].astype(np.float64)
    for axis, v in ((1, x), (2, x.transpose(0, 2, 1))):
        mean, var = norm._moments(jax.numpy.asarray(v), jax.numpy.asarray(w), axis)
        np.testing.assert_allclose(mean, real.mean(axis=(0, 2)), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(var, real.var(axis=(0, 2)), rtol=1e-5, atol=1e-7)
        plain_mean, plain_var = norm._moments(jax.numpy.asarray(v), None, axis)
        np.testing.assert_allclose(plain_mean, x.astype(np.float64).mean(axis=(0, 2)), atol=1e-7)
        np.testing.assert_allclose(plain_var, x.astype(np.float64).var(axis=(0, 2)), rtol=1e-5)


@pytest.mark.parametrize("case", ["bias", "shapes", "channels"])
def test_layers_a_chain_cannot_carry_stay_flat(case):
    rng = np.random.RandomState(4)
    if case == "bias":  # addto's bias is laid out in CHW order
        layers = _residual_net(bias=True)
        added = layers[1]
        inputs = [channels_last.ChannelsLast(np.zeros((1, 8, 8, 4)))] * 2
        assert not channels_last.joins(added, get_kind("addto"), inputs, False)
        params = _params(layers)
        feeds = {"x": rng.randn(2, 192).astype(np.float32)}
        got, _ = forward(layers, params, feeds, None, "test")
        want, _ = _flat_run(layers, params, feeds, "test", None)
        np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=2e-6)
        return
    with name_scope():
        x = L.data(name="x", type=dt.dense_vector(4 * 2 * 2), height=2, width=2)
        c = conv.img_conv(input=x, filter_size=1, num_filters=4)
        if case == "shapes":  # equal sizes, different images: v2 adds the flat vectors
            y = L.data(name="y", type=dt.dense_vector(16), height=1, width=4)
            d = conv.img_conv(input=y, filter_size=1, num_filters=4)
            layer = L.addto(input=[c, d])
            inputs = [channels_last.ChannelsLast(np.zeros((1, 2, 2, 4)))]
            inputs.append(channels_last.ChannelsLast(np.zeros((1, 1, 4, 4))))
        else:  # batch norm over fewer channels than the image has
            layer = norm.batch_norm(input=c, num_channels=2)
            inputs = [channels_last.ChannelsLast(np.zeros((1, 2, 2, 4)))]
    assert not channels_last.joins(layer, get_kind(layer.kind), inputs, False)


def test_a_settled_residual_sum_is_returned_unchanged_with_its_gradient():
    x = np.array(
        [[[[np.nan, -np.inf], [np.inf, -0.0]], [[-3e38, 1e-45], [-1.5, 2.0]]]], np.float32
    )  # NaN first: the predicate reads the first value
    inputs = [channels_last.ChannelsLast(x)] * 2
    got = jax.jit(lambda v: channels_last.settled(channels_last.ChannelsLast(v), inputs).data)(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.view(np.uint32), x.view(np.uint32))  # bit for bit
    weights = np.arange(x.size, dtype=np.float32).reshape(x.shape)
    finite = np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0)

    def loss(v):
        return (channels_last.settled(channels_last.ChannelsLast(v), inputs).data * weights).sum()

    np.testing.assert_array_equal(jax.grad(loss)(finite), weights)
    one = channels_last.ChannelsLast(x)  # one input: not a residual sum, left as it is
    assert channels_last.settled(one, [one]) is one
    flat = np.zeros((2, 3), np.float32)
    assert channels_last.settled(flat, [flat, flat]) is flat


def test_each_residual_sum_of_a_chain_is_kept_whole_on_a_cpu(xla_convolutions):
    # XLA:CPU would fuse the residual stream into every consumer; a conditional (the
    # one cond in this network) is the boundary that keeps it stored once
    layers = _residual_net()
    feeds = {"x": np.zeros((2, 3 * 8 * 8), np.float32)}
    jaxpr = str(
        jax.make_jaxpr(lambda p: forward(layers[-1:], p, feeds, None, "train"))(_params(layers))
    )
    assert jaxpr.count("cond[") == (1 if jax.default_backend() == "cpu" else 0)
