"""Integration descriptors of the image re-layout, 3-D and region layers (image/layout.py,
conv3d.py, roi_pool.py).

Each entry: ``name`` (the public layer function), ``build() -> (output_layer, feeds)``
building a fresh small network fed a batch of 3, and ``shape`` (the output's shape,
batch included; switch_order, resize and roi_pool change the number of rows, as in v2).
"""

from __future__ import annotations

import numpy as np

from paddle_lite import layer as L
from paddle_lite._src import data_types, poolings
from paddle_lite._src.activations import Linear
from paddle_lite._src.layers.image import conv3d, pool, roi_pool
from paddle_lite._src.layers.image import layout as image_layout

BATCH = 3


def _image(name, c, h, w, depth=None):
    d = depth or 1
    layer = L.data(
        name=name, type=data_types.dense_vector(c * d * h * w), height=h, width=w, depth=depth
    )
    rng = np.random.RandomState(c * 100 + h * 10 + w + d)
    return layer, {name: rng.randn(BATCH, c * d * h * w).astype(np.float32)}


def _switch_order():
    x, feeds = _image("switch_pixel", 3, 2, 4)
    return image_layout.switch_order(input=x, reshape_axis=3), feeds


def _crop():
    x, feeds = _image("crop_pixel", 2, 5, 6)
    return image_layout.crop(input=x, offset=[1, 2], axis=2, shape=[0, 2, 3, 3]), feeds


def _resize():
    x, feeds = _image("resize_pixel", 2, 2, 2)
    return image_layout.resize(input=x, size=4), feeds


def _scale_sub_region():
    x, feeds = _image("ssr_pixel", 2, 3, 4)
    box = L.data(name="ssr_box", type=data_types.dense_vector(6))
    feeds["ssr_box"] = np.tile(np.array([[1, 2, 2, 3, 1, 2]], np.float32), (BATCH, 1))
    return image_layout.scale_sub_region(input=x, indices=box, value=0.5), feeds


def _upsample():
    x, feeds = _image("up_pixel", 2, 4, 6)
    pooled = pool.img_pool(input=x, pool_size=2, stride=2, pool_type=poolings.MaxWithMask())
    return roi_pool.upsample(input=[pooled, pooled], scale=2), feeds


def _img_conv3d():
    x, feeds = _image("conv3d_voxel", 2, 4, 3, depth=3)
    hidden = conv3d.img_conv3d(input=x, filter_size=[2, 3, 2], num_filters=4, padding=1)
    out = conv3d.img_conv3d(
        input=hidden, filter_size=2, num_filters=4, stride=2, groups=2, trans=True, act=Linear()
    )
    return out, feeds


def _img_pool3d():
    x, feeds = _image("pool3d_voxel", 2, 4, 5, depth=3)
    out = conv3d.img_pool3d(input=x, pool_size=2, stride=2, padding=1, pool_type=poolings.Avg())
    return out, feeds


def _roi_pool():
    x, feeds = _image("roi_pixel", 2, 6, 5)
    rois = L.data(name="roi_boxes", type=data_types.dense_vector(5))
    feeds["roi_boxes"] = np.array(
        [[0, 0, 0, 8, 10], [2, 2, 4, 6, 6], [1, 4, 0, 9, 3], [0, 1, 1, 1, 1]], np.float32
    )
    return roi_pool.roi_pool(
        input=x, rois=rois, pooled_width=2, pooled_height=3, spatial_scale=0.5
    ), feeds


DESCRIPTORS: list[dict] = [
    {"name": "switch_order", "build": _switch_order, "shape": (BATCH * 2 * 4, 3)},
    {"name": "crop", "build": _crop, "shape": (BATCH, 2 * 3 * 3)},
    {"name": "resize", "build": _resize, "shape": (BATCH * 2, 4)},
    {"name": "scale_sub_region", "build": _scale_sub_region, "shape": (BATCH, 2 * 3 * 4)},
    {"name": "upsample", "build": _upsample, "shape": (BATCH, 2 * 4 * 6)},
    {"name": "img_conv3d", "build": _img_conv3d, "shape": (BATCH, 4 * 8 * 8 * 8)},
    {"name": "img_pool3d", "build": _img_pool3d, "shape": (BATCH, 2 * 3 * 3 * 4)},
    {"name": "roi_pool", "build": _roi_pool, "shape": (4, 2 * 3 * 2)},
]
