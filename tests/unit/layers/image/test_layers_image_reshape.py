"""spp, bilinear_interp, rotate and block_expand against float64 brute-force loops."""

import math

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError

L, DT, P = paddle.layer, paddle.data_type, paddle.pooling
RNG = np.random.default_rng(5)


def _image(name, c, h, w):
    layer = L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)
    return layer, RNG.normal(size=(2, c, h, w))


def _run(out, feeds):
    (value,), _ = forward(
        [out], {}, {k: v.reshape(len(v), -1).astype("f4") for k, v in feeds.items()}
    )
    return value


# spp ---------------------------------------------------------------------------------
def _spp_ref(x, height, kind):
    n, c, h, w = x.shape
    parts = []
    for level in range(height):
        bins = 2**level
        out = np.zeros((n, c, bins, bins))
        sizes = [math.ceil(d / bins) for d in (h, w)]
        pads = [(s * bins - d + 1) // 2 for s, d in zip(sizes, (h, w), strict=True)]
        for by in range(bins):
            for bx in range(bins):
                y0, x0 = by * sizes[0] - pads[0], bx * sizes[1] - pads[1]
                ys = [y for y in range(y0, y0 + sizes[0]) if 0 <= y < h]
                xs = [x for x in range(x0, x0 + sizes[1]) if 0 <= x < w]
                win = x[:, :, ys][:, :, :, xs]
                out[:, :, by, bx] = win.max(axis=(2, 3)) if kind == "max" else win.mean((2, 3))
        parts.append(out.reshape(n, -1))
    return np.concatenate(parts, axis=1)


@pytest.mark.parametrize(("hw", "height"), [((4, 4), 2), ((7, 6), 3), ((6, 9), 2)])
@pytest.mark.parametrize("pool", ["max", "avg"])
def test_spp_matches_brute_force(hw, height, pool):
    img, x = _image("img", 3, *hw)
    pool_type = P.Max() if pool == "max" else P.Avg()
    out = L.spp(input=img, pyramid_height=height, pool_type=pool_type)
    width = (4**height - 1) // 3
    assert out.name == "__spp_0__" and out.spec.image == (3, 1, width)
    np.testing.assert_allclose(
        _run(out, {"img": x}), _spp_ref(x, height, pool), rtol=1e-5, atol=1e-6
    )


def test_spp_bin_over_padding_only_is_zero():
    img, x = _image("img", 1, 5, 5)  # level 2: windows of 2 padded by 2, the first empty
    got = np.asarray(_run(L.spp(input=img, pyramid_height=3), {"img": x}))
    level2 = got[:, 5:].reshape(2, 4, 4)
    assert (level2[:, 0, :] == 0).all() and (level2[:, :, 0] == 0).all()
    np.testing.assert_allclose(level2[:, 1, 1], x[:, 0, 0:2, 0:2].max(axis=(1, 2)), rtol=1e-6)


def test_spp_needs_pyramid_height_and_bins_that_fit():
    img, _ = _image("img", 1, 3, 3)
    with pytest.raises(LayerConfigError, match="pyramid_height"):
        L.spp(input=img)
    with pytest.raises(LayerConfigError, match="pools to 5x5 bins instead of 4x4"):
        L.spp(input=img, pyramid_height=3)


# bilinear_interp -----------------------------------------------------------------------
def _bilinear_ref(x, oh, ow):
    n, c, h, w = x.shape
    rh = np.float32((h - 1) / (oh - 1)) if oh > 1 else 0.0
    rw = np.float32((w - 1) / (ow - 1)) if ow > 1 else 0.0
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        y = int(np.float32(rh * i))
        dy = 1 if y < h - 1 else 0
        ly = float(np.float32(rh * i)) - y
        for j in range(ow):
            xx = int(np.float32(rw * j))
            dx = 1 if xx < w - 1 else 0
            lx = float(np.float32(rw * j)) - xx
            out[:, :, i, j] = (1 - ly) * ((1 - lx) * x[:, :, y, xx] + lx * x[:, :, y, xx + dx]) + (
                ly * ((1 - lx) * x[:, :, y + dy, xx] + lx * x[:, :, y + dy, xx + dx])
            )
    return out.reshape(n, -1)


@pytest.mark.parametrize(("hw", "out"), [((4, 4), (7, 7)), ((5, 3), (2, 6)), ((3, 4), (1, 1))])
def test_bilinear_interp_matches_v2s_corner_aligned_formula(hw, out):
    img, x = _image("img", 2, *hw)
    layer = L.bilinear_interp(input=img, out_size_x=out[1], out_size_y=out[0])
    assert layer.name == "__bilinear_interp_layer_0__" and layer.spec.image == (2, *out)
    np.testing.assert_allclose(
        _run(layer, {"img": x}), _bilinear_ref(x, *out), rtol=1e-5, atol=1e-5
    )


def test_bilinear_interp_keeps_corners_and_needs_sizes():
    img, x = _image("img", 1, 3, 5)
    got = np.asarray(_run(L.bilinear_interp(input=img, out_size_x=9, out_size_y=6), {"img": x}))
    got = got.reshape(2, 1, 6, 9)
    np.testing.assert_allclose(
        got[:, :, [0, 0, -1, -1], [0, -1, 0, -1]],
        x[:, :, [0, 0, -1, -1], [0, -1, 0, -1]],
        rtol=1e-6,
    )
    with pytest.raises(LayerTypeError, match="out_size_y must be an int"):
        L.bilinear_interp(input=img, out_size_x=4)


# rotate ------------------------------------------------------------------------------
def test_rotate_turns_each_map_clockwise():
    x = RNG.normal(size=(2, 3, 2, 4))  # 3 maps of 2 x 4
    data = L.data(name="x", type=DT.dense_vector(24))
    out = L.rotate(input=data, height=2, width=4)
    want = np.stack([np.stack([np.rot90(m, -1) for m in s]) for s in x])
    assert want[0, 0, 0, 1] == x[0, 0, 0, 0]  # out[c, j, H-1-i] = in[c, i, j]
    np.testing.assert_allclose(_run(out, {"x": x}), want.reshape(2, -1))
    assert out.name == "__rotate_layer_0__" and out.spec.image == (3, 4, 2)


def test_rotate_of_a_size_that_is_not_whole_maps_builds_but_cannot_run():
    # v2's test_layer.py built rotate(size 128, 16, 49); v2 stopped when it ran
    with pytest.warns(LayerConfigWarning, match="not a whole number of height\\*width"):
        rot = L.rotate(input=L.data(name="x", type=DT.dense_vector(128)), height=16, width=49)
    assert rot.size == 128
    L.parse_network(rot)
    with pytest.raises(LayerConfigError, match="cannot run: input size 128 is not a whole"):
        _run(rot, {"x": RNG.normal(size=(2, 128))})


# block_expand ------------------------------------------------------------------------
def _block_ref(x, block, stride, pad):
    n, c, h, w = x.shape
    counts = [
        1 + math.ceil((d + 2 * p - b) / s)
        for d, b, s, p in zip((h, w), block, stride, pad, strict=True)
    ]
    steps = []
    for by in range(counts[0]):
        for bx in range(counts[1]):
            patch = np.zeros((n, c, *block))
            for i in range(block[0]):
                for j in range(block[1]):
                    y, xx = by * stride[0] - pad[0] + i, bx * stride[1] - pad[1] + j
                    if 0 <= y < h and 0 <= xx < w:
                        patch[:, :, i, j] = x[:, :, y, xx]
            steps.append(patch.reshape(n, -1))
    return np.stack(steps, axis=1)


@pytest.mark.parametrize(
    ("block", "stride", "pad"),
    [((2, 2), (2, 2), (0, 0)), ((3, 1), (1, 1), (1, 0)), ((2, 3), (2, 2), (1, 1))],
)
def test_block_expand_matches_im2col(block, stride, pad):
    img, x = _image("img", 2, 4, 5)
    out = L.block_expand(
        input=img,
        block_y=block[0],
        block_x=block[1],
        stride_y=stride[0],
        stride_x=stride[1],
        padding_y=pad[0],
        padding_x=pad[1],
    )
    value = _run(out, {"img": x})
    want = _block_ref(x, block, stride, pad)
    assert out.spec.seq_level == 1 and out.size == 2 * block[0] * block[1]
    np.testing.assert_allclose(np.asarray(value.data), want, rtol=1e-6)
    assert np.asarray(value.lengths).tolist() == [want.shape[1]] * 2


def test_block_expand_with_v2s_zero_defaults_builds_but_cannot_run():
    # v2 built and parsed block_y=0 (its default), size C * 0 * 1 = 0, and divided by zero
    # when it ran; num_channels other than the image's was built too (size by num_channels)
    img, x = _image("img", 4, 4, 4)
    with pytest.warns(LayerConfigWarning, match="block_y, stride_y = 0 .*divided by zero"):
        out = L.block_expand(input=img, stride_x=1, block_x=1)
    assert out.size == 0 and out.spec.seq_level == 1
    L.parse_network(out)
    with pytest.raises(LayerConfigError, match="cannot run: block_y, stride_y = 0"):
        _run(out, {"img": x})
    with pytest.warns(LayerConfigWarning, match=r"num_channels=2 does not match .*\(4, 4, 4\)"):
        out = L.block_expand(
            input=img, num_channels=2, block_x=2, block_y=2, stride_x=1, stride_y=1
        )
    assert out.size == 2 * 2 * 2
    with pytest.raises(LayerConfigError, match="cannot run: num_channels=2"):
        _run(out, {"img": x})
