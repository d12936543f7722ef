"""switch_order, crop, resize, scale_sub_region, roi_pool and upsample against float64
references written from v2's C++ (values and gradients), and v2's golden configs
(test_resize_layer, test_scale_sub_region_layer, test_roi_pool_layer)."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError, LayerTypeError

try:
    from tests.unit import _image_extra_refs as ref
except ImportError:  # run from inside tests/
    import _image_extra_refs as ref

L, DT, A, P = paddle.layer, paddle.data_type, paddle.activation, paddle.pooling
RNG = np.random.default_rng(9)


@pytest.fixture(autouse=True)
def _fresh_names():
    with paddle.layer.name_scope():
        yield


def _image(name, c, h, w, n=2):
    layer = L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)
    return layer, RNG.normal(size=(n, c, h, w))


def _flat(feeds):
    return {k: np.asarray(v).reshape(len(v), -1).astype("f4") for k, v in feeds.items()}


def _run(out, feeds, params=None):
    (value,), _ = forward([out], params or {}, _flat(feeds))
    return np.asarray(value)


def _grad(out, feeds, cot, wrt):
    """d sum(out * cot) / d feeds[wrt], by jax.grad."""
    flat = _flat(feeds)

    def loss(v):
        value = forward([out], {}, {**flat, wrt: v})[0][0]
        return (value * cot.reshape(value.shape)).sum()

    return np.asarray(jax.grad(loss)(flat[wrt])).reshape(np.shape(feeds[wrt]))


# switch_order --------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [1, 2, 3])
def test_switch_order_is_nhwc_cut_into_rows(axis):
    img, x = _image("img", 3, 2, 4)
    out = L.switch_order(input=img, reshape_axis=axis, act=A.Relu())
    nhwc = x.transpose(0, 2, 3, 1)
    want = nhwc.reshape(-1, int(np.prod(nhwc.shape[axis:])))
    assert out.name == "__switch_order_0__" and out.size == want.shape[1]
    got = _run(out, {"img": x})
    np.testing.assert_allclose(got, want, rtol=1e-6)  # no activation, as in v2
    cot = RNG.normal(size=want.shape)
    grad = _grad(out, {"img": x}, cot, "img")
    np.testing.assert_allclose(grad, cot.reshape(nhwc.shape).transpose(0, 3, 1, 2), rtol=1e-6)


def test_switch_order_needs_reshape_axis_and_an_image():
    img, _ = _image("img", 3, 2, 4)
    with pytest.raises(LayerConfigError, match="reshape_axis must be 1, 2 or 3"):
        L.switch_order(input=img)
    flat = L.data(name="flat", type=DT.dense_vector(6))
    with pytest.raises(LayerConfigError, match="not an image"):
        L.switch_order(input=flat, reshape_axis=1)


# crop ----------------------------------------------------------------------------------
def test_crop_to_a_reference_and_to_a_shape():
    img, x = _image("img", 3, 6, 7)
    refimg, r = _image("ref", 5, 4, 3)
    by_ref = L.crop(input=[img, refimg], offset=[1, 2], axis=2)
    assert by_ref.name == "__crop_layer_0__" and by_ref.spec.image == (3, 4, 3)
    np.testing.assert_allclose(
        _run(by_ref, {"img": x, "ref": r}), x[:, :, 1:5, 2:5].reshape(2, -1), rtol=1e-6
    )
    by_shape = L.crop(input=img, offset=[1], axis=1, shape=[0, 2, 3, 3])
    want = x[:, 1:3, 1:4, 1:4]
    assert by_shape.spec.image == (2, 3, 3)
    np.testing.assert_allclose(_run(by_shape, {"img": x}), want.reshape(2, -1), rtol=1e-6)
    cot = RNG.normal(size=want.shape)
    grad = np.zeros_like(x)
    grad[:, 1:3, 1:4, 1:4] = cot
    np.testing.assert_allclose(_grad(by_shape, {"img": x}, cot, "img"), grad, rtol=1e-6)
    axis3 = L.crop(input=img, offset=[2], axis=3, shape=[0, 9, 9, 4])  # only W is cropped
    assert axis3.spec.image == (3, 6, 4)


def test_crop_refuses_windows_past_the_input_and_missing_targets():
    img, _ = _image("img", 3, 6, 7)
    with pytest.raises(LayerConfigError, match="runs past the input"):
        L.crop(input=img, offset=[3, 0], axis=2, shape=[0, 3, 4, 4])
    with pytest.raises(LayerConfigError, match="reference input or shape"):
        L.crop(input=img, offset=[0])
    with pytest.raises(LayerTypeError, match="offset must be"):
        L.crop(input=img, offset="1", shape=[0, 3, 2, 2])
    with pytest.raises(LayerConfigError, match="too few entries"):
        L.crop(input=img, offset=[1, 1], axis=1, shape=[0, 2, 2, 2])
    one = L.crop(input=img, offset=1, axis=2, shape=[0, 3, 2, 2])
    assert one.attrs["corner"] == (0, 1, 1)


# resize --------------------------------------------------------------------------------
def test_resize_golden_config_and_values():
    """test_resize_layer: 300 -> rows of 150 (v2's ResizeLayer re-cuts the batch matrix)."""
    data = L.data(name="input", type=DT.dense_vector(300))
    out = L.resize(input=data, size=150)
    assert (out.name, out.layer_type, out.size, out.params) == ("__resize_0__", "resize", 150, ())
    x = RNG.normal(size=(3, 300))
    np.testing.assert_allclose(_run(out, {"input": x}), x.reshape(6, 150), rtol=1e-6)
    odd = L.resize(input=data, size=7)
    with pytest.raises(LayerConfigError, match="not a multiple of size 7"):
        _run(odd, {"input": x})
    cot = RNG.normal(size=(6, 150))
    np.testing.assert_allclose(_grad(out, {"input": x}, cot, "input"), cot.reshape(3, 300))


# scale_sub_region ----------------------------------------------------------------------
def _scale_ref(x, idx, value):
    out = x.copy()
    for n, (c0, c1, h0, h1, w0, w1) in enumerate(idx.astype(int)):
        out[n, c0 - 1 : c1, h0 - 1 : h1, w0 - 1 : w1] *= value
    return out


def test_scale_sub_region_golden_config_values_and_gradient():
    data, x = _image("data", 1, 48, 42)
    indices = L.data(name="indices", type=DT.dense_vector(6))
    out = L.scale_sub_region(input=data, indices=indices, value=0.0)
    assert (out.name, out.layer_type, out.size, out.spec.image) == (
        "__scale_sub_region_0__", "scale_sub_region", 2016, (1, 48, 42)
    )  # fmt: skip
    img, x = _image("img", 3, 4, 5)
    box = np.array([[1, 2, 2, 3, 1, 5], [3, 3, 1, 4, 4, 4]], np.float32)
    out = L.scale_sub_region(input=img, indices=indices, value=2.5)
    feeds = {"img": x, "indices": box}
    np.testing.assert_allclose(_run(out, feeds), _scale_ref(x, box, 2.5).reshape(2, -1), rtol=1e-6)
    cot = RNG.normal(size=x.shape)
    np.testing.assert_allclose(_grad(out, feeds, cot, "img"), _scale_ref(cot, box, 2.5), rtol=1e-6)
    with pytest.raises(LayerConfigError, match=r"'i5'|size 5; expected 6"):
        L.scale_sub_region(input=img, indices=L.data(name="i5", type=DT.dense_vector(5)), value=1)


# roi_pool ------------------------------------------------------------------------------
def test_roi_pool_golden_config():
    data = L.data(name="data", type=DT.dense_vector(3 * 14 * 14), height=14, width=14)
    rois = L.data(name="rois", type=DT.dense_vector(10))
    conv = L.img_conv(
        input=data, filter_size=3, num_channels=3, num_filters=16, padding=1, act=A.Linear()
    )
    out = L.roi_pool(input=conv, rois=rois, pooled_width=7, pooled_height=7, spatial_scale=1.0 / 16)
    assert (out.name, out.layer_type, out.size, out.spec.image, out.params) == (
        "__roi_pool_0__", "roi_pool", 784, (16, 7, 7), ()
    )  # fmt: skip


def test_roi_pool_matches_v2_loops_and_routes_gradient_to_maxima():
    img, x = _image("img", 2, 9, 8, n=2)
    rois = L.data(name="rois", type=DT.dense_vector(6))
    boxes = np.array(
        [
            [0, 0, 0, 15, 17, 9],  # the whole map at scale 0.5
            [1, 3, 2, 9, 5, 0],  # a small region: bins of 1 or 2 pixels, some empty
            [1, 14, 16, 30, 30, 0],  # runs past the map: clipped, trailing bins empty
            [0, 5, 5, 4, 4, 0],  # end before start: a 1-pixel region
        ],
        np.float32,
    )
    out = L.roi_pool(input=img, rois=rois, pooled_width=3, pooled_height=4, spatial_scale=0.5)
    feeds = {"img": x, "rois": boxes}
    want = ref.roi_pool(x, boxes, 4, 3, 0.5)
    got = _run(out, feeds)
    assert got.shape == (4, 2 * 4 * 3)
    np.testing.assert_allclose(got, want.reshape(4, -1), rtol=1e-6)
    cot = RNG.normal(size=want.shape)
    num = ref.numeric_grad(lambda v: ref.roi_pool(v, boxes, 4, 3, 0.5), x, cot, eps=1e-5)
    np.testing.assert_allclose(_grad(out, feeds, cot, "img"), num, atol=1e-4)


def test_roi_pool_needs_region_rows():
    img, _ = _image("img", 2, 9, 8)
    with pytest.raises(LayerConfigError, match="size >= 5"):
        L.roi_pool(
            input=img, rois=L.data(name="r4", type=DT.dense_vector(4)), pooled_width=2,
            pooled_height=2, spatial_scale=1.0,
        )  # fmt: skip


# upsample ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hw", "pool", "kwargs", "out_hw"),
    [
        ((6, 8), (2, 2, 0), {"scale": 2}, (6, 8)),
        ((5, 7), (2, 2, 0), {"scale": 2, "pad_out_x": True, "pad_out_y": True}, (5, 7)),
        ((5, 5), (3, 2, 1), {"upsample_size": 6, "upsample_size_y": 5}, (5, 6)),
    ],
)
def test_upsample_puts_values_at_the_pool_maxima(hw, pool, kwargs, out_hw):
    img, x = _image("img", 2, *hw)
    size, stride, pad = pool
    pooled = L.img_pool(
        input=img, pool_size=size, stride=stride, padding=pad, pool_type=P.MaxWithMask()
    )
    out = L.upsample(input=[pooled, pooled], **kwargs)
    assert out.name == "__upsample_0__" and out.spec.image == (2, *out_hw)
    mask = ref.max_pool_mask(x, (size,) * 2, (stride,) * 2, (pad,) * 2, pooled.spec.image[1:])
    values = np.take_along_axis(x.reshape(2, 2, -1), mask.reshape(2, 2, -1), axis=2)
    want = ref.upsample(values.reshape(mask.shape), mask, out_hw)
    np.testing.assert_allclose(_run(out, {"img": x}), want.reshape(2, -1), rtol=1e-6)


