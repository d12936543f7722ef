"""The mistakes a newcomer makes get typed answers that say what to write instead."""

import builtins
import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.specs import InitSpec

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
E = paddle.errors


def _classifier():
    x = L.data(name="x", type=DT.dense_vector(4))
    lbl = L.data(name="lbl", type=DT.integer_value(3))
    prob = L.fc(input=x, size=3, act=A.Softmax(), name="D")
    return prob, lbl, L.classification_cost(input=prob, label=lbl)


def _reader():
    rng = np.random.default_rng(0)
    for _ in range(8):
        yield rng.normal(size=4).astype(np.float32), int(rng.integers(3))


def test_infer_with_parameters_none():
    prob, _, _ = _classifier()
    with pytest.raises(E.ArgumentTypeError, match="paddle.infer: parameters must be") as err:
        paddle.infer(output_layer=prob, parameters=None, input=[(np.zeros(4, np.float32),)])
    assert isinstance(err.value, TypeError)
    assert "received None" in str(err.value)
    assert "paddle.parameters.create(cost)" in str(err.value)
    assert "from_tar" in str(err.value)
    with pytest.raises(E.ArgumentTypeError, match="Inference: parameters must be"):
        paddle.inference.Inference(parameters=None, output_layer=prob)


def test_sgd_with_a_layer_as_parameters():
    _, _, cost = _classifier()
    with pytest.raises(E.ArgumentTypeError) as err:
        paddle.trainer.SGD(cost=cost, parameters=cost, update_equation=paddle.optimizer.Momentum())
    message = str(err.value)
    assert "paddle.trainer.SGD" in message
    assert f"the layer '{cost.name}'" in message
    assert "parameters = paddle.parameters.create(cost)" in message
    assert "cost=" in message


def test_sgd_with_a_prediction_as_cost_warns_and_trains():
    prob, _, _ = _classifier()
    params = paddle.parameters.create(prob)
    with pytest.warns(E.CostWarning) as record:
        trainer = paddle.trainer.SGD(
            cost=prob, parameters=params, update_equation=paddle.optimizer.Momentum()
        )
    message = str(record[0].message)
    assert "'D'" in message and "not a cost" in message
    assert "3 values per sample" in message and "softmax" in message
    assert "classification_cost" in message
    trainer.train(paddle.batch(_reader, 4), feeding={"x": 0})  # v2 trained it: so do we


def test_a_real_cost_does_not_warn():
    _, _, cost = _classifier()
    params = paddle.parameters.create(cost)
    with warnings.catch_warnings():
        warnings.simplefilter("error", E.CostWarning)
        paddle.trainer.SGD(
            cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum()
        )


def _frozen_after(immutable):
    prob, _, cost = _classifier()
    params = paddle.parameters.create(cost)
    before = {n: params.get(n).copy() for n in params.names()}
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))
    trainer.train(paddle.batch(_reader, 4), immutable_parameters=immutable(prob))
    return {n for n in before if np.array_equal(before[n], params.get(n))}


@pytest.mark.parametrize(
    "immutable",
    [
        lambda prob: {"D"},  # a layer name: all its parameters
        lambda prob: [prob],  # a layer object
        lambda prob: prob,
        lambda prob: {"_D"},  # a prefix before '.'
        lambda prob: ["_D.w0", "_D.wbias"],
    ],
)
def test_immutable_parameters_accepts_layer_names_and_layers(immutable):
    assert _frozen_after(immutable) == {"_D.w0", "_D.wbias"}


def test_immutable_parameters_unknown_name_lists_close_matches():
    _, _, cost = _classifier()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum())
    with pytest.raises(E.ParameterError) as err:
        trainer.train(paddle.batch(_reader, 4), immutable_parameters={"_D.w"})
    message = str(err.value)
    assert "'_D.w' matches no parameter or layer" in message
    assert "Close matches" in message and "'_D.w0'" in message
    with pytest.raises(E.ArgumentTypeError, match="immutable_parameters entries"):
        trainer.train(paddle.batch(_reader, 4), immutable_parameters=[3])


def test_ploter_without_matplotlib(monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delenv("DISABLE_PLOT", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    ploter = paddle.plot.Ploter("Train cost")
    ploter.append("Train cost", 0, 1.0)
    with pytest.raises(E.MissingDependencyError) as err:
        ploter.plot()
    assert isinstance(err.value, ImportError)
    assert "pip install 'paddle_lite[plot]'" in str(err.value)


def test_messages_print_v2_words():
    x = L.data(name="x", type=DT.dense_vector(784))
    y = L.fc(input=x, size=2)
    params = paddle.parameters.create(y)
    with pytest.raises(E.DataError) as err:
        paddle.infer(output_layer=y, parameters=params, input=[(np.zeros(3, np.float32),)])
    assert "declared dense_vector(784)" in str(err.value)
    assert "InputType(" not in str(err.value)
    assert str(DT.integer_value_sequence(10)) == "integer_value_sequence(10)"
    assert repr(InitSpec("gaussian", 0.0, 0.01)) == "ParamAttr(initial_mean=0, initial_std=0.01)"
    assert repr(InitSpec("uniform", 0.0, 0.5)) == "ParamAttr(initial_min=-0.5, initial_max=0.5)"
    assert "InitSpec(" not in repr(params.specs())
