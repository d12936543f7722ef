"""maxout's gradient on ties (CpuMatrix::maxoutForward / maxoutBackward), the image
geometry v2's config_parser gave a flat input with num_channels (get_img_size), and the
pooling types v2's img_pool_layer and spp_layer accepted."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError

L, DT = paddle.layer, paddle.data_type


@pytest.fixture(autouse=True)
def fresh_names():
    with L.name_scope():
        yield


# maxout ------------------------------------------------------------------------------
def v2_maxout(x, g, groups):
    """maxoutForward: ``colMax`` over the group's channels keeps the first maximum
    (``std::partial_sort`` of one element replaces it only by a strictly larger value);
    maxoutBackward sends each output gradient to that one input. ``x`` ``[B, C, P]``."""
    b, c, p = x.shape
    out, grad = np.zeros((b, c // groups, p)), np.zeros_like(x)
    for n in range(b):
        for j in range(c // groups):
            for f in range(p):
                best = 0
                for k in range(1, groups):
                    if x[n, j * groups + k, f] > x[n, j * groups + best, f]:
                        best = k
                out[n, j, f] = x[n, j * groups + best, f]
                grad[n, j * groups + best, f] += g[n, j, f]
    return out, grad


@pytest.mark.parametrize("jit", [False, True])
def test_maxout_gradient_on_ties_goes_to_the_first_maximum(jit):
    x = L.data(name="x", type=DT.dense_vector(6 * 2 * 3), height=2, width=3)
    out = L.maxout(input=x, groups=3)
    rng = np.random.default_rng(0)
    xv = rng.integers(-1, 2, size=(4, 36)).astype(np.float32)  # many ties
    g = rng.normal(size=(4, 12)).astype(np.float32)

    def loss(v):
        (y,), _ = forward([out], {}, {"x": v})
        return jnp.sum(y * g), y

    fn = jax.jit(jax.grad(loss, has_aux=True)) if jit else jax.grad(loss, has_aux=True)
    grad, y = fn(xv)
    want_y, want_grad = v2_maxout(xv.reshape(4, 6, 6), g.reshape(4, 2, 6), 3)
    np.testing.assert_array_equal(np.asarray(y), want_y.reshape(4, -1))
    np.testing.assert_allclose(np.asarray(grad), want_grad.reshape(4, -1), rtol=1e-6)


# flat inputs with num_channels ---------------------------------------------------------
def v2_image(size, channels):
    """get_img_size for an input without width and height: ``W = int(sqrt(pixels))``,
    ``H = pixels / W``, refused unless ``W * H == pixels``."""
    pixels = size // channels
    w = int(pixels**0.5)
    h = pixels // w
    return (channels, h, w) if w * h == pixels and pixels * channels == size else None


@pytest.mark.parametrize(("size", "channels"), [(12, 1), (12, 2), (24, 3), (18, 2)])
def test_a_flat_input_gets_v2s_width_and_height(size, channels):
    image = v2_image(size, channels)
    flat = L.data(name="flat", type=DT.dense_vector(size))
    pool = L.img_pool(input=flat, pool_size=2, stride=1, num_channels=channels)
    c, h, w = image
    assert pool.spec.image == (c, h - 1, w - 1)
    assert L.img_cmrnorm(input=flat, size=3, num_channels=channels).spec.image == image
    bn = L.batch_norm(input=flat, num_channels=channels)
    assert bn.spec.image == image
    # the pooled values follow that geometry: rows of W pixels, H of them
    xv = np.arange(2 * size, dtype=np.float32).reshape(2, size)
    (got,), _ = forward([pool], {}, {"flat": xv})
    img = xv.reshape(2, c, h, w)
    want = np.maximum.reduce(
        [img[:, :, :-1, :-1], img[:, :, 1:, :-1], img[:, :, :-1, 1:], img[:, :, 1:, 1:]]
    )
    np.testing.assert_array_equal(np.asarray(got), want.reshape(2, -1))


@pytest.mark.parametrize(("size", "channels"), [(10, 1), (14, 2), (7, 2)])
def test_a_flat_input_v2_could_not_shape_is_refused(size, channels):
    assert v2_image(size, channels) is None
    flat = L.data(name="flat", type=DT.dense_vector(size))
    with pytest.raises(LayerConfigError, match="not an image v2 could shape"):
        L.img_pool(input=flat, pool_size=1, num_channels=channels)
    with pytest.raises(LayerConfigError, match="not an image v2 could shape"):
        L.img_conv(input=flat, filter_size=1, num_filters=1, num_channels=channels)


# pooling types -----------------------------------------------------------------------
@pytest.mark.parametrize("pool_type", [paddle.pooling.Sum(), paddle.pooling.SquareRootN])
def test_img_pool_refuses_the_sum_poolings_as_v2_did(pool_type):
    x = L.data(name="x", type=DT.dense_vector(16), height=4, width=4)
    with pytest.raises(LayerConfigError, match=r"img_pool takes Max, Avg.*use paddle.pooling.Avg"):
        L.img_pool(input=x, pool_size=2, stride=2, pool_type=pool_type)


def test_avg_strategies_and_spp_sum_pooling_average_as_in_v2():
    x = L.data(name="x", type=DT.dense_vector(16), height=4, width=4)
    xv = np.arange(32, dtype=np.float32).reshape(2, 16)
    want = xv.reshape(2, 2, 2, 2, 2).mean(axis=(2, 4)).reshape(2, -1)
    summed = L.img_pool(input=x, pool_size=2, stride=2, pool_type=paddle.pooling.Avg("sum"))
    (got,), _ = forward([summed], {}, {"x": xv})
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    spp = L.spp(input=x, num_channels=1, pyramid_height=2, pool_type=paddle.pooling.Sum())
    (got,), _ = forward([spp], {}, {"x": xv})
    np.testing.assert_allclose(np.asarray(got)[:, 1:], want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got)[:, 0], xv.mean(axis=1), rtol=1e-6)
