"""Math layers, layer arithmetic and unary ops against numpy float64."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers import arith as AR
from paddle_lite._src.layers import mixed as MX
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.embedding import embedding
from paddle_lite._src.layers.math import basic as M
from paddle_lite._src.layers.math import tile as MT
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _fresh_names():
    with paddle.layer.name_scope():
        yield


def _dense(name, dim):
    return L.data(name=name, type=DT.dense_vector(dim))


def _feed(*shape, low=None):
    if low is not None:
        return RNG.uniform(low, low + 2.0, size=shape).astype(np.float32)
    return RNG.normal(size=shape).astype(np.float32)


def _run(outs, feeds):
    outs = outs if isinstance(outs, list) else [outs]
    params = {s.name: initialize(s, 2) for s in Topology(outs).param_specs()}
    values, _ = forward(outs, params, feeds)
    return values if len(values) > 1 else values[0]


def _cos(u, v):
    return (u * v).sum(-1) / np.sqrt((u * u).sum(-1) * (v * v).sum(-1))


def test_cos_sim_single_and_vector_forms():
    a, b, c = _dense("a", 3), _dense("b", 3), _dense("c", 6)
    one = M.cos_sim(a=a, b=b, scale=2)
    many = M.cos_sim(a=a, b=c, size=2)
    assert (one.name, one.size, many.size) == ("__cos_sim_0__", 1, 2)
    fa, fb, fc = _feed(4, 3), _feed(4, 3), _feed(4, 6)
    got_one, got_many = _run([one, many], {"a": fa, "b": fb, "c": fc})
    a64, c64 = fa.astype(np.float64), fc.astype(np.float64)
    np.testing.assert_allclose(got_one[:, 0], 2 * _cos(a64, fb), rtol=1e-5)
    want = np.stack([_cos(a64, c64[:, :3]), _cos(a64, c64[:, 3:])], axis=1)
    np.testing.assert_allclose(got_many, want, rtol=1e-5)
    with pytest.raises(LayerConfigError, match=r"'cs' \(cos\).*b.size 6"):
        M.cos_sim(a=a, b=c, name="cs")


def test_max_id_gives_int_ids_with_the_input_range():
    x = _dense("x", 5)
    ids = M.max_id(input=x)
    assert ids.name == "__maxid_layer_0__" and ids.spec.dtype == "int32" and ids.size == 5
    fx = _feed(6, 5)
    got = _run(ids, {"x": fx})
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, fx.argmax(axis=1))
    assert embedding(input=ids, size=2).params[0].shape == (5, 2)
    s = L.data(name="s", type=DT.dense_vector_sequence(3))
    seq = _feed(2, 4, 3)
    got = _run(M.max_id(input=s), {"s": Seq(seq, np.array([4, 1], np.int32))})
    np.testing.assert_array_equal(got.data, seq.argmax(axis=-1))


def test_slope_intercept_scaling_interpolation_power():
    x, y, w = _dense("x", 4), _dense("y", 4), _dense("w", 1)
    outs = [
        M.slope_intercept(input=x, slope=-2.0, intercept=0.5),
        M.scaling(input=x, weight=w),
        M.interpolation(input=[x, y], weight=w),
        M.power(input=y, weight=w),
    ]
    assert [o.name for o in outs] == [
        "__slope_intercept_layer_0__",
        "__scaling_layer_0__",
        "__interpolation_layer_0__",
        "__power_layer_0__",
    ]
    assert [o.size for o in outs] == [4, 4, 4, 4] and outs[1].inputs == (w, x)
    fx, fy, fw = _feed(3, 4), _feed(3, 4, low=0.5), _feed(3, 1)
    got = _run(outs, {"x": fx, "y": fy, "w": fw})
    x64, y64, w64 = (v.astype(np.float64) for v in (fx, fy, fw))
    np.testing.assert_allclose(got[0], -2.0 * x64 + 0.5, rtol=1e-6)
    np.testing.assert_allclose(got[1], w64 * x64, rtol=1e-6)
    np.testing.assert_allclose(got[2], w64 * x64 + (1 - w64) * y64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[3], y64**w64, rtol=1e-5)


def test_scaling_over_sequences_uses_the_weight_of_each_step():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    w = L.data(name="w", type=DT.dense_vector_sequence(1))
    lengths = np.array([3, 2], np.int32)
    fx, fw = _feed(2, 3, 3), _feed(2, 3, 1)
    got = _run(M.scaling(input=x, weight=w), {"x": Seq(fx, lengths), "w": Seq(fw, lengths)})
    np.testing.assert_allclose(got.data, fw.astype(np.float64) * fx, rtol=1e-6)
    np.testing.assert_array_equal(got.lengths, lengths)


def test_trans_transposes_the_minibatch():
    x = _dense("x", 3)
    t = MT.trans(input=x)
    assert t.name == "__trans_layer_0__" and t.size == 3
    fx = _feed(3, 3)
    np.testing.assert_array_equal(_run(t, {"x": fx}), fx.T)


def test_repeat_tiles_rows_or_elements():
    x = _dense("x", 3)
    row = MT.repeat(input=x, num_repeats=2)
    col = MT.repeat(input=x, num_repeats=2, as_row_vector=False, act=A.Relu())
    assert (row.name, row.size, col.size) == ("__repeat_layer_0__", 6, 6)
    fx = np.array([[1.0, -2.0, 3.0]], np.float32)
    got_row, got_col = _run([row, col], {"x": fx})
    np.testing.assert_array_equal(got_row, [[1, -2, 3, 1, -2, 3]])
    np.testing.assert_array_equal(got_col, [[1, 1, 0, 0, 3, 3]])


def test_layer_arithmetic_against_numpy():
    a, b, w = _dense("a", 3), _dense("b", 3), _dense("w", 1)
    cases = {
        "a+b": (a + b, lambda a, b, w: a + b),
        "a+1": (a + 1.0, lambda a, b, w: a + 1.0),
        "1+a": (1.0 + a, lambda a, b, w: a + 1.0),
        "2a": (2.0 * a, lambda a, b, w: 2.0 * a),
        "a*3": (a * 3, lambda a, b, w: 3.0 * a),
        "a-b": (a - b, lambda a, b, w: a - b),
        "a-1": (a - 1.0, lambda a, b, w: a - 1.0),
        "1-a": (1.0 - a, lambda a, b, w: 1.0 - a),
        "-a": (-a, lambda a, b, w: -a),
        "a*w": (a * w, lambda a, b, w: a * w),
        "w*a": (w * a, lambda a, b, w: a * w),
        "a+w": (a + w, lambda a, b, w: a + w),
        "w+a": (w + a, lambda a, b, w: a + w),
    }
    feeds = {"a": _feed(4, 3), "b": _feed(4, 3), "w": _feed(4, 1)}
    got = _run([layer for layer, _ in cases.values()], feeds)
    args = [feeds[k].astype(np.float64) for k in "abw"]
    for (label, (layer, ref)), value in zip(cases.items(), got, strict=True):
        np.testing.assert_allclose(value, ref(*args), rtol=1e-6, atol=1e-7, err_msg=label)
        assert layer.size == 3, label


def test_layer_arithmetic_builds_v2_layers():
    a, b, w = _dense("a", 3), _dense("b", 3), _dense("w", 1)
    s = a + b
    assert s.kind == "mixed" and s.inputs == (a, b) and s.params == ()
    assert [p["type"] for p in s.attrs["projections"]] == ["identity", "identity"]
    assert (a + 2).kind == "slope_intercept" and (a + 2).attrs["intercept"] == 2.0
    assert (a - 2).attrs["intercept"] == -2.0 and (-a).attrs["slope"] == -1.0
    assert (a * 2).attrs["slope"] == 2.0 and (a * w).kind == "scaling"
    assert (a * w).inputs == (w, a)
    assert (a + w).inputs[1].kind == "featmap_expand"
    assert (a + np.float32(1.5)).attrs["intercept"] == 1.5


def test_layer_arithmetic_errors():
    a, c = _dense("a", 3), _dense("c", 4)
    with pytest.raises(LayerTypeError, match="layer or a number; received 'x'"):
        a + "x"
    with pytest.raises(LayerConfigError, match=r"'a' \(size 3\) and 'c' \(size 4\) need equal"):
        a + c
    with pytest.raises(LayerConfigError, match="one operand must be a number or a layer of size 1"):
        a * c
    with pytest.raises(LayerTypeError, match="layer or a number; received None"):
        a - None
    ids = L.data(name="ids", type=DT.integer_value(3))
    with pytest.raises(LayerConfigError, match="needs dense values"):
        ids + a
    with MX.mixed(size=3) as m:
        m += PR.identity_projection(input=a)
        with pytest.raises(LayerConfigError, match="still open"):
            m + a


def test_math_layer_errors_name_layer_and_argument():
    x, w2 = _dense("x", 3), _dense("w2", 2)
    with pytest.raises(
        LayerConfigError,
        match=r"'s' \(scaling\): weight must have size 1; received"
        r" size 2",
    ):
        M.scaling(input=x, weight=w2, name="s")
    with pytest.raises(LayerConfigError, match="input must be a list of 2 layers"):
        M.interpolation(input=[x], weight=_dense("w", 1))
    with pytest.raises(LayerConfigError, match="same size; received 3 and 2"):
        M.interpolation(input=[x, w2], weight=_dense("w1", 1))
    with pytest.raises(LayerConfigError, match="num_repeats must be positive; received 0"):
        MT.repeat(input=x, num_repeats=0)
    with pytest.raises(LayerTypeError, match="slope must be a number"):
        M.slope_intercept(input=x, slope="2")
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'wieght'"):
        M.power(input=x, wieght=x)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        MT.trans(input=x, layer_attr=paddle.attr.Extra(drop_rate=0.5))
    ids = L.data(name="ids", type=DT.integer_value(3))
    with pytest.raises(LayerConfigError, match="integer ids"):
        M.max_id(input=ids)


def test_unary_ops_are_mixed_identity_with_activation():
    x = _dense("x", 4)
    ops = {
        "exp": np.exp,
        "log": np.log,
        "abs": np.abs,
        "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "tanh": np.tanh,
        "square": np.square,
        "relu": lambda v: np.maximum(v, 0),
        "sqrt": np.sqrt,
        "reciprocal": lambda v: 1 / v,
        "softmax": lambda v: np.exp(v) / np.exp(v).sum(axis=1, keepdims=True),
    }
    layers = [getattr(AR, name)(input=x) for name in ops]
    assert [layer.name for layer in layers] == [f"__{n}_0__" for n in ops]
    assert all(layer.kind == "mixed" and layer.params == () for layer in layers)
    assert AR.exp(input=x, name="e").name == "e"
    positive = _feed(3, 4, low=0.5)
    values = _run(layers, {"x": positive})
    for (name, ref), value in zip(ops.items(), values, strict=True):
        np.testing.assert_allclose(value, ref(positive.astype(np.float64)), rtol=1e-5, err_msg=name)
    signed = _feed(3, 4)
    got = _run([AR.abs(input=x), AR.relu(input=x)], {"x": signed})
    np.testing.assert_allclose(got[0], np.abs(signed))
    np.testing.assert_allclose(got[1], np.maximum(signed, 0))
