"""The names earlier v2 versions had and later ones renamed (the book's programs of March
2017, the demos of February 2017, v2 0.10's layers) work, each with a DeprecationWarning
naming the name now: ``reader_dict=`` for ``feeding=``, ``paddle.infer(output=...,
reader=...)``, ``SGD(update_equation=...)`` with the cost given to ``train``, and the
renamed module names of ``early_names.RENAMED``."""

import importlib

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compat import early_names
from paddle_lite.errors import ArgumentTypeError

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


def _warns(*names):
    """pytest.warns for one DeprecationWarning per name, each naming what to write now."""
    return pytest.warns(DeprecationWarning, match="|".join(f"{n}.*write now" for n in names))


def test_batched_is_batch_keeping_the_short_last_batch():
    with _warns("paddle.reader.batched"):
        reader = paddle.reader.batched(lambda: iter(range(5)), batch_size=2)
    assert list(reader()) == [[0, 1], [2, 3], [4]]
    with _warns("paddle.reader.decorator.batched"):
        assert paddle.reader.decorator.batched is paddle.batch


@pytest.mark.parametrize("entry", early_names.RENAMED, ids=lambda e: f"{e.module}.{e.old}")
def test_each_renamed_name_gives_the_new_one_with_a_warning(entry):
    module = importlib.import_module(f"paddle_lite.{entry.module}")
    with pytest.warns(DeprecationWarning) as record:
        old = getattr(module, entry.old)
    message = str(record[0].message)
    assert message.startswith(f"paddle.{entry.module}.{entry.old} is from an earlier v2 (")
    assert f"it works as {entry.new}, which is what to write now" in message
    assert record[0].filename == __file__  # the warning points at the user's line
    new_module, _, new_name = entry.new.replace("paddle.", "paddle_lite.", 1).rpartition(".")
    assert old is getattr(importlib.import_module(new_module), new_name)
    assert entry.old not in module.__all__


def test_the_renamed_names_are_v2s_older_ones():
    with _warns("mse_cost", "huber_cost", "shuffled", "train_creator"):
        assert paddle.layer.mse_cost is paddle.layer.square_error_cost
        assert paddle.layer.huber_cost is paddle.layer.huber_classification_cost
        assert paddle.reader.shuffled is paddle.reader.shuffle
        assert paddle.dataset.mnist.train_creator is paddle.dataset.mnist.train
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(3))
    with _warns("mse_cost"):
        cost = paddle.layer.mse_cost(input=x, label=y)
    assert cost.kind == "square_error"


def test_train_and_test_read_reader_dict_as_feeding():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    w = params.get("___fc_layer_0__.w0").astype(np.float64)
    b = params.get("___fc_layer_0__.wbias").astype(np.float64)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    names = {"x": 1, "y": 0}
    with _warns("test\\(\\): reader_dict="):
        result = trainer.test(paddle.batch(_label_first, 5), reader_dict=names)
    want = ((X @ w + b - Y) ** 2).sum() / len(X)
    assert result.cost == pytest.approx(float(want), rel=1e-5)
    with _warns("train\\(\\): reader_dict="):
        trainer.train(paddle.batch(_label_first, 12), num_passes=1, reader_dict=names)
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
    with _warns("reader_dict="):
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
    with pytest.warns(DeprecationWarning) as record:
        by_batches = paddle.infer(
            output=pred, parameters=params, reader=paddle.batch(_label_first, 5), reader_dict=names
        )
    said = sorted(str(r.message).split(" is from")[0] for r in record)
    assert said == ["paddle.infer: output=", "paddle.infer: reader=", "paddle.infer: reader_dict="]
    assert "works as input=<a list of samples>" in str(record[-1].message)
    np.testing.assert_allclose(by_batches, want, rtol=1e-5, atol=1e-6)
    with _warns("output=", "reader=", "reader_dict="):
        by_samples = paddle.infer(
            output=pred, parameters=params, reader=_label_first, batch_size=5, reader_dict=names
        )
    np.testing.assert_allclose(by_samples, want, rtol=1e-5, atol=1e-6)
    with _warns("reader="):
        by_position = paddle.infer(pred, params, paddle.batch(lambda: ((x,) for x in X), 4))
    np.testing.assert_allclose(by_position, want, rtol=1e-5, atol=1e-6)
    with _warns("Inference: output="):
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


def test_feb_2017_trainer_takes_the_cost_and_parameters_in_train():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    w0 = params.get("___fc_layer_0__.w0").copy()
    with _warns("paddle.trainer.SGD\\(update_equation=...\\)"):
        trainer = paddle.trainer.SGD(update_equation=paddle.optimizer.Momentum(learning_rate=0.01))
    with pytest.raises(ArgumentTypeError, match=r"train\(reader, cost=cost, parameters="):
        trainer.test(paddle.batch(_label_first, 4), feeding={"x": 1, "y": 0})
    with pytest.raises(ArgumentTypeError, match="needs cost= and parameters="):
        trainer.train(paddle.batch(_label_first, 12), cost=cost)
    with _warns("reader_dict="):  # demo/mnist/api_train_v2.py of Feb 2017, as it was written
        trainer.train(
            reader=paddle.batch(_label_first, 12),
            cost=cost,
            parameters=params,
            batch_size=12,
            reader_dict={"x": 1, "y": 0},
        )
    r = X @ w0.astype(np.float64) + 0.0 - Y  # the bias starts at 0: one step, in float64
    np.testing.assert_allclose(
        params.get("___fc_layer_0__.w0"), w0 - 0.01 * 2 * X.T @ r, rtol=1e-4, atol=1e-6
    )
    assert trainer.test(paddle.batch(_label_first, 4), feeding={"x": 1, "y": 0}).cost > 0
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['cost'\]"):
        trainer.train(paddle.batch(_label_first, 12), cost=cost)
