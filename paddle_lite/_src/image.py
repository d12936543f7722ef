"""Image helpers (v2 ``paddle.image``) on numpy, with Pillow to decode files.

v2 read images with OpenCV, so images here are what OpenCV gives: ``uint8`` arrays in
HWC layout with the channels in **BGR** order (``[..., 0]`` is blue), or ``H x W``
for grayscale (``is_color=False``). Keep that in mind when mixing with other
libraries (``im[..., ::-1]`` gives RGB). Decoding needs Pillow (``pip install
"paddle_lite[image]"``); everything else is numpy. Color images decode exactly as
OpenCV decodes them; grayscale JPEGs too (libjpeg's luma), other grayscale reads of
color files within one grey level.

``resize_short`` reproduces v2's call of OpenCV's cubic resize, including its quirk:
v2 passed ``(new_h, new_w)`` where OpenCV expects ``(width, height)``, so the short
edge becomes ``size`` but the long edge is laid along the other axis (a 300x200
image becomes 256x384). The cubic kernel is OpenCV's (``a = -0.75``, pixel centres
aligned, edges replicated), computed in float64 and rounded to ``uint8``, so values
agree with OpenCV's fixed-point result to within one grey level.
"""

from __future__ import annotations

import io
import os
import pickle
import tarfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataError

CUBIC_A = -0.75


