"""img_conv3d (conv3d / deconv3d), img_pool3d and 3-D batch_norm against float64
brute-force loops written from v2's C++, and v2's golden configs (test_conv3d_layer,
test_deconv3d_layer, test_pooling3D_layer, test_BatchNorm3D)."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite.errors import LayerConfigError

try:
    from tests.unit import _image_extra_refs as ref
except ImportError:  # run from inside tests/
    import _image_extra_refs as ref

L, DT, A, P = paddle.layer, paddle.data_type, paddle.activation, paddle.pooling
RNG = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def _fresh_names():
    with paddle.layer.name_scope():
        yield


def _volume(name, c, d, h, w, n=2):
    layer = L.data(name=name, type=DT.dense_vector(c * d * h * w), height=h, width=w, depth=d)
    return layer, RNG.normal(size=(n, c, d, h, w))


def _params(out, seed=1):
    return {s.name: np.asarray(initialize(s, seed)) for s in Topology(out).param_specs()}


def _run(out, feeds, params):
    flat = {k: v.reshape(len(v), -1).astype("f4") for k, v in feeds.items()}
    (value,), _ = forward([out], params, flat)
    return np.asarray(value)


def _grads(out, feeds, params, cot):
    """jax.grad of sum(out * cot) with respect to the parameters and the feeds."""
    flat = {k: v.reshape(len(v), -1).astype("f4") for k, v in feeds.items()}

    def loss(p, f):
        return (forward([out], p, f)[0][0] * cot.reshape(len(cot), -1)).sum()

    return jax.grad(loss, argnums=(0, 1))(params, flat)


# img_conv3d ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stride", "pad", "groups", "shared"),
    [(1, 0, 1, True), ([1, 2, 2], [1, 0, 1], 2, True), (2, 1, 1, False)],
)
def test_conv3d_matches_brute_force_forward_and_gradient(stride, pad, groups, shared):
    vol, x = _volume("vol", 2, 3, 4, 5)
    out = L.img_conv3d(
        input=vol, filter_size=[2, 3, 2], num_filters=4, num_channels=2, stride=stride,
        padding=pad, groups=groups, shared_biases=shared, act=A.Linear(),
    )  # fmt: skip
    p = _params(out)
    w, b = p["___conv3d_0__.w0"].astype("f8"), p["___conv3d_0__.wbias"].astype("f8")
    assert w.shape == (4, 2 // groups, 2, 3, 2)  # (F, C/g, kz, ky, kx); filter (x, y, z)
    zyx = lambda v: tuple(reversed(v)) if isinstance(v, list) else (v, v, v)  # noqa: E731
    want = ref.conv3d(x, w, zyx(stride), zyx(pad), groups)
    want = want + (b.reshape(1, -1, 1, 1, 1) if shared else b.reshape(1, *want.shape[1:]))
    assert out.spec.image == (4 * want.shape[2], *want.shape[3:])
    np.testing.assert_allclose(_run(out, {"vol": x}, p), want.reshape(2, -1), rtol=1e-4, atol=1e-5)
    cot = RNG.normal(size=want.shape)
    gp, gf = _grads(out, {"vol": x}, p, cot)
    conv = lambda xx, ww: ref.conv3d(xx, ww, zyx(stride), zyx(pad), groups)  # noqa: E731
    np.testing.assert_allclose(
        gf["vol"].reshape(x.shape), ref.numeric_grad(lambda v: conv(v, w), x, cot), atol=1e-3
    )
    np.testing.assert_allclose(
        gp["___conv3d_0__.w0"], ref.numeric_grad(lambda v: conv(x, v), w, cot), atol=1e-3
    )


@pytest.mark.parametrize(("stride", "pad", "groups"), [(1, 0, 1), (2, 1, 2), ([2, 1, 1], 0, 1)])
def test_deconv3d_follows_v2_layout_forward_and_gradient(stride, pad, groups):
    vol, x = _volume("vol", 4, 2, 3, 2)
    out = L.img_conv3d(
        input=vol, filter_size=[3, 2, 2], num_filters=4, num_channels=4, stride=stride,
        padding=pad, groups=groups, trans=True, act=A.Linear(),
    )  # fmt: skip
    assert out.layer_type == "deconv3d" and out.name == "__conv3d_0__"
    p = _params(out)
    w, b = p["___conv3d_0__.w0"].astype("f8"), p["___conv3d_0__.wbias"].astype("f8")
    assert w.shape == (4, 2, 2, 3, 4 // groups)  # v2: [F*kz*ky*kx, F/g]
    zyx = lambda v: tuple(reversed(v)) if isinstance(v, list) else (v, v, v)  # noqa: E731
    want = ref.deconv3d(x, w, zyx(stride), zyx(pad), groups) + b.reshape(1, -1, 1, 1, 1)
    np.testing.assert_allclose(_run(out, {"vol": x}, p), want.reshape(2, -1), rtol=1e-4, atol=1e-5)
    cot = RNG.normal(size=want.shape)
    gp, gf = _grads(out, {"vol": x}, p, cot)
    dec = lambda xx, ww: ref.deconv3d(xx, ww, zyx(stride), zyx(pad), groups)  # noqa: E731
    np.testing.assert_allclose(
        gf["vol"].reshape(x.shape), ref.numeric_grad(lambda v: dec(v, w), x, cot), atol=1e-3
    )
    np.testing.assert_allclose(
        gp["___conv3d_0__.w0"], ref.numeric_grad(lambda v: dec(x, v), w, cot), atol=1e-3
    )


def _golden_data():
    return L.data(name="data", type=DT.dense_vector(12096 * 3), height=48, width=42, depth=6)


@pytest.mark.parametrize(
    ("trans", "size", "w_size", "depth"), [(False, 24192, 1296, 3), (True, 1387760, 6912, 11)]
)
def test_conv3d_golden_configs(trans, size, w_size, depth):
    """test_conv3d_layer / test_deconv3d_layer: type, size, parameters, initial std."""
    kind = "deconv3d" if trans else "conv3d"
    data = _golden_data()
    for name, settings in (
        (f"{kind}_1", {"filter_size": 3, "stride": 2, "padding": 1}),
        (f"{kind}_2", {"filter_size": [3, 3, 3], "stride": [2, 2, 2], "padding": [1, 1, 1]}),
    ):
        out = L.img_conv3d(
            input=data, name=name, num_filters=16, num_channels=3, groups=1, bias_attr=True,
            shared_biases=True, trans=trans, layer_type=kind, act=A.Linear(), **settings,
        )  # fmt: skip
        assert (out.layer_type, out.size, out.attrs["out_depth"]) == (kind, size, depth)
        w0, bias = out.params
        assert (w0.name, w0.size, bias.name, bias.shape) == (
            f"_{name}.w0",
            w_size,
            f"_{name}.wbias",
            (16, 1),
        )
        assert w0.init.std == pytest.approx(0.272165526976) and bias.init.std == 0.0


def test_deconv3d_reads_num_filters_channels_as_v2():
    """Fewer channels than filters: built (v2's config parses) but refused when run;
    more: the first num_filters channels are used."""
    vol, x = _volume("vol", 2, 2, 2, 2)
    out = L.img_conv3d(input=vol, filter_size=2, num_filters=3, num_channels=2, trans=True)
    assert out.params[0].shape == (3, 2, 2, 2, 3)
    with pytest.raises(LayerConfigError, match="num_channels >= num_filters"):
        _run(out, {"vol": x}, _params(out))
    wide, xw = _volume("wide", 3, 2, 2, 2)
    out = L.img_conv3d(input=wide, filter_size=2, num_filters=2, trans=True, act=A.Linear())
    p = _params(out)
    w, b = p["___conv3d_1__.w0"].astype("f8"), p["___conv3d_1__.wbias"].astype("f8")
    want = ref.deconv3d(xw[:, :2], w, (1, 1, 1), (0, 0, 0), 1) + b.reshape(1, -1, 1, 1, 1)
    got = _run(out, {"wide": xw}, p)  # float32 sums against float64: near-zero sums need atol
    np.testing.assert_allclose(got, want.reshape(2, -1), rtol=1e-5, atol=1e-6)


def test_conv3d_checks_its_arguments():
    vol, _ = _volume("vol", 2, 3, 4, 5)
    with pytest.raises(LayerConfigError, match=r"num_channels \* depth"):
        L.img_conv3d(input=vol, filter_size=2, num_filters=2, num_channels=3)
    with pytest.raises(LayerConfigError, match="groups=2 must divide"):
        L.img_conv3d(input=vol, filter_size=2, num_filters=3, groups=2)
    with pytest.raises(LayerConfigError, match=r"\(x, y, z\)"):
        L.img_conv3d(input=vol, filter_size=[2, 2], num_filters=2)
    with pytest.raises(LayerConfigError, match="layer_type 'exconv'"):
        L.img_conv3d(input=vol, filter_size=2, num_filters=2, layer_type="exconv")
    with pytest.raises(LayerConfigError, match="layer_type 'conv3d' is not valid with trans"):
        L.img_conv3d(input=vol, filter_size=2, num_filters=2, trans=True, layer_type="conv3d")
    typed = L.img_conv3d(input=vol, filter_size=2, num_filters=2, layer_type="deconv3d")
    assert typed.layer_type == "deconv3d" and typed.attrs["trans"]
    with pytest.raises(LayerConfigError, match="output volume would be"):
        L.img_conv3d(input=vol, filter_size=4, num_filters=2)
    flat = L.data(name="flat", type=DT.dense_vector(8))
    with pytest.raises(LayerConfigError, match="not an image"):
        L.img_conv3d(input=flat, filter_size=1, num_filters=2, num_channels=1)


# img_pool3d ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(
    ("size", "stride", "pad", "ceil"), [(2, 2, 0, True), (3, 2, 1, True), (2, 3, 1, False)]
)
def test_pool3d_matches_brute_force_forward_and_gradient(kind, size, stride, pad, ceil):
    vol, x = _volume("vol", 2, 4, 5, 3)
    pool_type = P.Max() if kind == "max" else P.Avg()
    out = L.img_pool3d(
        input=vol, pool_size=size, stride=stride, padding=pad, pool_type=pool_type, ceil_mode=ceil
    )
    k = (size,) * 3
    want = ref.pool3d(x, k, (stride,) * 3, (pad,) * 3, kind, ceil)
    assert out.name == "__pool3d_0__" and out.attrs["out_depth"] == want.shape[2]
    np.testing.assert_allclose(_run(out, {"vol": x}, {}), want.reshape(2, -1), rtol=1e-5, atol=1e-6)
    cot = RNG.normal(size=want.shape)
    _, gf = _grads(out, {"vol": x}, {}, cot)
    pool = lambda v: ref.pool3d(v, k, (stride,) * 3, (pad,) * 3, kind, ceil)  # noqa: E731
    np.testing.assert_allclose(
        gf["vol"].reshape(x.shape), ref.numeric_grad(pool, x, cot, eps=1e-5), atol=1e-4
    )


def test_pool3d_reads_settings_as_v2_does():
    """An int serves all axes (the *_y / *_z arguments are ignored); a padding list
    (x, y, z) gives z to y and leaves z to padding_z, else x (v2's unpacking)."""
    vol, _ = _volume("vol", 1, 6, 6, 6)
    one = L.img_pool3d(input=vol, pool_size=2, pool_size_y=3, stride=1, stride_z=2)
    assert one.attrs["pool_size"] == (2, 2, 2) and one.attrs["stride"] == (1, 1, 1)
    lst = L.img_pool3d(input=vol, pool_size=[3, 2, 1], stride=[1, 1, 1], padding=[0, 1, 2])
    assert lst.attrs["pool_size"] == (1, 2, 3) and lst.attrs["padding"] == (0, 2, 0)
    z = L.img_pool3d(input=vol, pool_size=2, padding=[0, 1, 2], padding_z=1)
    assert z.attrs["padding"] == (1, 2, 0)
    with pytest.raises(LayerConfigError, match="Max\\(\\) and Avg\\(\\)"):
        L.img_pool3d(input=vol, pool_size=2, pool_type=P.CudnnMax())


def test_pooling3d_golden_config():
    data = L.data(name="data_3d_1", type=DT.dense_vector(60000), depth=10, height=20, width=10)
    avg = L.img_pool3d(
        name="pool_3d_1", input=data, num_channels=30, pool_size=5, stride=3, padding=1,
        pool_type=P.Avg(),
    )  # fmt: skip
    mx = L.img_pool3d(
        name="pool_3d_2", input=data, num_channels=30, pool_size=[5, 5, 5], stride=[3, 3, 3],
        padding=[1, 1, 1], pool_type=P.Max(),
    )  # fmt: skip
    for out in (avg, mx):
        assert (out.layer_type, out.size, out.spec.image[1:], out.attrs["out_depth"]) == (
            "pool3d",
            3360,
            (7, 4),
            4,
        )
        assert out.params == ()


# batch_norm img3D ----------------------------------------------------------------------
def test_batch_norm_3d_golden_config_and_statistics():
    """test_BatchNorm3D: one channel over 3x6x20; statistics over the batch and D*H*W."""
    data = L.data(name="data3D", type=DT.dense_vector(120 * 3), width=20, height=6, depth=3)
    bn = L.batch_norm(input=data, num_channels=1, img3D=True)
    assert (bn.name, bn.size, bn.attrs["out_depth"], bn.spec.image) == (
        "__batch_norm_0__",
        360,
        3,
        (3, 6, 20),
    )
    names = [(s.name, s.shape, s.init.mean, s.is_static) for s in bn.params]
    assert names == [
        ("___batch_norm_0__.w0", (1, 1), 1.0, False),
        ("___batch_norm_0__.w1", (1, 1), 0.0, True),
        ("___batch_norm_0__.w2", (1, 1), 0.0, True),
        ("___batch_norm_0__.wbias", (1, 1), 0.0, False),
    ]
    vol, x = _volume("vol", 2, 3, 2, 2, n=4)
    out = L.batch_norm(input=vol, img3D=True, act=A.Linear())
    assert out.attrs["channels"] == 2
    p = _params(out)
    got, _ = forward([out], p, {"vol": x.reshape(4, -1).astype("f4")}, mode="train")
    mean = x.mean(axis=(0, 2, 3, 4), keepdims=True)
    var = x.var(axis=(0, 2, 3, 4), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(np.asarray(got[0]), want.reshape(4, -1), rtol=1e-4, atol=1e-5)
    with pytest.raises(LayerConfigError, match=r"num_channels \* depth"):
        L.batch_norm(input=vol, img3D=True, num_channels=3)
