"""Descriptors of the catalogue layers completed last: combine (conv_shift, linear_comb,
tensor), image.reshape (bilinear_interp, rotate, block_expand), spp, the conv
projection and operator, and the ctc / nce / hsigmoid costs."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(23)
B = 3


def _dense(name, dim):
    return L.data(name=name, type=DT.dense_vector(dim)), RNG.normal(size=(B, dim)).astype("f4")


def _image(name, c, h, w):
    layer = L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)
    return layer, RNG.normal(size=(B, c * h * w)).astype("f4")


def _conv_shift():
    (a, fa), (b, fb) = _dense("a", 5), _dense("b", 3)
    return L.conv_shift(a=a, b=b), {"a": fa, "b": fb}


def _linear_comb(fn):
    def build():
        (w, fw), (v, fv) = _dense("w", 3), _dense("v", 12)
        return fn(weights=w, vectors=v, size=4), {"w": fw, "v": fv}

    return build


def _tensor():
    (a, fa), (b, fb) = _dense("a", 3), _dense("b", 2)
    return L.tensor(a=a, b=b, size=4), {"a": fa, "b": fb}


def _spp():
    x, fx = _image("img", 2, 5, 6)
    return L.spp(input=x, pyramid_height=2, pool_type=paddle.pooling.Avg()), {"img": fx}


def _bilinear_interp():
    x, fx = _image("img", 2, 3, 4)
    return L.bilinear_interp(input=x, out_size_x=5, out_size_y=6), {"img": fx}


def _rotate():
    x, fx = _dense("x", 24)
    return L.rotate(input=x, height=2, width=4), {"x": fx}


def _block_expand():
    x, fx = _image("img", 2, 4, 5)
    out = L.block_expand(input=x, block_x=2, block_y=3, stride_x=2, stride_y=1, padding_y=1)
    return out, {"img": fx}


def _conv_projection():
    x, fx = _image("img", 2, 4, 4)
    proj = L.conv_projection(input=x, filter_size=3, num_filters=3, padding=1)
    return L.mixed(input=proj, bias_attr=True), {"img": fx}


def _conv_operator():
    (x, fx), (f, ff) = _image("img", 2, 4, 4), _dense("filt", 3 * 2 * 2 * 2)
    op = L.conv_operator(img=x, filter=f, filter_size=2, num_filters=3, stride=2)
    return L.mixed(input=op), {"img": fx, "filt": ff}


def _ctc_feeds(dim):
    lengths = np.array([4, 3, 2], np.int32)
    label = Seq(np.array([[0, 1], [1, 1], [1, 0]], np.int32), np.array([2, 1, 1], np.int32))
    x = Seq(RNG.normal(size=(B, 4, dim)).astype("f4"), lengths)
    return {"x": x, "y": label}


def _ctc():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    prob = L.fc(input=x, size=3, act=A.Softmax())
    return L.ctc(input=prob, label=y), _ctc_feeds(3)


def _warp_ctc():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    return L.warp_ctc(input=x, label=y, blank=2), _ctc_feeds(3)


def _class_cost(fn, **kwargs):
    def build():
        (x, fx), (z, fz) = _dense("x", 4), _dense("z", 2)
        lab = L.data(name="lab", type=DT.integer_value(6))
        cost = fn(input=[x, z], label=lab, **kwargs)
        return cost, {"x": fx, "z": fz, "lab": np.array([0, 5, 3], np.int32)}

    return build


DESCRIPTORS = [
    {"name": "conv_shift", "build": _conv_shift, "shape": (B, 5)},
    {"name": "linear_comb", "build": _linear_comb(L.linear_comb), "shape": (B, 4)},
    {"name": "convex_comb", "build": _linear_comb(L.convex_comb), "shape": (B, 4)},
    {"name": "tensor", "build": _tensor, "shape": (B, 4)},
    {"name": "spp", "build": _spp, "shape": (B, 2 * 5)},
    {"name": "bilinear_interp", "build": _bilinear_interp, "shape": (B, 2 * 6 * 5)},
    {"name": "rotate", "build": _rotate, "shape": (B, 24)},
    {"name": "block_expand", "build": _block_expand, "shape": (B, 4 * 3, 2 * 3 * 2)},
    {"name": "conv_projection", "build": _conv_projection, "shape": (B, 3 * 4 * 4)},
    {"name": "conv_operator", "build": _conv_operator, "shape": (B, 3 * 2 * 2)},
    {"name": "ctc", "build": _ctc, "shape": (B, 1)},
    {"name": "warp_ctc", "build": _warp_ctc, "shape": (B, 1)},
    {"name": "nce", "build": _class_cost(L.nce, num_neg_samples=3), "shape": (B, 1)},
    {"name": "hsigmoid", "build": _class_cost(L.hsigmoid), "shape": (B, 1)},
]
