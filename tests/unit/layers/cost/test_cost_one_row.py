"""A cost whose input is a sequence of one row per sample, beside a plain label, trains
as over plain rows: v2 paired the rows of the batch (C++ CostLayer), which is one row per
sample when every sequence holds one. Other counts are refused (host) or cost NaN (device
lengths), where v2 stopped or paired rows of different samples."""

import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.values import Seq
from paddle_lite.errors import DataError, LayerConfigError

L, D, A = paddle.layer, paddle.data_type, paddle.attr
rng = np.random.default_rng(3)
XS = rng.normal(size=(6, 4)).astype(np.float32)
YS = [0, 2, 1, 1, 0, 2]
W = rng.normal(size=(4, 3)).astype(np.float32)
B = rng.normal(size=(1, 3)).astype(np.float32)


def _net(sequence):
    kind = D.dense_vector_sequence(4) if sequence else D.dense_vector(4)
    x, y = L.data(name="x", type=kind), L.data(name="y", type=D.integer_value(3))
    prob = L.fc(
        input=x, size=3, act=paddle.activation.Softmax(),
        param_attr=A.Param(name="w"), bias_attr=A.Param(name="b"),
    )  # fmt: skip
    cost = L.classification_cost(input=prob, label=y)
    params = paddle.parameters.create(cost)
    params.set("w", W)
    params.set("b", B)
    sgd = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(learning_rate=0.1)
    )
    rows = [([x] if sequence else x, y) for x, y in zip(XS, YS, strict=True)]
    return sgd, params, lambda: iter(rows)


def test_one_row_sequences_cost_and_train_as_plain_rows():
    logits = XS.astype(np.float64) @ W + B
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref_cost = np.mean(-np.log(p[np.arange(6), YS]))
    ref_error = np.mean(np.argmax(p, 1) != np.array(YS))
    trained = []
    for sequence in (False, True):
        sgd, params, reader = _net(sequence)
        result = sgd.test(reader=paddle.batch(reader, 6))
        np.testing.assert_allclose(result.cost, ref_cost, rtol=1e-5)
        assert result.metrics == {"classification_error_evaluator": pytest.approx(ref_error)}
        sgd.train(reader=paddle.batch(reader, 3), num_passes=2)
        trained.append((params.get("w"), params.get("b")))
    np.testing.assert_allclose(trained[1][0], trained[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(trained[1][1], trained[0][1], rtol=1e-5, atol=1e-6)
    assert not np.allclose(trained[0][0], W)


def test_a_sample_of_two_rows_is_a_data_error_naming_it():
    sgd, _, _ = _net(True)
    rows = [([x] * (1 + (i == 4)), y) for i, (x, y) in enumerate(zip(XS, YS, strict=True))]
    with pytest.raises(DataError, match=r"'x'.*one row per sample; sample 1 has 2"):
        sgd.train(reader=paddle.batch(lambda: iter(rows), 3), num_passes=1)


def test_lengths_made_on_the_device_cost_nan_where_not_one():
    kind = get_kind("multi_class_cross_entropy")
    probs = jnp.full((2, 3, 3), 1.0 / 3.0)
    out = kind.apply(
        {}, [Seq(probs, jnp.array([1, 2])), jnp.array([0, 1])], {}, key=None, mode="test"
    )
    assert np.isclose(float(out[0, 0]), np.log(3.0)) and np.isnan(float(out[1, 0]))
    seq = L.data(name="s", type=D.dense_vector_sequence(3)).spec
    rules = kind.host.length_rules([seq, L.data(name="t", type=D.integer_value(3)).spec], {})
    assert [rule.position for rule in rules] == [0]
    assert rules[0].broken(np.array([1, 2, 0])).tolist() == [False, True, True]


def test_a_nested_sequence_beside_a_plain_label_is_still_refused():
    x = L.data(name="x", type=D.dense_vector_sub_sequence(3))
    y = L.data(name="y", type=D.integer_value(3))
    prob = L.mixed(input=L.identity_projection(x), act=paddle.activation.Softmax())
    with pytest.raises(LayerConfigError, match="different sequence levels"):
        L.classification_cost(input=prob, label=y)
