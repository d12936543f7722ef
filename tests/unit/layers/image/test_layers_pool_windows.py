"""img_pool's two computations (tiles, windows) and v2's max-pool gradient on ties.

The reference is a float64 numpy transcription of v2's CPU loops
(``CpuMatrix::maxPoolForward`` / ``maxPoolBackward``, ``avgPoolBackward``): every input
element equal to its window's maximum receives that window's output gradient whole.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from paddle_lite import layer as L
from paddle_lite._src import data_types as dt
from paddle_lite._src import poolings
from paddle_lite._src.compile import forward
from paddle_lite._src.layers.image import pool
from paddle_lite._src.layers.image import windows as pw

FLT_MAX = float(np.finfo(np.float32).max)

CASES = [
    # (H, W, window (y, x), stride (y, x), padding (y, x), ceil_mode, tiles)
    (8, 8, (2, 2), (2, 2), (0, 0), True, True),  # LeNet's pools
    (5, 7, (2, 3), (2, 3), (0, 0), True, True),  # ceil mode: clipped last windows
    (5, 7, (2, 3), (2, 3), (0, 0), False, True),  # floor mode: the remainder is dropped
    (6, 5, (3, 2), (3, 2), (1, 1), True, True),  # windows equal to strides, padded
    (4, 4, (4, 4), (1, 1), (0, 0), True, True),  # one window: a global pool
    (7, 6, (3, 3), (2, 2), (1, 1), True, False),  # overlapping windows
    (6, 7, (2, 3), (1, 2), (0, 1), False, False),
    (5, 5, (1, 1), (3, 3), (0, 0), True, False),  # gaps between windows
]


def _windows(h, w, k, s, p, out_hw):
    """v2's clipped window bounds per output position: ``(oy, ox, y0, y1, x0, x1)``."""
    for oy in range(out_hw[0]):
        for ox in range(out_hw[1]):
            y0, x0 = oy * s[0] - p[0], ox * s[1] - p[1]
            y1, x1 = min(y0 + k[0], h), min(x0 + k[1], w)
            yield oy, ox, max(y0, 0), y1, max(x0, 0), x1


def v2_max_pool(x, g, k, s, p, out_hw):
    """v2's max-pool forward and backward loops over ``x`` [B, C, H, W] in float64;
    also returns how many elements of each window equal its maximum."""
    h, w = x.shape[2:]
    out = np.full((*x.shape[:2], *out_hw), -FLT_MAX)
    grad, winners = np.zeros_like(x), np.zeros(out.shape, int)
    for oy, ox, y0, y1, x0, x1 in _windows(h, w, k, s, p, out_hw):
        for iy in range(y0, y1):
            for ix in range(x0, x1):
                out[:, :, oy, ox] = np.maximum(out[:, :, oy, ox], x[:, :, iy, ix])
    for oy, ox, y0, y1, x0, x1 in _windows(h, w, k, s, p, out_hw):
        for iy in range(y0, y1):
            for ix in range(x0, x1):
                winner = x[:, :, iy, ix] == out[:, :, oy, ox]
                grad[:, :, iy, ix] += g[:, :, oy, ox] * winner
                winners[:, :, oy, ox] += winner
    return out, grad, winners


def v2_avg_pool_backward(x, g, k, s, p, out_hw, exclude):
    """Each window's gradient shared equally by the elements it averages."""
    h, w = x.shape[2:]
    grad = np.zeros_like(x)
    for oy, ox, y0, y1, x0, x1 in _windows(h, w, k, s, p, out_hw):
        if exclude:
            count = (y1 - y0) * (x1 - x0)
        else:
            ys, xs = oy * s[0] - p[0], ox * s[1] - p[1]
            count = (min(ys + k[0], h + p[0]) - ys) * (min(xs + k[1], w + p[1]) - xs)
        if y1 > y0 and x1 > x0:
            grad[:, :, y0:y1, x0:x1] += (g[:, :, oy, ox] / count)[:, :, None, None]
    return grad


def _layer(case, pool_type, exclude_mode=None):
    h, w, k, s, p, ceil_mode, _ = case
    x = L.data(name="x", type=dt.dense_vector(2 * h * w), height=h, width=w)
    return pool.img_pool(
        input=x,
        pool_size=k[1],
        pool_size_y=k[0],
        stride=s[1],
        stride_y=s[0],
        padding=p[1],
        padding_y=p[0],
        ceil_mode=ceil_mode,
        pool_type=pool_type,
        exclude_mode=exclude_mode,
    )


