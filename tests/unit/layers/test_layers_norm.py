"""batch_norm, img_cmrnorm, sum_to_one_norm against float64 numpy references."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

from paddle_lite import layer as L
from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import data_types as dt
from paddle_lite._src.activations import Linear
from paddle_lite._src.compile import forward
from paddle_lite._src.graph import name_scope
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers import norm
from paddle_lite._src.layers.image import cmrnorm
from paddle_lite._src.specs import InitSpec
from paddle_lite._src.topology import traverse
from paddle_lite.errors import LayerConfigError, LayerTypeError

RTOL, ATOL = 1e-5, 1e-5


def image_data(name, c, h, w):
    return L.data(name=name, type=dt.dense_vector(c * h * w), height=h, width=w)


def init_params(layer, seed=0):
    return {p.name: initialize(p, seed) for n in traverse([layer]) for p in n.params}


def bn_params(layer, c, seed=0):
    """gamma, moving mean, positive moving variance and beta, all random."""
    rng = np.random.RandomState(seed)
    values = [rng.randn(1, c), rng.randn(1, c), rng.rand(1, c) + 0.5, rng.randn(1, c)]
    return {p.name: v.astype(np.float32) for p, v in zip(layer.params, values, strict=True)}


def bn_ref(x, gamma, beta, mean, var, eps):
    """x: [B, C, P] float64; per-channel normalisation."""
    return (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + eps) * gamma[
        None, :, None
    ] + beta[None, :, None]


def batch_stats(x):
    """Per-channel mean and biased variance over batch and pixels, by explicit sums."""
    b, c, p = x.shape
    mean = np.array(
        [sum(x[i, ch, j] for i in range(b) for j in range(p)) / (b * p) for ch in range(c)]
    )
    var = np.array(
        [
            sum((x[i, ch, j] - mean[ch]) ** 2 for i in range(b) for j in range(p)) / (b * p)
            for ch in range(c)
        ]
    )
    return mean, var


# batch_norm ---------------------------------------------------------------------------
def test_batch_norm_names_shapes_and_default_init():
    with name_scope():
        x = image_data("x", 3, 2, 2)
        layer = norm.batch_norm(input=x)
    assert layer.name == "__batch_norm_0__"
    assert layer.spec.image == (3, 2, 2) and layer.size == 12
    got = [(p.name, p.shape, p.is_static, p.init) for p in layer.params]
    assert got == [
        ("___batch_norm_0__.w0", (1, 3), False, InitSpec("gaussian", 1.0, 0.0)),
        ("___batch_norm_0__.w1", (1, 3), True, InitSpec("gaussian", 0.0, 0.0)),
        ("___batch_norm_0__.w2", (1, 3), True, InitSpec("gaussian", 0.0, 0.0)),
        ("___batch_norm_0__.wbias", (1, 3), False, InitSpec("gaussian", 0.0, 0.0)),
    ]
    values = init_params(layer)
    np.testing.assert_array_equal(values["___batch_norm_0__.w0"], np.ones((1, 3)))
    np.testing.assert_array_equal(values["___batch_norm_0__.w2"], np.zeros((1, 3)))


@pytest.mark.parametrize("image", [(3, 2, 2), None])
def test_batch_norm_train_uses_batch_stats_and_updates_moving_stats(image):
    x = image_data("x", *image) if image else L.data(name="x", type=dt.dense_vector(5))
    c, pixels = (image[0], image[1] * image[2]) if image else (5, 1)
    layer = norm.batch_norm(input=x, act=Linear(), epsilon=1e-3, moving_average_fraction=0.8)
    params = bn_params(layer, c, seed=1)
    xv = np.random.RandomState(2).randn(4, c * pixels).astype(np.float32) * 3 + 1
    (out,), updates = forward([layer], params, {"x": xv}, mode="train")
    xi = xv.reshape(4, c, pixels).astype(np.float64)
    mean, var = batch_stats(xi)
    w0, w1, w2, wb = (params[p.name][0].astype(np.float64) for p in layer.params)
    ref = bn_ref(xi, w0, wb, mean, var, 1e-3)
    np.testing.assert_allclose(np.asarray(out), ref.reshape(4, -1), rtol=RTOL, atol=1e-4)
    names = [p.name for p in layer.params]
    assert sorted(updates) == sorted(names[1:3])
    np.testing.assert_allclose(
        np.asarray(updates[names[1]])[0], w1 * 0.8 + mean * 0.2, rtol=RTOL, atol=ATOL
    )
    np.testing.assert_allclose(
        np.asarray(updates[names[2]])[0], w2 * 0.8 + var * 0.2, rtol=RTOL, atol=ATOL
    )


@pytest.mark.parametrize("use_global_stats", [None, True, False])
def test_batch_norm_test_mode_statistics(use_global_stats):
    x = image_data("x", 2, 3, 1)
    layer = norm.batch_norm(input=x, act=Linear(), use_global_stats=use_global_stats)
    params = bn_params(layer, 2, seed=3)
    xv = np.random.RandomState(4).randn(3, 6).astype(np.float32)
    (out,), updates = forward([layer], params, {"x": xv}, mode="test")
    assert updates == {}
    xi = xv.reshape(3, 2, 3).astype(np.float64)
    w0, w1, w2, wb = (params[p.name][0].astype(np.float64) for p in layer.params)
    mean, var = batch_stats(xi) if use_global_stats is False else (w1, w2)
    ref = bn_ref(xi, w0, wb, mean, var, 1e-5)
    np.testing.assert_allclose(np.asarray(out), ref.reshape(3, -1), rtol=RTOL, atol=1e-4)
    jitted = jax.jit(lambda p, f: forward([layer], p, f)[0][0])(params, {"x": xv})
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(out), rtol=RTOL, atol=ATOL)


def test_batch_norm_train_ignores_use_global_stats_like_v2():
    x = L.data(name="x", type=dt.dense_vector(3))
    layer = norm.batch_norm(input=x, act=Linear(), use_global_stats=True)
    params = bn_params(layer, 3, seed=5)
    xv = np.random.RandomState(6).randn(4, 3).astype(np.float32)
    (out,), _ = forward([layer], params, {"x": xv}, mode="train")
    mean, var = batch_stats(xv.reshape(4, 3, 1).astype(np.float64))
    w0, _, _, wb = (params[p.name][0].astype(np.float64) for p in layer.params)
    ref = bn_ref(xv.reshape(4, 3, 1).astype(np.float64), w0, wb, mean, var, 1e-5)
    np.testing.assert_allclose(np.asarray(out), ref.reshape(4, 3), rtol=RTOL, atol=1e-4)


def test_batch_norm_default_relu_no_bias_and_jit_train():
    x = L.data(name="x", type=dt.dense_vector(4))
    layer = norm.batch_norm(input=x, bias_attr=False)
    assert [p.name[-3:] for p in layer.params] == [".w0", ".w1", ".w2"]
    params = init_params(layer)
    xv = np.random.RandomState(7).randn(5, 4).astype(np.float32)
    xi = xv.astype(np.float64)
    ref = np.maximum((xi - xi.mean(0)) / np.sqrt(xi.var(0) + 1e-5), 0.0)
    fn = jax.jit(lambda p, f: forward([layer], p, f, mode="train"))
    (out,), updates = fn(params, {"x": xv})
    np.testing.assert_allclose(np.asarray(out), ref, rtol=RTOL, atol=1e-4)
    np.testing.assert_allclose(
        np.asarray(updates[layer.params[2].name])[0], 0.1 * xi.var(0), rtol=RTOL, atol=ATOL
    )


def test_batch_norm_num_channels_param_attr_and_mean_var_names():
    x = L.data(name="x", type=dt.dense_vector(12))
    layer = norm.batch_norm(
        input=x,
        num_channels=3,
        mean_var_names=("mov_mean", "mov_var"),
        param_attr=attrs_mod.ParamAttr(name="gamma"),
    )
    assert layer.spec.image == (3, 2, 2)
    names = [p.name for p in layer.params]
    assert names == ["gamma", "mov_mean", "mov_var", f"_{layer.name}.wbias"]
    assert layer.params[1].is_static and layer.params[2].is_static
    # a Param without init falls back to v2's dimensionless smart init 1/sqrt(C)
    assert layer.params[0].init == InitSpec("gaussian", 0.0, 1.0 / math.sqrt(3))
    # v2's geometry of 6 pixels: 2 wide (int(sqrt(6))), 3 high; 7 pixels it could not shape
    wide = norm.batch_norm(input=L.data(name="y", type=dt.dense_vector(12)), num_channels=2)
    assert wide.spec.image == (2, 3, 2) and wide.params[0].shape == (1, 2)
    odd = norm.batch_norm(input=L.data(name="z", type=dt.dense_vector(14)), num_channels=2)
    assert odd.spec.image is None and odd.params[0].shape == (1, 2)


def test_batch_norm_errors():
    x = L.data(name="x", type=dt.dense_vector(10))
    with pytest.raises(LayerConfigError, match="num_channels=3 does not divide"):
        norm.batch_norm(input=x, num_channels=3)
    with pytest.raises(LayerConfigError, match="not an image"):  # img3D needs a volume
        norm.batch_norm(input=x, img3D=True)
    with pytest.raises(LayerConfigError, match="batch_norm_type"):
        norm.batch_norm(input=x, batch_norm_type="fancy")
    with pytest.raises(LayerConfigError, match="mean_var_names"):
        norm.batch_norm(input=x, mean_var_names=("only_one",))
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'momentum'"):
        norm.batch_norm(input=x, momentum=0.9)
    with pytest.raises(LayerTypeError, match="use_global_stats"):
        norm.batch_norm(input=x, use_global_stats="yes")
    ids = L.data(name="s", type=dt.integer_value_sequence(4))
    with pytest.raises(LayerConfigError, match="dtype int32"):
        norm.batch_norm(input=ids)
    # v2 accepted a sequence (its steps are the rows): see test_v2_programs_vision.py
    seq = L.data(name="f", type=dt.dense_vector_sequence(4))
    assert norm.batch_norm(input=seq).spec.seq_level == 1


def test_batch_norm_accepts_drop_and_clip():
    x = L.data(name="x", type=dt.dense_vector(4))
    layer = norm.batch_norm(
        input=x, layer_attr=attrs_mod.ExtraAttr(drop_rate=0.5, error_clipping_threshold=10.0)
    )
    assert layer.attrs["drop_rate"] == 0.5 and layer.attrs["error_clipping_threshold"] == 10.0


# img_cmrnorm ---------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 3, 4, 5])
def test_img_cmrnorm_matches_reference(size):
    with name_scope():
        x = image_data("x", 5, 2, 3)
        layer = cmrnorm.img_cmrnorm(input=x, size=size, scale=0.3, power=0.6)
    assert layer.name == "__crmnorm_0__"
    assert layer.spec.image == (5, 2, 3) and layer.params == ()
    xv = np.random.RandomState(size).randn(3, 30).astype(np.float32)
    xi = xv.reshape(3, 5, 2, 3).astype(np.float64)
    ref = np.zeros_like(xi)
    before = (size - 1) // 2
    for c in range(5):
        window = [cc for cc in range(c - before, c - before + size) if 0 <= cc < 5]
        denom = 1.0 + 0.3 / size * sum(xi[:, cc] ** 2 for cc in window)
        ref[:, c] = xi[:, c] * denom**-0.6
    (out,), _ = forward([layer], {}, {"x": xv})
    np.testing.assert_allclose(np.asarray(out), ref.reshape(3, -1), rtol=RTOL, atol=ATOL)
    jitted = jax.jit(lambda f: forward([layer], {}, f)[0][0])({"x": xv})
    np.testing.assert_allclose(np.asarray(jitted), ref.reshape(3, -1), rtol=RTOL, atol=ATOL)


def test_img_cmrnorm_flat_input_and_errors():
    flat = L.data(name="flat", type=dt.dense_vector(2 * 9))
    layer = cmrnorm.img_cmrnorm(input=flat, size=3, num_channels=2)
    assert layer.spec.image == (2, 3, 3)
    with pytest.raises(LayerConfigError, match="not an image"):
        cmrnorm.img_cmrnorm(input=flat, size=3)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        cmrnorm.img_cmrnorm(input=layer, size=3, layer_attr=attrs_mod.ExtraAttr(drop_rate=0.1))
    with pytest.raises(LayerConfigError, match="size must be positive"):
        cmrnorm.img_cmrnorm(input=layer, size=0)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'alpha'"):
        cmrnorm.img_cmrnorm(input=layer, size=3, alpha=1.0)


# sum_to_one_norm -----------------------------------------------------------------------
def test_sum_to_one_norm():
    with name_scope():
        x = L.data(name="x", type=dt.dense_vector(4))
        layer = norm.sum_to_one_norm(input=x)
    assert layer.name == "__sum_to_one_norm_layer_0__"
    assert layer.size == 4 and layer.params == ()
    xv = np.random.RandomState(0).rand(3, 4).astype(np.float32) + 0.1
    ref = np.array([[v / sum(row) for v in row] for row in xv.astype(np.float64)])
    (out,), _ = forward([layer], {}, {"x": xv})
    np.testing.assert_allclose(np.asarray(out), ref, rtol=RTOL)
    jitted = jax.jit(lambda f: forward([layer], {}, f)[0][0])({"x": xv})
    np.testing.assert_allclose(np.asarray(jitted), ref, rtol=RTOL)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        norm.sum_to_one_norm(input=x, layer_attr=attrs_mod.ExtraAttr(drop_rate=0.1))
    ids = L.data(name="ids", type=dt.integer_value(4))
    with pytest.raises(LayerConfigError, match="integer ids"):
        norm.sum_to_one_norm(input=ids)
