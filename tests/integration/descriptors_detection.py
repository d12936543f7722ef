"""Descriptors of the SSD layers (priorbox, cross_channel_norm, multibox_loss,
detection_output) for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(17)
VAR = [0.1, 0.1, 0.2, 0.2]


def _image(name, c, h, w):
    layer = L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)
    return layer, RNG.normal(size=(3, c * h * w)).astype(np.float32)


def _head():
    """A 2x2 feature map with 4 priors per pixel and 3 classes: 16 priors."""
    (img, fimg), (loc, floc), (conf, fconf) = (
        _image("img", 3, 8, 8),
        _image("loc", 16, 2, 2),
        _image("conf", 12, 2, 2),
    )
    prior = L.priorbox(
        input=loc, image=img, aspect_ratio=[2.0], variance=VAR, min_size=[3], max_size=[6]
    )
    return prior, loc, conf, {"img": fimg, "loc": floc, "conf": fconf}


def _priorbox():
    prior, _, _, feeds = _head()
    return prior, {"img": feeds["img"], "loc": feeds["loc"]}


def _cross_channel_norm():
    fmap, feeds = _image("fmap", 3, 2, 2)
    return L.cross_channel_norm(input=fmap), {"fmap": feeds}


def _multibox_loss():
    prior, loc, conf, feeds = _head()
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    boxes = np.zeros((3, 2, 6), np.float32)
    boxes[0, :2] = [[1, 0.1, 0.1, 0.45, 0.5, 0], [2, 0.5, 0.4, 0.9, 0.9, 0]]
    boxes[1, 0] = [1, 0.3, 0.2, 0.8, 0.7, 0]
    cost = L.multibox_loss(input_loc=loc, input_conf=conf, priorbox=prior, label=gt, num_classes=3)
    return cost, {**feeds, "gt": Seq(boxes, np.array([2, 1, 0], np.int32))}


def _detection_output():
    prior, loc, conf, feeds = _head()
    det = L.detection_output(
        input_loc=loc, input_conf=conf, priorbox=prior, num_classes=3, keep_top_k=5
    )
    return det, feeds


DESCRIPTORS = [
    {"name": "priorbox", "build": _priorbox, "shape": (3, 16 * 8)},
    {"name": "cross_channel_norm", "build": _cross_channel_norm, "shape": (3, 12)},
    {"name": "multibox_loss", "build": _multibox_loss, "shape": (3, 1)},
    {"name": "detection_output", "build": _detection_output, "shape": (3, 5, 7)},
]
