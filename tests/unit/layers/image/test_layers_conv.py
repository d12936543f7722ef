"""img_conv, img_pool, maxout, pad against float64 brute-force numpy references."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

from paddle_lite import layer as L
from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import data_types as dt
from paddle_lite._src import poolings
from paddle_lite._src.activations import Linear
from paddle_lite._src.compile import forward
from paddle_lite._src.graph import name_scope
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers.image import conv, pool
from paddle_lite._src.specs import InitSpec
from paddle_lite._src.topology import traverse
from paddle_lite.errors import LayerConfigError, LayerTypeError

RTOL, ATOL = 1e-5, 1e-5


def image_data(name, c, h, w):
    return L.data(name=name, type=dt.dense_vector(c * h * w), height=h, width=w)


def init_params(layer, seed=0):
    return {p.name: initialize(p, seed) for n in traverse([layer]) for p in n.params}


def random_params(layer, seed=0):
    rng = np.random.RandomState(seed)
    return {
        p.name: rng.randn(*p.shape).astype(np.float32) for n in traverse([layer]) for p in n.params
    }


def run(layer, params, feeds, mode="test"):
    (value,), _ = forward([layer], params, feeds, mode=mode)
    return np.asarray(value)


def run_jit(layer, params, feeds):
    fn = jax.jit(lambda p, f: forward([layer], p, f)[0][0])
    return np.asarray(fn(params, feeds))


# references ---------------------------------------------------------------------------
def conv_ref(x, w, b, stride, pad, dil, groups, out_hw):
    """Direct convolution: loops over every output value. w: [F, C/g, ky, kx]."""
    n_b, c, h, wd = x.shape
    f, cg, ky, kx = w.shape
    fg = f // groups
    out = np.zeros((n_b, f, *out_hw))
    for n in range(n_b):
        for o in range(f):
            g = o // fg
            for oy in range(out_hw[0]):
                for ox in range(out_hw[1]):
                    acc = 0.0 if b is None else b[o]
                    for cl in range(cg):
                        for i in range(ky):
                            for j in range(kx):
                                iy = oy * stride[0] - pad[0] + i * dil[0]
                                ix = ox * stride[1] - pad[1] + j * dil[1]
                                if 0 <= iy < h and 0 <= ix < wd:
                                    acc += x[n, g * cg + cl, iy, ix] * w[o, cl, i, j]
                    out[n, o, oy, ox] = acc
    return out


def conv_trans_ref(x, w, b, stride, pad, dil, groups, out_hw):
    """Transposed convolution by scattering every input value. w: [C, F/g, ky, kx]."""
    n_b, c, h, wd = x.shape
    _, fg, ky, kx = w.shape
    cg = c // groups
    out = np.zeros((n_b, fg * groups, *out_hw))
    for n in range(n_b):
        for ci in range(c):
            g = ci // cg
            for iy in range(h):
                for ix in range(wd):
                    for fl in range(fg):
                        for i in range(ky):
                            for j in range(kx):
                                oy = iy * stride[0] - pad[0] + i * dil[0]
                                ox = ix * stride[1] - pad[1] + j * dil[1]
                                if 0 <= oy < out_hw[0] and 0 <= ox < out_hw[1]:
                                    value = x[n, ci, iy, ix] * w[ci, fl, i, j]
                                    out[n, g * fg + fl, oy, ox] += value
    if b is not None:
        out += np.asarray(b).reshape(1, -1, 1, 1)
    return out


def pool_ref(x, k, s, p, out_hw, kind, exclude=True):
    """Windows ``[o*s - p, o*s - p + k)``; max/avg over the part inside the input."""
    n_b, c, h, w = x.shape
    out = np.zeros((n_b, c, *out_hw))
    for oy in range(out_hw[0]):
        for ox in range(out_hw[1]):
            y0, x0 = oy * s[0] - p[0], ox * s[1] - p[1]
            y1, x1 = min(y0 + k[0], h + p[0]), min(x0 + k[1], w + p[1])
            vy0, vx0, vy1, vx1 = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
            if vy1 <= vy0 or vx1 <= vx0:
                continue
            win = x[:, :, vy0:vy1, vx0:vx1]
            if kind == "max":
                out[:, :, oy, ox] = win.max(axis=(2, 3))
            else:
                count = (vy1 - vy0) * (vx1 - vx0) if exclude else (y1 - y0) * (x1 - x0)
                out[:, :, oy, ox] = win.sum(axis=(2, 3)) / count
    return out


# img_conv -----------------------------------------------------------------------------
CONV_CASES = [
    # (C, H, W, F, filter (x, y), stride (x, y), padding (x, y), dilation (x, y), groups)
    (1, 5, 5, 2, (3, 3), (1, 1), (0, 0), (1, 1), 1),
    (2, 6, 7, 4, (3, 2), (2, 1), (1, 0), (1, 1), 2),
    (3, 7, 6, 3, (2, 3), (1, 2), (0, 2), (2, 1), 3),
    (4, 5, 6, 2, (1, 1), (2, 2), (1, 1), (1, 1), 2),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("trans", [False, True])
def test_img_conv_matches_brute_force(case, trans):
    c, h, w, f, k, s, p, d, g = case
    x = image_data("x", c, h, w)
    layer = conv.img_conv(
        input=x,
        filter_size=k[0],
        filter_size_y=k[1],
        num_filters=f,
        stride=s[0],
        stride_y=s[1],
        padding=p[0],
        padding_y=p[1],
        dilation=d[0],
        dilation_y=d[1],
        groups=g,
        trans=trans,
        act=Linear(),
    )
    ky, kx, sy, sx, py, px, dy, dx = k[1], k[0], s[1], s[0], p[1], p[0], d[1], d[0]
    if trans:
        oh, ow = (
            (n - 1) * st + dl * (kk - 1) + 1 - 2 * pp
            for n, kk, st, pp, dl in ((h, ky, sy, py, dy), (w, kx, sx, px, dx))
        )
    else:
        oh, ow = (
            math.floor((n + 2 * pp - dl * (kk - 1) - 1) / st) + 1
            for n, kk, st, pp, dl in ((h, ky, sy, py, dy), (w, kx, sx, px, dx))
        )
    assert layer.spec.image == (f, oh, ow)
    assert layer.size == f * oh * ow
    params = random_params(layer, seed=1)
    wname, bname = f"_{layer.name}.w0", f"_{layer.name}.wbias"
    assert params[wname].shape == ((c, f // g, ky, kx) if trans else (f, c // g, ky, kx))
    assert params[bname].shape == (f, 1)
    xv = np.random.RandomState(2).randn(3, c * h * w).astype(np.float32)
    ref_fn = conv_trans_ref if trans else conv_ref
    ref = ref_fn(
        xv.reshape(3, c, h, w).astype(np.float64),
        params[wname].astype(np.float64),
        params[bname][:, 0].astype(np.float64),
        (sy, sx),
        (py, px),
        (dy, dx),
        g,
        (oh, ow),
    )
    out = run(layer, params, {"x": xv})
    np.testing.assert_allclose(out, ref.reshape(3, -1), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(run_jit(layer, params, {"x": xv}), out, rtol=RTOL, atol=ATOL)


def test_img_conv_trans_padding_larger_than_kernel_reach():
    x = image_data("x", 2, 4, 4)
    layer = conv.img_conv(
        input=x,
        filter_size=2,
        num_filters=3,
        stride=3,
        padding=2,
        trans=True,
        act=Linear(),
        bias_attr=False,
    )
    assert layer.spec.image == (3, 7, 7)  # (4 - 1) * 3 + (2 - 1) + 1 - 2 * 2
    params = random_params(layer)
    xv = np.random.RandomState(0).randn(3, 32).astype(np.float32)
    ref = conv_trans_ref(
        xv.reshape(3, 2, 4, 4), params[f"_{layer.name}.w0"], None, (3, 3), (2, 2), (1, 1), 1, (7, 7)
    )
    np.testing.assert_allclose(
        run(layer, params, {"x": xv}), ref.reshape(3, -1), rtol=RTOL, atol=ATOL
    )


def test_img_conv_flat_input_is_square_and_default_relu():
    x = L.data(name="pixel", type=dt.dense_vector(2 * 16))
    layer = conv.img_conv(input=x, filter_size=3, num_filters=2, num_channels=2, padding=1)
    assert layer.spec.image == (2, 4, 4)
    params = random_params(layer, seed=3)
    xv = np.random.RandomState(4).randn(3, 32).astype(np.float32)
    ref = conv_ref(
        xv.reshape(3, 2, 4, 4),
        params[f"_{layer.name}.w0"],
        params[f"_{layer.name}.wbias"][:, 0],
        (1, 1),
        (1, 1),
        (1, 1),
        1,
        (4, 4),
    )
    np.testing.assert_allclose(
        run(layer, params, {"pixel": xv}), np.maximum(ref, 0).reshape(3, -1), rtol=RTOL, atol=ATOL
    )


def test_img_conv_pair_arguments_are_x_then_y():
    x = image_data("x", 1, 9, 7)
    layer = conv.img_conv(input=x, filter_size=(3, 1), stride=(2, 1), padding=(0, 1), num_filters=1)
    # y: 1 + (9 + 2 - 1) // 1 = 11 ; x: 1 + (7 - 3) // 2 = 3
    assert layer.spec.image == (1, 11, 3)
    assert layer.params[0].shape == (1, 1, 1, 3)


def test_img_conv_unshared_bias_is_per_output_value():
    x = image_data("x", 1, 4, 4)
    layer = conv.img_conv(input=x, filter_size=3, num_filters=2, shared_biases=False, act=Linear())
    params = random_params(layer, seed=5)
    bias = params[f"_{layer.name}.wbias"]
    assert bias.shape == (2 * 2 * 2, 1)
    xv = np.random.RandomState(6).randn(3, 16).astype(np.float32)
    ref = (
        conv_ref(
            xv.reshape(3, 1, 4, 4),
            params[f"_{layer.name}.w0"],
            None,
            (1, 1),
            (0, 0),
            (1, 1),
            1,
            (2, 2),
        ).reshape(3, -1)
        + bias[:, 0]
    )
    np.testing.assert_allclose(run(layer, params, {"x": xv}), ref, rtol=RTOL, atol=ATOL)


def test_img_conv_names_shapes_and_default_init():
    with name_scope():
        x = image_data("x", 3, 8, 8)
        layer = conv.img_conv(input=x, filter_size=5, num_filters=16)
        second = conv.img_conv(
            input=layer,
            filter_size=3,
            num_filters=4,
            bias_attr=False,
            param_attr=attrs_mod.ParamAttr(initial_std=0.1),
        )
    assert layer.name == "__conv_0__" and second.name == "__conv_1__"
    w, b = layer.params
    assert (w.name, w.shape) == ("___conv_0__.w0", (16, 3, 5, 5))
    assert (b.name, b.shape) == ("___conv_0__.wbias", (16, 1))
    assert w.init == InitSpec("gaussian", 0.0, math.sqrt(2.0 / (25 * 3)))
    assert b.init == InitSpec("gaussian", 0.0, 0.0)
    assert [p.name for p in second.params] == ["___conv_1__.w0"]
    assert second.params[0].init == InitSpec("gaussian", 0.0, 0.1)
    values = initialize(w, 7)
    assert abs(values.std() - math.sqrt(2.0 / 75)) < 0.1 * math.sqrt(2.0 / 75)
    assert np.all(initialize(b, 7) == 0.0)


def test_img_conv_default_init_uses_v2_filter_size_squared():
    x = image_data("x", 2, 8, 8)
    layer = conv.img_conv(input=x, filter_size=3, filter_size_y=5, num_filters=4, trans=True)
    assert layer.params[0].shape == (2, 4, 5, 3)
    assert layer.params[0].init.std == pytest.approx(math.sqrt(2.0 / (9 * 2)))


def test_img_conv_parameter_name_and_sharing():
    x = image_data("x", 1, 5, 5)
    a = conv.img_conv(input=x, filter_size=3, num_filters=2, parameter_name="shared")
    b = conv.img_conv(
        input=x,
        filter_size=3,
        num_filters=2,
        param_attr=attrs_mod.ParamAttr(name="shared"),
        bias_attr=False,
    )
    assert [p.name for p in a.params] == ["shared", "shared.wbias"]
    assert b.params[0] == a.params[0]


def test_img_conv_dropout_extra_attr_scales_in_test():
    x = image_data("x", 1, 4, 4)
    plain = conv.img_conv(input=x, filter_size=3, num_filters=2, act=Linear(), name="plain")
    dropped = conv.img_conv(
        input=x,
        filter_size=3,
        num_filters=2,
        act=Linear(),
        name="drop",
        layer_attr=attrs_mod.ExtraAttr(drop_rate=0.25),
        param_attr=attrs_mod.ParamAttr(name="_plain.w0"),
        bias_attr=attrs_mod.ParamAttr(name="_plain.wbias"),
    )
    params = random_params(plain)
    xv = np.random.RandomState(0).randn(3, 16).astype(np.float32)
    np.testing.assert_allclose(
        run(dropped, params, {"x": xv}), 0.75 * run(plain, params, {"x": xv}), rtol=RTOL, atol=ATOL
    )


def test_img_conv_errors():
    flat = L.data(name="flat", type=dt.dense_vector(10))
    with pytest.raises(LayerConfigError, match=r"'__conv_\d+__'.*v2 could shape"):
        conv.img_conv(input=flat, filter_size=1, num_filters=1, num_channels=1)
    with pytest.raises(LayerConfigError, match="num_channels"):
        conv.img_conv(input=flat, filter_size=1, num_filters=1)
    x = image_data("x", 3, 4, 4)
    with pytest.raises(LayerConfigError, match=r"groups=2 must divide.*\(3\)"):
        conv.img_conv(input=x, filter_size=1, num_filters=4, groups=2, name="g")
    with pytest.raises(LayerConfigError, match="does not support error_clipping_threshold"):
        conv.img_conv(
            input=x,
            filter_size=1,
            num_filters=1,
            layer_attr=attrs_mod.ExtraAttr(error_clipping_threshold=1.0),
        )
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'filtersize'"):
        conv.img_conv(input=x, filtersize=1, num_filters=1)
    with pytest.raises(LayerConfigError, match="'small'.*output image would be"):
        conv.img_conv(input=x, filter_size=5, num_filters=1, name="small")
    with pytest.raises(LayerConfigError, match="num_channels=2 does not match"):
        conv.img_conv(input=x, filter_size=1, num_filters=1, num_channels=2)
    with pytest.raises(LayerConfigError, match="layer_type"):
        conv.img_conv(input=x, filter_size=1, num_filters=1, trans=True, layer_type="exconv")
    with pytest.raises(LayerTypeError, match="filter_size must be an int"):
        conv.img_conv(input=x, filter_size=1.5, num_filters=1)
    ids = L.data(name="ids", type=dt.integer_value(16))
    with pytest.raises(LayerConfigError, match="dense non-sequence"):
        conv.img_conv(input=ids, filter_size=1, num_filters=1, num_channels=1)


# img_pool -----------------------------------------------------------------------------
POOL_CASES = [
    # (H, W, pool (x, y), stride (x, y), padding (x, y), ceil_mode)
    (5, 5, (2, 2), (2, 2), (0, 0), True),
    (5, 5, (2, 2), (2, 2), (0, 0), False),
    (6, 7, (3, 2), (2, 1), (1, 0), True),
    (7, 6, (3, 3), (2, 3), (1, 1), True),
    (7, 6, (3, 3), (2, 3), (1, 1), False),
    (4, 4, (1, 1), (3, 3), (0, 0), True),
    (3, 3, (3, 3), (1, 1), (2, 2), True),
    (5, 5, (1, 1), (3, 3), (0, 0), True),  # the last windows start past the input: 0
]


def pool_out(n, k, s, p, ceil_mode):
    span = (n + 2 * p - k) / s
    return 1 + (math.ceil(span) if ceil_mode else math.floor(span))


@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("kind", ["max", "avg", "avg_incl"])
def test_img_pool_matches_brute_force(case, kind):
    h, w, k, s, p, ceil_mode = case
    x = image_data("x", 2, h, w)
    pool_type = poolings.Max() if kind == "max" else poolings.Avg()
    layer = pool.img_pool(
        input=x,
        pool_size=k[0],
        pool_size_y=k[1],
        stride=s[0],
        stride_y=s[1],
        padding=p[0],
        padding_y=p[1],
        ceil_mode=ceil_mode,
        pool_type=pool_type,
        exclude_mode=False if kind == "avg_incl" else None,
    )
    oh, ow = pool_out(h, k[1], s[1], p[1], ceil_mode), pool_out(w, k[0], s[0], p[0], ceil_mode)
    assert layer.spec.image == (2, oh, ow)
    assert layer.params == ()
    xv = np.random.RandomState(0).randn(3, 2 * h * w).astype(np.float32)
    ref = pool_ref(
        xv.reshape(3, 2, h, w).astype(np.float64),
        (k[1], k[0]),
        (s[1], s[0]),
        (p[1], p[0]),
        (oh, ow),
        "max" if kind == "max" else "avg",
        exclude=kind != "avg_incl",
    )
    out = run(layer, {}, {"x": xv})
    np.testing.assert_allclose(out, ref.reshape(3, -1), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(run_jit(layer, {}, {"x": xv}), out, rtol=RTOL, atol=ATOL)


def test_img_pool_max_ignores_padding_of_negative_inputs():
    x = image_data("x", 1, 2, 2)
    layer = pool.img_pool(input=x, pool_size=2, stride=1, padding=1)
    xv = -np.arange(1.0, 5.0, dtype=np.float32).reshape(1, 4).repeat(3, 0)
    out = run(layer, {}, {"x": xv}).reshape(3, 3, 3)[0]
    np.testing.assert_allclose(out, [[-1, -1, -2], [-1, -1, -2], [-3, -3, -4]])


def test_img_pool_cudnn_incl_pad_counts_padding_and_default_is_max():
    x = image_data("x", 1, 3, 3)
    incl = pool.img_pool(
        input=x, pool_size=2, stride=2, padding=1, pool_type=poolings.CudnnAvgInclPad()
    )
    default = pool.img_pool(input=x, pool_size=3, stride=1)
    xv = np.arange(9.0, dtype=np.float32).reshape(1, 9).repeat(3, 0)
    # 3x3 output (ceil); the last row and column of windows cover only padding
    np.testing.assert_allclose(
        run(incl, {}, {"x": xv})[0], [0 / 4, 3 / 4, 0, 9 / 4, 24 / 4, 0, 0, 0, 0]
    )
    np.testing.assert_allclose(run(default, {}, {"x": xv})[0], [8.0])


def test_img_pool_names_and_errors():
    with name_scope():
        x = image_data("x", 2, 4, 4)
        layer = pool.img_pool(input=x, pool_size=2)
    assert layer.name == "__pool_0__"
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        pool.img_pool(input=x, pool_size=2, layer_attr=attrs_mod.ExtraAttr(drop_rate=0.5))
    with pytest.raises(LayerTypeError, match="pool_type must be a paddle.pooling"):
        pool.img_pool(input=x, pool_size=2, pool_type="max")
    with pytest.raises(LayerConfigError, match="output image would be"):
        pool.img_pool(input=x, pool_size=6)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'size'"):
        pool.img_pool(input=x, size=2)
    flat = L.data(name="flat", type=dt.dense_vector(10))  # v2: 3 wide, 3 high: 9 != 10
    with pytest.raises(LayerConfigError, match="not an image v2 could shape"):
        pool.img_pool(input=flat, pool_size=2, num_channels=1)


def test_img_pool_gradient_of_average_is_window_share():
    x = image_data("x", 1, 2, 3)
    layer = pool.img_pool(input=x, pool_size=2, stride=2, pool_type=poolings.Avg())
    # output 1 x 2 (ceil): windows {0,1}x{0,1} (4 values) and {0,1}x{2} (2 values)
    grad = jax.grad(lambda v: forward([layer], {}, {"x": v})[0][0].sum())(
        np.ones((1, 6), np.float32)
    )
    np.testing.assert_allclose(
        np.asarray(grad).reshape(2, 3), [[0.25, 0.25, 0.5], [0.25, 0.25, 0.5]]
    )


def test_img_pool_gradient_of_max_counts_window_winners():
    x = image_data("x", 1, 4, 5)
    layer = pool.img_pool(input=x, pool_size=3, stride=2, padding=1)
    xv = np.random.RandomState(3).permutation(20).astype(np.float32).reshape(1, 20) - 10
    grad = jax.grad(lambda v: forward([layer], {}, {"x": v})[0][0].sum())(xv)
    xi, ref = xv.reshape(4, 5), np.zeros((4, 5))
    _, oh, ow = layer.spec.image
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = max(oy * 2 - 1, 0), max(ox * 2 - 1, 0)
            win = xi[y0 : oy * 2 + 2, x0 : ox * 2 + 2]
            iy, ix = np.unravel_index(np.argmax(win), win.shape)
            ref[y0 + iy, x0 + ix] += 1
    np.testing.assert_allclose(np.asarray(grad).reshape(4, 5), ref)


# maxout ------------------------------------------------------------------------------
def test_maxout_takes_consecutive_channels():
    with name_scope():
        x = image_data("x", 6, 2, 3)
        layer = pool.maxout(input=x, groups=3)
    assert layer.name == "__maxout_layer_0__"
    assert layer.spec.image == (2, 2, 3)
    xv = np.random.RandomState(0).randn(3, 36).astype(np.float32)
    xi = xv.reshape(3, 6, 2, 3).astype(np.float64)
    ref = np.zeros((3, 2, 2, 3))
    for j in range(2):
        for yy in range(2):
            for xx in range(3):
                for g in range(3):
                    cand = xi[:, j * 3 + g, yy, xx]
                    ref[:, j, yy, xx] = cand if g == 0 else np.maximum(ref[:, j, yy, xx], cand)
    np.testing.assert_allclose(run(layer, {}, {"x": xv}), ref.reshape(3, -1), rtol=RTOL)
    np.testing.assert_allclose(run_jit(layer, {}, {"x": xv}), ref.reshape(3, -1), rtol=RTOL)


def test_maxout_errors():
    x = image_data("x", 6, 2, 2)
    with pytest.raises(LayerConfigError, match=r"groups=4 must divide the input channels \(6\)"):
        pool.maxout(input=x, groups=4)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        pool.maxout(input=x, groups=2, layer_attr=attrs_mod.ExtraAttr(drop_rate=0.1))
    flat = L.data(name="flat", type=dt.dense_vector(8))
    out = pool.maxout(input=flat, groups=2, num_channels=2)
    assert out.spec.image == (1, 2, 2)


# pad -----------------------------------------------------------------------------------
def test_pad_places_input_and_zeros():
    with name_scope():
        x = image_data("x", 2, 2, 3)
        layer = pool.pad(input=x, pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1])
    assert layer.name == "__pad_0__"
    assert layer.spec.image == (7, 5, 7)
    xv = np.random.RandomState(0).randn(3, 12).astype(np.float32)
    ref = np.zeros((3, 7, 5, 7))
    xi = xv.reshape(3, 2, 2, 3)
    for c in range(2):
        for yy in range(2):
            for xx in range(3):
                ref[:, c + 2, yy + 1, xx + 3] = xi[:, c, yy, xx]
    np.testing.assert_allclose(run(layer, {}, {"x": xv}), ref.reshape(3, -1))
    np.testing.assert_allclose(run_jit(layer, {}, {"x": xv}), ref.reshape(3, -1))
    only_w = pool.pad(input=x, pad_w=[0, 1])
    assert only_w.spec.image == (2, 2, 4)


def test_pad_errors():
    x = image_data("x", 2, 2, 3)
    with pytest.raises(LayerConfigError, match=r"pad_h must be a \[before, after\] pair"):
        pool.pad(input=x, pad_h=[1])
    with pytest.raises(LayerConfigError, match="pad_c must be >= 0"):
        pool.pad(input=x, pad_c=[-1, 0])
    flat = L.data(name="flat", type=dt.dense_vector(12))
    with pytest.raises(LayerConfigError, match="not an image"):
        pool.pad(input=flat, pad_c=[1, 1])


def test_v2_test_layer_image_network_builds_with_v2_sizes():
    from paddle_lite._src.layers import norm
    from paddle_lite._src.layers.image import cmrnorm

    pixel = L.data(name="pixel", type=dt.dense_vector(128))
    c = conv.img_conv(
        input=pixel, filter_size=1, filter_size_y=1, num_channels=8, num_filters=16, act=Linear()
    )
    assert c.spec.image == (16, 4, 4)
    assert pool.img_pool(
        input=c, pool_size=2, num_channels=16, padding=1, pool_type=poolings.Max()
    ).spec.image == (16, 5, 5)
    assert pool.maxout(input=c, groups=4).spec.image == (4, 4, 4)
    assert pool.pad(input=c, pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1]).spec.image == (21, 7, 8)
    assert cmrnorm.img_cmrnorm(input=c, size=5).size == 256
    assert norm.batch_norm(input=c).params[0].shape == (1, 16)
    assert norm.sum_to_one_norm(input=c).size == 256


def test_lenet_sizes_from_the_book():
    images = L.data(name="pixel", type=dt.dense_vector(784))
    c1 = conv.img_conv(input=images, filter_size=5, num_filters=20, num_channels=1)
    p1 = pool.img_pool(input=c1, pool_size=2, stride=2)
    c2 = conv.img_conv(input=p1, filter_size=5, num_filters=50)
    p2 = pool.img_pool(input=c2, pool_size=2, stride=2)
    assert [lay.spec.image for lay in (c1, p1, c2, p2)] == [
        (20, 24, 24),
        (20, 12, 12),
        (50, 8, 8),
        (50, 4, 4),
    ]
    assert c2.params[0].shape == (50, 20, 5, 5)


def test_whole_floats_count_as_ints_as_python_2_divisions_made_them():
    # v2 programs wrote padding=(filter_size - 1) / 2, an int under Python 2 and 1.0 now
    x = image_data("x", 3, 6, 6)
    as_float = conv.img_conv(input=x, filter_size=3.0, num_filters=2.0, padding=(3 - 1) / 2)
    as_int = conv.img_conv(input=x, filter_size=3, num_filters=2, padding=1)
    assert as_float.spec == as_int.spec and as_int.spec.image == (2, 6, 6)
    assert as_float.attrs["padding"] == (1, 1) and type(as_float.attrs["padding"][0]) is int
    with pytest.raises(LayerTypeError, match="padding must be an int; received 0.5"):
        conv.img_conv(input=x, filter_size=3, num_filters=2, padding=0.5)
    with pytest.raises(LayerTypeError, match="size must be an int; received 2.5"):
        L.fc(input=x, size=2.5)