def _value_and_grad(layer, xv, gv, jit):
    def weighted(v):
        (out,), _ = forward([layer], {}, {"x": v})
        return (out * gv).sum(), out

    fn = jax.value_and_grad(weighted, has_aux=True)
    (_, out), grad = (jax.jit(fn) if jit else fn)(xv)
    return np.asarray(out), np.asarray(grad)


def _tie_heavy(rng, shape):
    """Values from {-1, 0, 1}: most windows hold several equal maxima."""
    return rng.randint(-1, 2, size=shape).astype(np.float32)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("jit", [False, True])
def test_max_pool_gradient_on_ties_is_v2s(case, jit):
    h, w, k, s, p, _, _ = case
    layer = _layer(case, poolings.Max())
    _, oh, ow = layer.spec.image
    rng = np.random.RandomState(7)
    xv = _tie_heavy(rng, (3, 2 * h * w))
    gv = rng.randn(3, 2 * oh * ow).astype(np.float32)
    out, grad = _value_and_grad(layer, xv, gv, jit)
    x64 = xv.reshape(3, 2, h, w).astype(np.float64)
    ref_out, ref_grad, winners = v2_max_pool(
        x64, gv.reshape(3, 2, oh, ow).astype(np.float64), k, s, p, (oh, ow)
    )
    np.testing.assert_array_equal(out, np.where(ref_out == -FLT_MAX, 0, ref_out).reshape(3, -1))
    np.testing.assert_allclose(grad, ref_grad.reshape(3, -1), rtol=1e-6, atol=1e-6)
    # the input really has ties: windows that send their gradient to several elements
    assert (winners > 1).mean() > 0.2 or k == (1, 1)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("exclude_mode", [None, False])
def test_avg_pool_gradient_is_v2s_window_share(case, exclude_mode):
    h, w, k, s, p, _, _ = case
    layer = _layer(case, poolings.Avg(), exclude_mode)
    _, oh, ow = layer.spec.image
    rng = np.random.RandomState(3)
    xv = rng.randn(2, 2 * h * w).astype(np.float32)
    gv = rng.randn(2, 2 * oh * ow).astype(np.float32)
    _, grad = _value_and_grad(layer, xv, gv, jit=True)
    ref = v2_avg_pool_backward(
        xv.reshape(2, 2, h, w).astype(np.float64),
        gv.reshape(2, 2, oh, ow).astype(np.float64),
        k,
        s,
        p,
        (oh, ow),
        exclude=exclude_mode is None,
    )
    np.testing.assert_allclose(grad, ref.reshape(2, -1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_tiles_are_taken_exactly_where_windows_tile(case):
    layer = _layer(case, poolings.Max())
    h, w, k, s, p, _, expected = case
    _, oh, ow = layer.spec.image
    assert pw.tiles([(h, oh, k[0], s[0], p[0]), (w, ow, k[1], s[1], p[1])]) is expected


@pytest.mark.parametrize("case", [c for c in CASES if c[-1]])
def test_tiles_and_windows_agree_where_both_apply(case):
    h, w, k, s, p, _, _ = case
    oh, ow = _layer(case, poolings.Max()).spec.image[1:]
    axes = [(h, oh, k[0], s[0], p[0]), (w, ow, k[1], s[1], p[1])]
    rng = np.random.RandomState(11)
    xv = _tie_heavy(rng, (2, 3, h, w))
    gv = rng.randn(2, 3, oh, ow).astype(np.float32)

    def tiled(v):
        return (pw._tiled(v, -np.inf, axes, False, pw._tile_max) * gv).sum()

    def windowed(v):
        return (pw._window_max(v, axes) * gv).sum()

    np.testing.assert_array_equal(jax.grad(tiled)(xv), jax.grad(windowed)(xv))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_channels_last_pooling_is_the_same_computation(case, kind):
    h, w, k, s, p, _, _ = case
    oh, ow = _layer(case, poolings.Max()).spec.image[1:]
    axes = [(h, oh, k[0], s[0], p[0]), (w, ow, k[1], s[1], p[1])]
    rng = np.random.RandomState(5)
    xv = _tie_heavy(rng, (2, 3, h, w))
    gv = rng.randn(2, 3, oh, ow).astype(np.float32)

    def nchw(v):
        return (pw.pool_windows(v, kind, True, axes) * gv).sum()

    def nhwc(v):
        y = pw.pool_windows(v.transpose(0, 2, 3, 1), kind, True, axes, nhwc=True)
        return (y.transpose(0, 3, 1, 2) * gv).sum()

    np.testing.assert_allclose(nhwc(xv), nchw(xv), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(nhwc)(xv), jax.grad(nchw)(xv), rtol=1e-6, atol=1e-7)
