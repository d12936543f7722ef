"""paddle.image: OpenCV-style decoding (BGR, HWC), v2's resize_short quirk, crops,
flips, the standard transform and tar batching, on small generated images."""

import io
import os
import pickle
import tarfile

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src import image as I

PIL = pytest.importorskip("PIL.Image", reason="the image extra (Pillow) decodes the test files")
RNG = np.random.default_rng(21)


def _png(rgb):
    buf = io.BytesIO()
    PIL.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def _rgb(h, w):
    return RNG.integers(0, 256, size=(h, w, 3)).astype(np.uint8)


def test_load_image_gives_bgr_hwc_uint8(tmp_path):
    rgb = _rgb(5, 7)
    path = tmp_path / "cat.png"
    path.write_bytes(_png(rgb))
    im = paddle.image.load_image(str(path))
    assert im.dtype == np.uint8 and im.shape == (5, 7, 3)
    np.testing.assert_array_equal(im, rgb[:, :, ::-1])  # blue first, as OpenCV
    np.testing.assert_array_equal(paddle.image.load_image_bytes(_png(rgb)), im)
    gray = paddle.image.load_image(str(path), is_color=False)
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    luma = (4899 * r + 9617 * g + 1868 * b + 8192) >> 14  # OpenCV's BGR2GRAY
    assert gray.shape == (5, 7) and np.abs(gray.astype(int) - luma).max() == 0


def test_resize_short_keeps_v2s_axis_swap():
    # the short edge becomes 16, but v2 handed OpenCV (new_h, new_w) as (width, height):
    # a portrait image comes back landscape and a landscape one portrait
    assert paddle.image.resize_short(_rgb(30, 20), 16).shape == (16, 24, 3)
    assert paddle.image.resize_short(_rgb(20, 30), 16).shape == (24, 16, 3)
    gray = RNG.integers(0, 255, (9, 12)).astype(np.uint8)
    assert paddle.image.resize_short(gray, 6).shape == (8, 6)
    assert paddle.image.resize_short(_rgb(30, 20), 16).dtype == np.uint8


def test_cubic_resize_is_opencvs_kernel():
    flat = np.full((7, 9, 3), 77, np.uint8)
    assert (I.cubic_resize(flat, 4, 13) == 77).all()  # weights sum to 1, edges replicated
    im = _rgb(6, 8)
    np.testing.assert_array_equal(I.cubic_resize(im, 6, 8), im)  # same size: identity
    # half-pixel centres: 2x downscale of a ramp samples between source pixels
    ramp = np.tile(np.arange(0, 80, 10, dtype=np.float64), (2, 1))
    idx, w = I._cubic_weights(8, 4)
    assert idx[1].tolist() == [1, 2, 3, 4] and np.allclose(w.sum(axis=1), 1.0)
    np.testing.assert_allclose(I.cubic_resize(ramp, 2, 4)[0, 1:3], [25.0, 45.0])


def test_cubic_resize_matches_opencv_where_it_is_installed():
    cv2 = pytest.importorskip("cv2", reason="OpenCV (v2's image backend) is not installed here")
    for shape, out in [((30, 20, 3), (24, 16)), ((17, 41, 3), (38, 50)), ((64, 48), (21, 16))]:
        im = RNG.integers(0, 256, size=shape).astype(np.uint8)
        ref = cv2.resize(im, out, interpolation=cv2.INTER_CUBIC)
        np.testing.assert_array_equal(I.cubic_resize(im, out[1], out[0]), ref)


def test_flip_chw_and_crops():
    im = _rgb(6, 8)
    np.testing.assert_array_equal(paddle.image.left_right_flip(im), np.flip(im, 1))
    assert paddle.image.to_chw(im).shape == (3, 6, 8)
    np.testing.assert_array_equal(paddle.image.center_crop(im, 4), im[1:5, 2:6])
    np.random.seed(3)
    crop = paddle.image.random_crop(im, 4)
    hits = [(t, x) for t in range(3) for x in range(5) if (im[t : t + 4, x : x + 4] == crop).all()]
    assert len(hits) == 1
    gray = im[..., 0]
    assert paddle.image.center_crop(gray, 4, is_color=False).shape == (4, 4)


def test_simple_transform_test_and_train():
    im = _rgb(20, 30)
    mean = [10.0, 20.0, 30.0]
    out = paddle.image.simple_transform(im, 16, 12, is_train=False, mean=mean)
    resized = I.cubic_resize(im, 24, 16)  # v2's swapped resize
    want = resized[6:18, 2:14].transpose(2, 0, 1).astype(np.float32) - np.array(mean)[:, None, None]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want)
    np.random.seed(0)
    train = paddle.image.simple_transform(im, 16, 12, is_train=True)
    assert train.shape == (3, 12, 12)


def test_load_and_transform_and_batches_from_tar(tmp_path):
    files = {f"jpg/image_{i:05d}.png": _png(_rgb(8, 10)) for i in range(5)}
    tar_path = str(tmp_path / "flowers.tgz")
    with tarfile.open(tar_path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    labels = {name: i % 3 for i, name in enumerate(files) if i != 2}
    meta = paddle.image.batch_images_from_tar(tar_path, "train", labels, num_per_batch=3)
    assert meta == tar_path + "_batch/train.txt"
    with open(meta) as f:
        batch_files = f.read().split()
    assert [os.path.basename(f) for f in batch_files] == ["batch_0", "batch_1"]
    with open(batch_files[0], "rb") as f:
        first = pickle.load(f)  # written by this test: trusted
    assert first["label"] == [0, 1, 0] and first["data"][0] == files["jpg/image_00000.png"]
    path = tmp_path / "one.png"
    path.write_bytes(files["jpg/image_00001.png"])
    assert paddle.image.load_and_transform(str(path), 8, 6, is_train=False).shape == (3, 6, 6)