# decoding ---------------------------------------------------------------------------
def pil_image() -> Any:
    """Pillow's ``PIL.Image`` module, or an ``ImportError`` saying how to install it."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "paddle.image needs Pillow to decode images; install it with "
            "pip install 'paddle_lite[image]' (or pip install Pillow)."
        ) from None
    return Image


def _decode(source: Any, is_color: bool) -> np.ndarray:
    with pil_image().open(source) as image:
        if not is_color and image.format == "JPEG":
            image.draft("L", image.size)  # libjpeg's own luma, as OpenCV reads grayscale JPEGs
        if image.mode in ("L", "1", "I;16") and not is_color:
            return np.asarray(image.convert("L"))
        rgb = np.asarray(image.convert("RGB"))
    if is_color:
        return np.ascontiguousarray(rgb[:, :, ::-1])
    # OpenCV's fixed-point luma: (4899 R + 9617 G + 1868 B + 2**13) >> 14
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)


def load_image_bytes(bytes: bytes, is_color: bool = True) -> np.ndarray:
    """Decode an encoded image (JPEG, PNG ...) from bytes.

    Returns:
        ``uint8`` ``[H, W, 3]`` in BGR order, or ``[H, W]`` when ``is_color=False``.

    Example:
        ```python
        im = paddle.image.load_image_bytes(open("cat.jpg", "rb").read())
        ```
    """
    return _decode(io.BytesIO(bytes), bool(is_color))


def load_image(file: str | os.PathLike[str], is_color: bool = True) -> np.ndarray:
    """Read an image file (as OpenCV's ``imread``: BGR, HWC, uint8).

    Example:
        ```python
        im = paddle.image.load_image("cat.jpg")   # im.shape == (H, W, 3)
        ```
    """
    if not os.path.exists(file):
        raise DataError(f"load_image: no image file at {file!r}.")
    return _decode(file, bool(is_color))


# geometry ---------------------------------------------------------------------------
def _cubic_weights(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indices [n_out, 4], weights [n_out, 4])`` of OpenCV's bicubic resampling."""
    scale = n_in / n_out
    pos = (np.arange(n_out) + 0.5) * scale - 0.5
    start = np.floor(pos).astype(np.int64)
    t = pos - start
    a = CUBIC_A
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    weights = np.stack([w0, w1, w2, 1.0 - w0 - w1 - w2], axis=1)
    indices = np.clip(start[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    return indices, weights


def cubic_resize(im: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize ``im`` (``[H, W]`` or ``[H, W, C]``) to ``height x width`` (OpenCV cubic)."""
    src = np.asarray(im, np.float64)
    rows, wr = _cubic_weights(src.shape[0], height)
    cols, wc = _cubic_weights(src.shape[1], width)
    tmp = np.einsum("ok,okw...->ow...", wr, src[rows])
    out = np.einsum("pk,opk...->op...", wc, tmp[:, cols])
    if np.issubdtype(np.asarray(im).dtype, np.integer):
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(np.asarray(im).dtype)


def resize_short(im: np.ndarray, size: int) -> np.ndarray:
    """Resize so that the short edge is ``size`` (v2's call, quirk included).

    For an ``h x w`` image with ``h > w`` the result is ``size x (size*h//w)``; otherwise
    ``(size*w//h) x size`` — the long edge swaps axes, as v2's call of OpenCV did (see
    the module docstring).

    Example:
        ```python
        im = paddle.image.resize_short(im, 256)   # min(im.shape[:2]) == 256
        ```
    """
    h, w = im.shape[:2]
    h_new, w_new = size, size
    if h > w:
        h_new = size * h // w
    else:
        w_new = size * w // h
    if im.ndim == 3 and im.shape[2] not in (1, 3):
        raise DataError(f"resize_short: expected 1 or 3 channels; received {im.shape[2]}.")
    return cubic_resize(im, w_new, h_new)  # OpenCV took (h_new, w_new) as (width, height)


def to_chw(im: np.ndarray, order: tuple[int, int, int] = (2, 0, 1)) -> np.ndarray:
    """Transpose an HWC image to CHW (or any ``order``).

    Example:
        ```python
        chw = paddle.image.to_chw(im)   # (3, H, W)
        ```
    """
    if len(im.shape) != len(order):
        raise DataError(f"to_chw: order {order} does not fit an image of shape {im.shape}.")
    return im.transpose(order)


def _crop(im: np.ndarray, size: int, top: int, left: int, is_color: bool) -> np.ndarray:
    if is_color:
        return im[top : top + size, left : left + size, :]
    return im[top : top + size, left : left + size]


def center_crop(im: np.ndarray, size: int, is_color: bool = True) -> np.ndarray:
    """The central ``size x size`` square (offsets ``(h - size) // 2``, ``(w - size) // 2``).

    Example:
        ```python
        im = paddle.image.center_crop(im, 224)
        ```
    """
    h, w = im.shape[:2]
    return _crop(im, size, (h - size) // 2, (w - size) // 2, is_color)


def random_crop(im: np.ndarray, size: int, is_color: bool = True) -> np.ndarray:
    """A ``size x size`` square at a random position (``numpy.random``, as v2).

    Example:
        ```python
        im = paddle.image.random_crop(im, 224)
        ```
    """
    h, w = im.shape[:2]
    top = np.random.randint(0, h - size + 1)
    left = np.random.randint(0, w - size + 1)
    return _crop(im, size, top, left, is_color)


def left_right_flip(im: np.ndarray, is_color: bool = True) -> np.ndarray:
    """Mirror the image horizontally (``im[:, ::-1]``).

    Example:
        ```python
        im = paddle.image.left_right_flip(im)
        ```
    """
    return im[:, ::-1, :] if is_color and im.ndim == 3 else im[:, ::-1]


def simple_transform(
    im: np.ndarray,
    resize_size: int,
    crop_size: int,
    is_train: bool,
    is_color: bool = True,
    mean: np.ndarray | Sequence[float] | None = None,
) -> np.ndarray:
    """v2's standard pipeline: resize the short edge, crop, (flip), CHW float32, minus mean.

    In training: a random crop and, with probability 1/2 (``numpy.random``), a flip;
    in test: the center crop. ``mean`` is subtracted per channel when 1-D (for color
    images), elementwise otherwise.

    Returns:
        ``float32`` ``[C, crop, crop]`` (``[crop, crop]`` for grayscale).

    Example:
        ```python
        im = paddle.image.simple_transform(im, 256, 224, is_train=False,
                                           mean=[103.94, 116.78, 123.68])
        ```
    """
    im = resize_short(im, resize_size)
    if is_train:
        im = random_crop(im, crop_size, is_color=is_color)
        if np.random.randint(2) == 0:
            im = left_right_flip(im, is_color)
    else:
        im = center_crop(im, crop_size, is_color=is_color)
    if len(im.shape) == 3:
        im = to_chw(im)
    im = im.astype("float32")
    if mean is not None:
        mean = np.array(mean, dtype=np.float32)
        if mean.ndim == 1 and is_color:
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean.ndim > 1 and mean.shape != im.shape:
            raise DataError(f"simple_transform: mean of shape {mean.shape} for image {im.shape}.")
        im -= mean
    return im


def load_and_transform(
    filename: str,
    resize_size: int,
    crop_size: int,
    is_train: bool,
    is_color: bool = True,
    mean: np.ndarray | Sequence[float] | None = None,
) -> np.ndarray:
    """``simple_transform(load_image(filename, is_color), ...)``.

    Example:
        ```python
        im = paddle.image.load_and_transform("cat.jpg", 256, 224, is_train=True)
        ```
    """
    im = load_image(filename, is_color)
    return simple_transform(im, resize_size, crop_size, is_train, is_color, mean)


# batching ---------------------------------------------------------------------------
def _dump_atomic(obj: Any, path: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


def batch_images_from_tar(
    data_file: str, dataset_name: str, img2label: Mapping[str, int], num_per_batch: int = 1024
) -> str:
    """Split the images of a tar into pickled batches ``{'label': [...], 'data': [bytes]}``.

    Members named in ``img2label`` are read in tar order and written, ``num_per_batch``
    per file, to ``<data_file>_batch/<dataset_name>/batch_<i>`` (v2's layout and pickle
    format; each file is written to a temporary name and renamed). The meta file
    ``<data_file>_batch/<dataset_name>.txt`` lists the batch files' absolute paths. An
    existing output folder is reused as is.

    Returns:
        The meta file's path.

    Example:
        ```python
        meta = paddle.image.batch_images_from_tar("102flowers.tgz", "train", labels)
        ```
    """
    batch_dir = data_file + "_batch"
    out_path = os.path.join(batch_dir, dataset_name)
    meta_file = os.path.join(batch_dir, dataset_name + ".txt")
    if os.path.exists(out_path):
        return meta_file
    os.makedirs(out_path)
    data, labels, file_id = [], [], 0
    with tarfile.open(data_file) as tf:
        for member in tf.getmembers():
            if member.name not in img2label:
                continue
            data.append(tf.extractfile(member).read())
            labels.append(img2label[member.name])
            if len(data) == num_per_batch:
                _dump_atomic({"label": labels, "data": data}, f"{out_path}/batch_{file_id}")
                file_id, data, labels = file_id + 1, [], []
    if data:
        _dump_atomic({"label": labels, "data": data}, f"{out_path}/batch_{file_id}")
    lines = "".join(
        os.path.abspath(os.path.join(out_path, f)) + "\n" for f in sorted(os.listdir(out_path))
    )
    tmp = f"{meta_file}.tmp{os.getpid()}"
    with open(tmp, "w") as meta:
        meta.write(lines)
    os.replace(tmp, meta_file)
    return meta_file
