"""conv_projection and conv_operator inside mixed (and concat) against float64 loops."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError

L, DT, ATTR = paddle.layer, paddle.data_type, paddle.attr
RNG = np.random.default_rng(3)


def _image(name, c, h, w):
    return L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)


def _conv_ref(x, w, stride, pad):
    """Cross-correlation; w: [F, C, ky, kx]."""
    n, c, h, wd = x.shape
    f, _, ky, kx = w.shape
    oh, ow = 1 + (h + 2 * pad[0] - ky) // stride[0], 1 + (wd + 2 * pad[1] - kx) // stride[1]
    out = np.zeros((n, f, oh, ow))
    for oy in range(oh):
        for ox in range(ow):
            for i in range(ky):
                for j in range(kx):
                    y, xx = oy * stride[0] - pad[0] + i, ox * stride[1] - pad[1] + j
                    if 0 <= y < h and 0 <= xx < wd:
                        out[:, :, oy, ox] += np.einsum("nc,fc->nf", x[:, :, y, xx], w[:, :, i, j])
    return out


def _conv_trans_ref(x, w, stride, pad, out_hw):
    """Transposed convolution by scattering; w: [C, F, ky, kx]."""
    n, c, h, wd = x.shape
    _, f, ky, kx = w.shape
    out = np.zeros((n, f, *out_hw))
    for y in range(h):
        for xx in range(wd):
            for i in range(ky):
                for j in range(kx):
                    oy, ox = y * stride[0] - pad[0] + i, xx * stride[1] - pad[1] + j
                    if 0 <= oy < out_hw[0] and 0 <= ox < out_hw[1]:
                        out[:, :, oy, ox] += np.einsum("nc,cf->nf", x[:, :, y, xx], w[:, :, i, j])
    return out


def _run(out, params, feeds):
    (value,), _ = forward([out], params, {k: v.astype("f4") for k, v in feeds.items()})
    return np.asarray(value)


def test_conv_projection_with_v2s_shared_bias():
    img = _image("img", 2, 5, 6)
    proj = L.conv_projection(input=img, filter_size=(3, 2), num_filters=4, stride=(1, 2), padding=1)
    m = L.mixed(input=proj, bias_attr=True)
    w_spec, b_spec = m.params
    assert (w_spec.name, w_spec.shape) == ("___mixed_0__.w0", (4, 2, 2, 3))  # [F, C, ky, kx]
    assert b_spec.shape == (1, 4)  # one bias per output channel, as v2
    assert w_spec.init.std == pytest.approx(np.sqrt(2.0 / (3 * 3 * 2)))  # v2: filter_size x
    x = RNG.normal(size=(2, 2, 5, 6))
    w, b = RNG.normal(size=w_spec.shape), RNG.normal(size=(1, 4))
    got = _run(
        m, {w_spec.name: w.astype("f4"), b_spec.name: b.astype("f4")}, {"img": x.reshape(2, -1)}
    )
    want = _conv_ref(x, w, (2, 1), (1, 1)) + b.reshape(1, 4, 1, 1)
    assert m.spec.image == want.shape[1:]
    np.testing.assert_allclose(got, want.reshape(2, -1), rtol=1e-5, atol=1e-5)


def test_transposed_conv_projection():
    img = _image("img", 3, 3, 3)
    m = L.mixed(
        input=L.conv_projection(
            input=img, filter_size=3, num_filters=2, stride=2, padding=1, trans=True
        )
    )
    (w_spec,) = m.params
    assert w_spec.shape == (3, 2, 3, 3)  # [C, F, ky, kx], as img_conv(trans=True)
    x, w = RNG.normal(size=(2, 3, 3, 3)), RNG.normal(size=w_spec.shape)
    got = _run(m, {w_spec.name: w.astype("f4")}, {"img": x.reshape(2, -1)})
    want = _conv_trans_ref(x, w, (2, 2), (1, 1), (5, 5))
    np.testing.assert_allclose(got, want.reshape(2, -1), rtol=1e-5, atol=1e-5)


def test_conv_operator_uses_each_samples_own_filter():
    img = _image("img", 2, 4, 4)
    filt = L.data(name="filt", type=DT.dense_vector(3 * 2 * 2 * 2))
    op = L.conv_operator(img=img, filter=filt, filter_size=2, num_filters=3, stride=2)
    with L.mixed() as m:
        m += op
    assert m.size == 3 * 2 * 2 and m.params == ()
    x, w = RNG.normal(size=(2, 2, 4, 4)), RNG.normal(size=(2, 3, 2, 2, 2))
    got = _run(m, {}, {"img": x.reshape(2, -1), "filt": w.reshape(2, -1)})
    want = np.concatenate([_conv_ref(x[s : s + 1], w[s], (2, 2), (0, 0)) for s in range(2)])
    np.testing.assert_allclose(got, want.reshape(2, -1), rtol=1e-5, atol=1e-5)


def test_concat_of_conv_projections_biases_each_block():
    img = _image("img", 1, 4, 4)
    p1 = L.conv_projection(input=img, filter_size=1, num_filters=2)
    p2 = L.conv_projection(input=img, filter_size=3, num_filters=3, padding=1)
    cat = L.concat(input=[p1, p2], bias_attr=True)
    shapes = [p.shape for p in cat.params]
    assert shapes == [(2, 1, 1, 1), (3, 1, 3, 3), (1, 5)] and cat.size == 5 * 16
    x = RNG.normal(size=(1, 1, 4, 4))
    w1, w2, b = RNG.normal(size=shapes[0]), RNG.normal(size=shapes[1]), RNG.normal(size=(1, 5))
    params = dict(zip([p.name for p in cat.params], [w1, w2, b], strict=True))
    got = _run(cat, {k: v.astype("f4") for k, v in params.items()}, {"img": x.reshape(1, -1)})
    want = np.concatenate(
        [_conv_ref(x, w1, (1, 1), (0, 0)), _conv_ref(x, w2, (1, 1), (1, 1))], axis=1
    ) + b.reshape(1, 5, 1, 1)
    np.testing.assert_allclose(got, want.reshape(1, -1), rtol=1e-5, atol=1e-5)


def test_v2_test_layer_projection_and_operator_forms_build():
    data = L.data(name="data", type=DT.dense_vector(784))
    word = L.data(name="word", type=DT.dense_vector(128))
    conv = L.conv_projection(
        input=data, filter_size=1, num_channels=1, num_filters=128, stride=1, padding=0
    )
    conv0 = L.mixed(input=conv, bias_attr=True)
    with L.mixed(bias_attr=True) as conv1:
        conv1 += conv
    op = L.conv_operator(
        img=data, filter=word, filter_size=1, num_channels=1, num_filters=128, stride=1, padding=0
    )
    with L.mixed() as op1:
        op1 += op
    assert conv0.size == conv1.size == op1.size == 128 * 784
    assert [p.shape for p in conv0.params] == [(128, 1, 1, 1), (1, 128)]


def test_conv_operator_filter_size_is_checked():
    img = _image("img", 2, 4, 4)
    with pytest.raises(LayerConfigError, match="expected num_filters \\* channels"):
        L.conv_operator(
            img=img, filter=L.data(name="f", type=DT.dense_vector(7)), filter_size=2, num_filters=3
        )


def test_bias_over_two_summed_conv_projections_is_refused_with_the_fix():
    img = _image("img", 1, 4, 4)
    projs = [L.conv_projection(input=img, filter_size=1, num_filters=2) for _ in range(2)]
    with pytest.raises(LayerConfigError, match="addto"):
        L.mixed(input=projs, bias_attr=True)
    assert L.mixed(input=projs).size == 32
