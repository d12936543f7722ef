"""Integration descriptors of the cost layers: one per public cost function.

Each ``build()`` returns ``(output_layer, feeds)`` for a batch of 3; every cost
outputs ``[3, 1]``.
"""

import numpy as np

from paddle_lite import layer as L
from paddle_lite._src import activations as act
from paddle_lite._src import data_types as dt
from paddle_lite._src.layers.cost import basic as C
from paddle_lite._src.layers.cost import rank as R
from paddle_lite._src.layers.cost import robust as H
from paddle_lite._src.layers.cost import square as SQ
from paddle_lite._src.values import Seq

B = 3
F32 = np.float32


def _rng():
    return np.random.default_rng(0)


def _dense(name, size):
    return L.data(name=name, type=dt.dense_vector(size))


def _ids(name, size):
    return L.data(name=name, type=dt.integer_value(size))


def _probs(n):
    z = _rng().normal(size=(B, n))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(F32)


def _labels(n):
    return (np.arange(B) % n).astype(np.int32)


def _classification():
    x = _dense("cls_x", 4)
    prob = L.fc(input=x, size=4, act=act.Softmax())
    cost = C.classification_cost(input=prob, label=_ids("cls_y", 4), weight=_dense("cls_w", 1))
    feeds = {
        "cls_x": _rng().normal(size=(B, 4)).astype(F32),
        "cls_y": _labels(4),
        "cls_w": np.full((B, 1), 0.5, F32),
    }
    return cost, feeds


def _cross_entropy_cost():
    x = L.data(name="ce_x", type=dt.dense_vector_sequence(4))
    y = L.data(name="ce_y", type=dt.integer_value_sequence(4))
    lengths = np.array([2, 3, 1], np.int32)
    p = np.stack([_probs(4)] * 3, axis=1)
    feeds = {"ce_x": Seq(p, lengths), "ce_y": Seq(np.zeros((B, 3), np.int32), lengths)}
    return C.cross_entropy_cost(input=x, label=y, coeff=2.0), feeds


def _cross_entropy():
    cost = C.cross_entropy(input=_dense("dce_x", 4), label=_ids("dce_y", 4))
    return cost, {"dce_x": _probs(4), "dce_y": _labels(4)}


def _selfnorm():
    cost = C.cross_entropy_with_selfnorm_cost(input=_dense("sn_x", 4), label=_ids("sn_y", 4))
    return cost, {"sn_x": 2.0 * _probs(4), "sn_y": _labels(4)}


def _multi_binary():
    x = _dense("mb_x", 4)
    prob = L.fc(input=x, size=4, act=act.Sigmoid())
    cost = C.multi_binary_label_cross_entropy_cost(input=prob, label=_dense("mb_y", 4))
    t = (_rng().uniform(size=(B, 4)) > 0.5).astype(F32)
    return cost, {"mb_x": _rng().normal(size=(B, 4)).astype(F32), "mb_y": t}


def _regression(fn, prefix):
    def build():
        y, t = _dense(f"{prefix}_y", 3), _dense(f"{prefix}_t", 3)
        rng = _rng()
        feeds = {
            f"{prefix}_y": rng.normal(size=(B, 3)).astype(F32),
            f"{prefix}_t": rng.normal(size=(B, 3)).astype(F32),
        }
        return fn(input=y, label=t), feeds

    return build


def _huber_classification():
    cost = H.huber_classification_cost(input=_dense("hc_f", 1), label=_ids("hc_y", 2))
    return cost, {"hc_f": np.array([[-2.0], [0.3], [1.5]], F32), "hc_y": _labels(2)}


def _rank():
    cost = R.rank_cost(
        left=_dense("rk_a", 1),
        right=_dense("rk_b", 1),
        label=_dense("rk_p", 1),
        weight=_dense("rk_w", 1),
    )
    rng = _rng()
    feeds = {
        "rk_a": rng.normal(size=(B, 1)).astype(F32),
        "rk_b": rng.normal(size=(B, 1)).astype(F32),
        "rk_p": np.array([[1.0], [0.0], [0.5]], F32),
        "rk_w": np.ones((B, 1), F32),
    }
    return cost, feeds


def _lambda():
    s = L.data(name="lc_s", type=dt.dense_vector_sequence(1))
    r = L.data(name="lc_r", type=dt.dense_vector_sequence(1))
    lengths = np.array([4, 3, 2], np.int32)
    out = _rng().normal(size=(B, 4, 1)).astype(F32)
    rel = np.tile(np.array([0.0, 2.0, 1.0, 3.0], F32)[None, :, None], (B, 1, 1))
    feeds = {"lc_s": Seq(out, lengths), "lc_r": Seq(rel, lengths)}
    return R.lambda_cost(input=s, score=r, NDCG_num=2), feeds


def _sum():
    return SQ.sum_cost(input=_dense("sc_x", 5)), {"sc_x": _rng().normal(size=(B, 5)).astype(F32)}


def _judgement(fn, prefix):
    def build():
        x = _dense(f"{prefix}_p", 1)
        return fn(input=x), {f"{prefix}_p": np.array([[0.1], [0.5], [0.9]], F32)}

    return build


def _less_than():
    cost = R.less_than(left=_dense("lt_a", 1), right=_dense("lt_b", 1))
    rng = _rng()
    return cost, {
        "lt_a": rng.normal(size=(B, 1)).astype(F32),
        "lt_b": rng.normal(size=(B, 1)).astype(F32),
    }


_BUILDERS = {
    "classification_cost": _classification,
    "cross_entropy_cost": _cross_entropy_cost,
    "cross_entropy": _cross_entropy,
    "cross_entropy_with_selfnorm_cost": _selfnorm,
    "multi_binary_label_cross_entropy_cost": _multi_binary,
    "square_error_cost": _regression(SQ.square_error_cost, "se"),
    "regression_cost": _regression(SQ.regression_cost, "reg"),
    "huber_regression_cost": _regression(H.huber_regression_cost, "hr"),
    "huber_classification_cost": _huber_classification,
    "smooth_l1_cost": _regression(H.smooth_l1_cost, "sl1"),
    "rank_cost": _rank,
    "lambda_cost": _lambda,
    "sum_cost": _sum,
    "should_be_true": _judgement(R.should_be_true, "sbt"),
    "should_be_false": _judgement(R.should_be_false, "sbf"),
    "less_than": _less_than,
}

DESCRIPTORS: list[dict] = [
    {"name": name, "build": build, "shape": (B, 1)} for name, build in _BUILDERS.items()
]
