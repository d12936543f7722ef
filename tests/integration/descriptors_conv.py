"""Integration descriptors of the image and normalisation layers (conv.py, pool.py, norm.py).

Each entry: ``name`` (the public layer function), ``build() -> (output_layer, feeds)``
building a fresh small network fed a batch of 3, and ``shape`` (the output's shape,
batch included).
"""

from __future__ import annotations

import numpy as np

from paddle_lite import layer as L
from paddle_lite._src import data_types, poolings
from paddle_lite._src.activations import Linear
from paddle_lite._src.layers import norm
from paddle_lite._src.layers.image import cmrnorm, conv, pool

BATCH = 3


def _image(name, c, h, w, positive=False):
    layer = L.data(name=name, type=data_types.dense_vector(c * h * w), height=h, width=w)
    rng = np.random.RandomState(c * 100 + h * 10 + w)
    values = rng.rand(BATCH, c * h * w) + 0.1 if positive else rng.randn(BATCH, c * h * w)
    return layer, {name: values.astype(np.float32)}


def _img_conv():
    x, feeds = _image("conv_pixel", 2, 6, 6)
    hidden = conv.img_conv(input=x, filter_size=3, num_filters=4, padding=1, stride=2, groups=2)
    out = conv.img_conv(
        input=hidden, filter_size=2, num_filters=3, stride=2, trans=True, act=Linear()
    )
    return out, feeds


def _img_pool():
    x, feeds = _image("pool_pixel", 2, 5, 5)
    out = pool.img_pool(input=x, pool_size=3, stride=2, padding=1, pool_type=poolings.Avg())
    return out, feeds


def _maxout():
    x, feeds = _image("maxout_pixel", 6, 2, 2)
    return pool.maxout(input=x, groups=3), feeds


def _pad():
    x, feeds = _image("pad_pixel", 2, 2, 3)
    return pool.pad(input=x, pad_c=[1, 0], pad_h=[0, 1], pad_w=[1, 1]), feeds


def _batch_norm():
    x, feeds = _image("bn_pixel", 3, 4, 4)
    return norm.batch_norm(input=x), feeds


def _img_cmrnorm():
    x, feeds = _image("lrn_pixel", 4, 3, 3)
    return cmrnorm.img_cmrnorm(input=x, size=3), feeds


def _sum_to_one_norm():
    x, feeds = _image("norm1_pixel", 1, 2, 3, positive=True)
    return norm.sum_to_one_norm(input=x), feeds


DESCRIPTORS: list[dict] = [
    {"name": "img_conv", "build": _img_conv, "shape": (BATCH, 3 * 6 * 6)},
    {"name": "img_pool", "build": _img_pool, "shape": (BATCH, 2 * 3 * 3)},
    {"name": "maxout", "build": _maxout, "shape": (BATCH, 2 * 2 * 2)},
    {"name": "pad", "build": _pad, "shape": (BATCH, 3 * 3 * 5)},
    {"name": "batch_norm", "build": _batch_norm, "shape": (BATCH, 3 * 4 * 4)},
    {"name": "img_cmrnorm", "build": _img_cmrnorm, "shape": (BATCH, 4 * 3 * 3)},
    {"name": "sum_to_one_norm", "build": _sum_to_one_norm, "shape": (BATCH, 6)},
]
