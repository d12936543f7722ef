"""The names the v2 of early 2017 had (the book's programs of March 2017 use them):
``paddle.reader.batched``, ``reader_dict=`` for ``feeding=`` in ``train``/``test``/``infer``,
and ``paddle.infer(output=..., reader=...)``."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.errors import ArgumentTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(3)
X = RNG.normal(size=(12, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


def _label_first():
    """Samples ordered (label, features): only a feeding/reader_dict maps them right."""
    yield from zip(Y, X, strict=True)


def _linear():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    pred = L.fc(input=x, size=1, act=A.Linear())
    return pred, L.square_error_cost(input=pred, label=y)


def test_batched_is_batch_keeping_the_short_last_batch():
    reader = paddle.reader.batched(lambda: iter(range(5)), batch_size=2)
    assert list(reader()) == [[0, 1], [2, 3], [4]]
    assert paddle.reader.decorator.batched is paddle.batch


def test_train_and_test_read_reader_dict_as_feeding():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    w = params.get("___fc_layer_0__.w0").astype(np.float64)
    b = params.get("___fc_layer_0__.wbias").astype(np.float64)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    names = {"x": 1, "y": 0}
    result = trainer.test(paddle.reader.batched(_label_first, 5), reader_dict=names)
    want = ((X @ w + b - Y) ** 2).sum() / len(X)
    assert result.cost == pytest.approx(float(want), rel=1e-5)
    trainer.train(paddle.reader.batched(_label_first, 12), num_passes=1, reader_dict=names)
    r = X @ w + b - Y  # one SGD step on the summed squared error, in float64
    np.testing.assert_allclose(
        params.get("___fc_layer_0__.w0"), w - 0.01 * 2 * X.T @ r, rtol=1e-4, atol=1e-6
    )


def test_feeding_and_a_different_reader_dict_are_refused_an_equal_one_is_not():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum())
    with pytest.raises(ArgumentTypeError, match="reader_dict"):
        trainer.test(
            paddle.batch(_label_first, 4), feeding={"x": 0, "y": 1}, reader_dict={"x": 1, "y": 0}
        )
    same = trainer.test(
        paddle.batch(_label_first, 4), feeding={"x": 1, "y": 0}, reader_dict={"x": 1, "y": 0}
    )
    assert same.cost == trainer.test(paddle.batch(_label_first, 4), feeding={"x": 1, "y": 0}).cost


def test_infer_with_output_and_a_reader_of_batches_or_samples():
    pred, _ = _linear()
    params = paddle.parameters.create(pred)
    w, b = params.get("___fc_layer_0__.w0"), params.get("___fc_layer_0__.wbias")
    want = X.astype(np.float64) @ w + b
    names = {"x": 1, "y": 0}
    by_batches = paddle.infer(
        output=pred,
        parameters=params,
        reader=paddle.reader.batched(_label_first, 5),
        reader_dict=names,
    )
    np.testing.assert_allclose(by_batches, want, rtol=1e-5, atol=1e-6)
    by_samples = paddle.infer(
        output=pred, parameters=params, reader=_label_first, batch_size=5, reader_dict=names
    )
    np.testing.assert_allclose(by_samples, want, rtol=1e-5, atol=1e-6)
    by_position = paddle.infer(pred, params, paddle.batch(lambda: ((x,) for x in X), 4))
    np.testing.assert_allclose(by_position, want, rtol=1e-5, atol=1e-6)
    inferer = paddle.inference.Inference(output=pred, parameters=params)
    np.testing.assert_allclose(inferer.infer(input=[(x,) for x in X]), want, rtol=1e-5, atol=1e-6)


def test_infer_refuses_input_and_reader_together_and_unknown_arguments():
    pred, _ = _linear()
    params = paddle.parameters.create(pred)
    with pytest.raises(ArgumentTypeError, match="input= and reader="):
        paddle.infer(output_layer=pred, parameters=params, input=[(X[0],)], reader=_label_first)
    with pytest.raises(TypeError, match="readers"):
        paddle.infer(output_layer=pred, parameters=params, input=[(X[0],)], readers=1)
    with pytest.raises(ArgumentTypeError, match="output_layer= and output="):
        paddle.infer(output_layer=pred, output=L.fc(input=pred, size=2), parameters=params)
