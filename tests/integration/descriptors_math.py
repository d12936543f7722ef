"""Descriptors of the mixed layer (one per projection / operator type), the math
layers and the unary ops for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.layers import arith as AR
from paddle_lite._src.layers import mixed as MX
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.math import basic as M
from paddle_lite._src.layers.math import tile as MT
from paddle_lite._src.values import Seq, Sparse

L, DT = paddle.layer, paddle.data_type
RNG = np.random.default_rng(13)


def _dense(name, dim, low=None):
    if low is None:
        value = RNG.normal(size=(3, dim))
    else:
        value = RNG.uniform(low, low + 1.0, size=(3, dim))
    return L.data(name=name, type=DT.dense_vector(dim)), value.astype(np.float32)


def _mixed():
    (x, fx), (y, fy) = _dense("x", 4), _dense("y", 3)
    with MX.mixed(size=3, bias_attr=True, act=paddle.activation.Tanh()) as m:
        m += PR.full_matrix_projection(input=x)
        m += PR.identity_projection(input=y)
        m += PR.dotmul_operator(a=y, b=y, scale=0.5)
    return m, {"x": fx, "y": fy}


def _full_matrix():
    (x, fx) = _dense("x", 5)
    s = L.data(name="s", type=DT.sparse_float_vector(6))
    ids = np.array([[1, 5], [0, 0], [3, 2]], np.int32)
    vals = np.array([[0.5, -1.0], [2.0, 0.0], [1.0, 1.0]], np.float32)
    projs = [PR.full_matrix_projection(input=x), PR.full_matrix_projection(input=s)]
    return MX.mixed(size=4, input=projs), {"x": fx, "s": Sparse(ids, vals)}


def _trans_full_matrix():
    x, fx = _dense("x", 5)
    return MX.mixed(input=[PR.trans_full_matrix_projection(input=x, size=2)]), {"x": fx}


def _table():
    w = L.data(name="w", type=DT.integer_value_sequence(9))
    ids = RNG.integers(0, 9, size=(3, 4)).astype(np.int32)
    m = MX.mixed(size=5, input=[PR.table_projection(input=w)])
    return m, {"w": Seq(ids, np.array([4, 2, 1], np.int32))}


def _identity():
    x, fx = _dense("x", 6)
    projs = [
        PR.identity_projection(input=x, offset=1, size=3),
        PR.identity_projection(input=x, offset=3),
    ]
    return MX.mixed(input=projs), {"x": fx}


def _dotmul():
    x, fx = _dense("x", 4)
    return MX.mixed(input=[PR.dotmul_projection(input=x)]), {"x": fx}


def _scaling_projection():
    x, fx = _dense("x", 4)
    return MX.mixed(input=[PR.scaling_projection(input=x)]), {"x": fx}


def _dotmul_operator():
    (a, fa), (b, fb) = _dense("a", 4), _dense("b", 4)
    return MX.mixed(input=[PR.dotmul_operator(a=a, b=b, scale=2.0)]), {"a": fa, "b": fb}


def _cos_sim():
    (a, fa), (b, fb) = _dense("a", 3), _dense("b", 6)
    return M.cos_sim(a=a, b=b, size=2, scale=5), {"a": fa, "b": fb}


def _max_id():
    x, fx = _dense("x", 7)
    return M.max_id(input=x), {"x": fx}


def _slope_intercept():
    x, fx = _dense("x", 4)
    return M.slope_intercept(input=x, slope=2.0, intercept=-1.0), {"x": fx}


def _scaling():
    (x, fx), (w, fw) = _dense("x", 4), _dense("w", 1)
    return M.scaling(input=x, weight=w), {"x": fx, "w": fw}


def _interpolation():
    (x, fx), (y, fy), (w, fw) = _dense("x", 4), _dense("y", 4), _dense("w", 1, low=0.0)
    return M.interpolation(input=[x, y], weight=w), {"x": fx, "y": fy, "w": fw}


def _power():
    (x, fx), (w, fw) = _dense("x", 4, low=0.5), _dense("w", 1)
    return M.power(input=x, weight=w), {"x": fx, "w": fw}


def _trans():
    x, fx = _dense("x", 3)
    return MT.trans(input=x), {"x": fx}


def _repeat():
    x, fx = _dense("x", 3)
    return MT.repeat(input=x, num_repeats=4, as_row_vector=False), {"x": fx}


def _unary(op_name):
    def build():
        x, fx = _dense("x", 4, low=0.5)
        return getattr(AR, op_name)(input=x), {"x": fx}

    return build


DESCRIPTORS = [
    {"name": "mixed", "build": _mixed, "shape": (3, 3)},
    {"name": "full_matrix_projection", "build": _full_matrix, "shape": (3, 4)},
    {"name": "trans_full_matrix_projection", "build": _trans_full_matrix, "shape": (3, 2)},
    {"name": "table_projection", "build": _table, "shape": (3, 4, 5)},
    {"name": "identity_projection", "build": _identity, "shape": (3, 3)},
    {"name": "dotmul_projection", "build": _dotmul, "shape": (3, 4)},
    {"name": "scaling_projection", "build": _scaling_projection, "shape": (3, 4)},
    {"name": "dotmul_operator", "build": _dotmul_operator, "shape": (3, 4)},
    {"name": "cos_sim", "build": _cos_sim, "shape": (3, 2)},
    {"name": "max_id", "build": _max_id, "shape": (3,)},
    {"name": "slope_intercept", "build": _slope_intercept, "shape": (3, 4)},
    {"name": "scaling", "build": _scaling, "shape": (3, 4)},
    {"name": "interpolation", "build": _interpolation, "shape": (3, 4)},
    {"name": "power", "build": _power, "shape": (3, 4)},
    {"name": "trans", "build": _trans, "shape": (3, 3)},
    {"name": "repeat", "build": _repeat, "shape": (3, 12)},
] + [
    {"name": f"op.{op}", "build": _unary(op), "shape": (3, 4)}
    for op in "exp log abs sigmoid tanh square relu sqrt reciprocal softmax".split()
]