def test_upsample_gradient_follows_the_mask():
    img, x = _image("img", 2, 4, 6)
    vals = L.data(name="vals", type=DT.dense_vector(2 * 2 * 3), height=2, width=3)
    pooled = L.img_pool(input=img, pool_size=2, stride=2, pool_type=P.MaxWithMask())
    out = L.upsample(input=[vals, pooled], scale=2)
    v = RNG.normal(size=(2, 2, 2, 3))
    feeds = {"img": x, "vals": v}
    mask = ref.max_pool_mask(x, (2, 2), (2, 2), (0, 0), (2, 3))
    cot = RNG.normal(size=(2, 2, 4, 6))
    want = np.take_along_axis(cot.reshape(2, 2, -1), mask.reshape(2, 2, -1), axis=2)
    np.testing.assert_allclose(_grad(out, feeds, cot, "vals"), want.reshape(v.shape), rtol=1e-6)
    np.testing.assert_allclose(_grad(out, feeds, cot, "img"), 0.0)


def test_upsample_checks_its_inputs():
    img, _ = _image("img", 2, 4, 6)
    pooled = L.img_pool(input=img, pool_size=2, stride=2, pool_type=P.MaxWithMask())
    avg = L.img_pool(input=img, pool_size=2, stride=2, pool_type=P.Avg())
    with pytest.raises(LayerConfigError, match="max img_pool"):
        L.upsample(input=[avg, avg], scale=2)
    with pytest.raises(LayerConfigError, match="scale= or upsample_size="):
        L.upsample(input=[pooled, pooled])
    with pytest.raises(LayerConfigError, match="pad_out_x needs scale == 2"):
        L.upsample(input=[pooled, pooled], scale=3, pad_out_x=True)
    with pytest.raises(LayerConfigError, match="output's size"):
        L.upsample(input=[img, pooled], scale=2)
