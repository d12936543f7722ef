"""A first-layer convolution on a CPU runs as patches times a filter matrix
(``conv._patches_conv``): its values against a float64 brute-force convolution, its
gradients against XLA's convolution, and a network through it against the same network
with every convolution left to XLA."""

import jax
import numpy as np
import pytest
from jax import grad, lax

import paddle_lite as paddle
from paddle_lite._src.layers.image import conv

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(11)

# (batch, height, width, channels, filters, ky, kx, stride, padding, dilation)
GEOMETRIES = [
    (2, 9, 11, 3, 4, 3, 5, (1, 2), (1, 2), (1, 1)),
    (2, 10, 10, 1, 3, 5, 5, (2, 2), (0, 0), (1, 1)),
    (3, 12, 9, 2, 5, 3, 3, (1, 1), (2, 1), (2, 3)),
]


def _brute_force(x, w, stride, padding, dilation):
    """float64 NHWC convolution by the OIHW filter ``w``, one output pixel at a time."""
    (sy, sx), (py, px), (dy, dx) = stride, padding, dilation
    f, _, ky, kx = w.shape
    x = np.pad(x.astype(np.float64), ((0, 0), (py, py), (px, px), (0, 0)))
    n, h, wd, _ = x.shape
    oh, ow = (h - dy * (ky - 1) - 1) // sy + 1, (wd - dx * (kx - 1) - 1) // sx + 1
    out = np.zeros((n, oh, ow, f))
    for y in range(oh):
        for z in range(ow):
            window = x[
                :,
                y * sy : y * sy + dy * (ky - 1) + 1 : dy,
                z * sx : z * sx + dx * (kx - 1) + 1 : dx,
            ]
            out[:, y, z] = np.einsum("nijc,fcij->nf", window, w.astype(np.float64))
    return out


def _xla(x, w, stride, padding, dilation):
    return lax.conv_general_dilated(
        x,
        w,
        stride,
        [(p, p) for p in padding],
        rhs_dilation=dilation,
        dimension_numbers=("NHWC", "OIHW", "NHWC"),
        precision="highest",
    )


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_patches_convolution_equals_brute_force_and_xla_gradients(geometry):
    n, h, wd, c, f, ky, kx, *conf = geometry
    x = RNG.normal(size=(n, h, wd, c)).astype(np.float32)
    w = RNG.normal(size=(f, c, ky, kx)).astype(np.float32)
    with jax.default_matmul_precision("highest"):  # a GPU would otherwise use TF32
        got = np.asarray(conv._patches_conv(x, w, *conf))
        g = RNG.normal(size=got.shape).astype(np.float32)
        mine = grad(lambda x, w: (conv._patches_conv(x, w, *conf) * g).sum(), (0, 1))(x, w)
        xla = grad(lambda x, w: (_xla(x, w, *conf) * g).sum(), (0, 1))(x, w)
    np.testing.assert_allclose(got, _brute_force(x, w, *conf), rtol=1e-5, atol=1e-5)
    for a, b in zip(mine, xla, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-4)


def _net():
    image = L.data(name="x", type=DT.dense_vector(3 * 8 * 8), height=8, width=8)
    y = L.data(name="y", type=DT.integer_value(4))
    c1 = L.img_conv(input=image, filter_size=3, num_filters=4, num_channels=3, padding=1)
    c2 = L.img_conv(input=c1, filter_size=3, num_filters=4, stride=2)
    p = L.fc(input=c2, size=4, act=A.Softmax())
    return L.classification_cost(input=p, label=y)


def _train(monkeypatch, patch_channels):
    monkeypatch.setattr(conv, "PATCH_CHANNELS", patch_channels)
    traced = []  # the convolutions traced as patches
    patches_conv = conv._patches_conv
    monkeypatch.setattr(conv, "_patches_conv", lambda *a: traced.append(a) or patches_conv(*a))
    paddle.layer.reset_names()
    cost = _net()
    params = paddle.parameters.create(cost, seed=2)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(0.9, learning_rate=0.05))
    data = [(RNG.normal(size=192).astype(np.float32), int(RNG.integers(4))) for _ in range(32)]
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)

    trainer.train(paddle.batch(lambda: iter(data), 8), num_passes=2, event_handler=handler)
    return {n: params.get(n) for n in params.names()}, costs, traced


@pytest.mark.skipif(
    jax.default_backend() != "cpu", reason="the patches path is taken on a CPU only (conv.py)"
)
def test_a_network_trains_through_patches_as_through_xla_convolutions(monkeypatch):
    state = RNG.bit_generator.state
    want, want_costs, traced = _train(monkeypatch, 0)  # every convolution left to XLA
    assert traced == []
    RNG.bit_generator.state = state
    got, got_costs, traced = _train(monkeypatch, 3)  # the first one (3 channels) as patches
    assert traced and {a[0].shape[-1] for a in traced} == {3}
    np.testing.assert_allclose(got_costs, want_costs, rtol=1e-4)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5, err_msg=name)


def test_only_small_ungrouped_convolutions_over_few_channels_on_a_cpu_use_patches():
    def image(*shape):
        return jax.ShapeDtypeStruct(shape, np.float32)

    attrs = {"groups": 1, "stride": (1, 1), "padding": (1, 1), "dilation": (1, 1)}
    w = np.zeros((8, 3, 3, 3))
    cpu = jax.default_backend() == "cpu"
    assert conv._as_patches(image(1, 4, 4, 3), w, attrs) is cpu
    assert not conv._as_patches(image(1, 4, 4, 4), np.zeros((8, 4, 3, 3)), attrs)
    assert not conv._as_patches(image(1, 4, 4, 2), w, {**attrs, "groups": 2})
    # 64 RGB images of 224 x 224 under a 7 x 7 filter: 1.8 GB of patches at stride 1
    big = np.zeros((8, 3, 7, 7))
    assert not conv._as_patches(image(64, 224, 224, 3), big, {**attrs, "padding": (3, 3)})
    smaller = {**attrs, "stride": (4, 4), "padding": (3, 3)}  # 113 MB of patches
    assert conv._as_patches(image(64, 224, 224, 3), big, smaller) is cpu
