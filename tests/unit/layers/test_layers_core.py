"""Core layers (data, fc, embedding, concat, addto, dropout) against numpy."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(0)


def _params(*outputs):
    return {s.name: initialize(s, 1) for s in Topology(list(outputs)).param_specs()}


def _run(out, feeds, params=None, mode="test", key=None):
    params = _params(out) if params is None else params
    (value,), _ = forward([out], params, feeds, key=key, mode=mode)
    return value, params


def test_fc_single_and_multi_input():
    x = L.data(name="x", type=DT.dense_vector(4))
    z = L.data(name="z", type=DT.dense_vector(3))
    y = L.fc(input=[x, z], size=2, act=A.Sigmoid())
    fx, fz = RNG.normal(size=(5, 4)), RNG.normal(size=(5, 3))
    got, p = _run(y, {"x": fx.astype(np.float32), "z": fz.astype(np.float32)})
    pre = fx @ p["___fc_layer_0__.w0"] + fz @ p["___fc_layer_0__.w1"] + p["___fc_layer_0__.wbias"]
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-pre)), rtol=1e-5)
    assert [s.shape for s in y.params] == [(4, 2), (3, 2), (1, 2)]


def test_fc_default_act_is_tanh_and_sparse_input_matches_dense():
    s = L.data(name="s", type=DT.sparse_float_vector(6))
    y = L.fc(input=s, size=3, bias_attr=False)
    assert isinstance(y.activation, A.Tanh)
    ids = np.array([[0, 4, 0], [5, 0, 0]], np.int32)
    vals = np.array([[1.5, -2.0, 0.0], [3.0, 0.0, 0.0]], np.float32)
    got, p = _run(y, {"s": Sparse(ids, vals)})
    dense = np.zeros((2, 6))
    dense[0, 0], dense[0, 4], dense[1, 5] = 1.5, -2.0, 3.0
    np.testing.assert_allclose(got, np.tanh(dense @ p["___fc_layer_0__.w0"]), rtol=1e-5)


def test_fc_over_sequence_keeps_lengths():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.fc(input=x, size=2, act=A.Linear())
    data = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    got, p = _run(y, {"x": Seq(data, np.array([4, 2], np.int32))})
    assert isinstance(got, Seq) and got.data.shape == (2, 4, 2)
    np.testing.assert_allclose(
        got.data, data @ p["___fc_layer_0__.w0"] + p["___fc_layer_0__.wbias"][0], rtol=1e-5
    )
    assert y.spec.seq_level == 1


def test_parameter_name_shorthand():
    x = L.data(name="x", type=DT.dense_vector(2))
    one = L.fc(input=x, size=2, parameter_name="P")
    two = L.fc(input=[x, x], size=2, parameter_name="Q")
    assert [p.name for p in one.params] == ["P", "P.wbias"]
    assert [p.name for p in two.params] == ["Q.w0", "Q.w1", "Q.wbias"]


def test_named_param_attr_on_several_inputs_is_refused():
    x = L.data(name="x", type=DT.dense_vector(2))
    with pytest.raises(LayerConfigError, match="pass a list"):
        L.fc(input=[x, x], size=2, param_attr=paddle.attr.Param(name="w"))
    y = L.fc(
        input=[x, x], size=2, param_attr=[paddle.attr.Param(name="a"), paddle.attr.Param(name="b")]
    )
    assert [p.name for p in y.params][:2] == ["a", "b"]


def test_embedding_lookup():
    w = L.data(name="w", type=DT.integer_value_sequence(10))
    e = L.embedding(input=w, size=4)
    assert e.name == "__embedding_0__" and e.params[0].shape == (10, 4)
    ids = np.array([[1, 9, 0], [3, 3, 3]], np.int32)
    got, p = _run(e, {"w": Seq(ids, np.array([3, 1], np.int32))})
    np.testing.assert_allclose(got.data, p["___embedding_0__.w0"][ids])


def test_concat_and_addto():
    a = L.data(name="a", type=DT.dense_vector(3))
    b = L.data(name="b", type=DT.dense_vector(3))
    fa, fb = RNG.normal(size=(2, 3)).astype(np.float32), RNG.normal(size=(2, 3)).astype(np.float32)
    got, _ = _run(L.concat(input=[a, b]), {"a": fa, "b": fb})
    np.testing.assert_allclose(got, np.concatenate([fa, fb], 1))
    s = L.addto(input=[a, b], act=A.Relu(), bias_attr=True)
    got, p = _run(s, {"a": fa, "b": fb})
    np.testing.assert_allclose(got, np.maximum(fa + fb + p["___addto_0__.wbias"], 0), rtol=1e-6)


def test_concat_of_images_stacks_channels():
    a = L.data(name="a", type=DT.dense_vector(8), height=2, width=2)
    b = L.data(name="b", type=DT.dense_vector(4), height=2, width=2)
    assert L.concat(input=[a, b]).spec.image == (3, 2, 2)


def test_dropout_train_mask_and_test_scale():
    x = L.data(name="x", type=DT.dense_vector(2000))
    d = L.dropout(input=x, dropout_rate=0.3)
    assert d.kind == "addto" and d.name == "__dropout_0__"
    ones = np.ones((2, 2000), np.float32)
    test_out, _ = _run(d, {"x": ones})
    np.testing.assert_allclose(test_out, 0.7 * ones, rtol=1e-6)
    train_out, _ = _run(d, {"x": ones}, mode="train", key=jax.random.PRNGKey(0))
    values = np.unique(np.asarray(train_out))
    assert set(values.tolist()) == {0.0, 1.0}
    assert abs(np.asarray(train_out).mean() - 0.7) < 0.02


def test_errors_name_layer_and_argument():
    x = L.data(name="x", type=DT.dense_vector(2))
    ids = L.data(name="i", type=DT.integer_value(5))
    with pytest.raises(
        LayerTypeError, match="unexpected keyword argument 'sise'.*Did you mean 'size'"
    ):
        L.fc(input=x, sise=3)
    with pytest.raises(LayerConfigError, match="layer 'f'.*size must be positive; received -1"):
        L.fc(input=x, size=-1, name="f")
    with pytest.raises(
        LayerTypeError, match=r"layer 'g': input\[1\] must be a layer.*received 'x'"
    ):
        L.fc(input=[x, "x"], size=2, name="g")
    with pytest.raises(LayerConfigError, match=r"layer 'h' \(fc\): input 0 holds integer ids"):
        L.fc(input=ids, size=2, name="h")
    with pytest.raises(
        LayerConfigError, match=r"layer 's' \(addto\).*same size; received sizes \[2, 5\]"
    ):
        L.addto(input=[x, L.data(name="y", type=DT.dense_vector(5))], name="s")
    with pytest.raises(LayerTypeError, match="type must be a paddle.data_type"):
        L.data(name="d", type=3)
    with pytest.raises(LayerConfigError, match="not divisible"):
        L.data(name="d", type=DT.dense_vector(10), height=3, width=3)


def test_error_clipping_threshold_clips_the_gradient_at_the_output():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.fc(
        input=x,
        size=2,
        act=A.Linear(),
        bias_attr=False,
        layer_attr=paddle.attr.Extra(error_clipping_threshold=0.5),
    )
    fx = np.ones((1, 3), np.float32)
    params = _params(y)
    w = params["___fc_layer_0__.w0"]

    def loss(v):
        (out,), _ = forward([y], {"___fc_layer_0__.w0": v}, {"x": fx})
        return (10.0 * out).sum()

    value = forward([y], params, {"x": fx})[0][0]
    np.testing.assert_allclose(value, fx @ w, rtol=1e-6)  # the forward value is unchanged
    grad = jax.grad(loss)(w)
    np.testing.assert_allclose(grad, np.full((3, 2), 0.5), rtol=1e-6)  # 10 clipped to 0.5
