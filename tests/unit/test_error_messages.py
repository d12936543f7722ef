"""Four mistakes whose errors say what was received, what was expected and what to write:
a feeding key that names no data layer, inferring a cost without its labels, a layer of
another network (or of two builds of one), and a sample where a list of samples or a
batch belongs."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import DataError, ParameterError, TopologyError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.array([[1.0], [2.0]], np.float32)


def _net():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    pred = L.fc(input=x, size=1, act=A.Linear())
    return pred, L.square_error_cost(input=pred, label=y)


def _trainer(cost):
    params = paddle.parameters.create(cost)
    return paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01)), params


def _samples():
    return list(zip(X, Y, strict=True))


def test_a_feeding_key_that_names_no_data_layer_is_named_with_the_fix():
    _, cost = _net()
    trainer, params = _trainer(cost)
    with pytest.raises(DataError) as info:
        trainer.train(paddle.batch(_samples, 2), num_passes=1, feeding={"x": 0, "label": 1})
    message = str(info.value)
    assert "gives no field for data layer(s) ['y']" in message
    assert "Its key(s) ['label'] name no data layer of this network" in message
    assert "did you mean 'y' for 'label'?" in message
    assert "write feeding={'x': 0, 'y': 1}" in message
    # keys v2 ignored (a training feeding passed on to infer) are still ignored
    pred, _ = cost.inputs
    out = paddle.infer(
        output_layer=pred, parameters=params, input=[(X[0],)], feeding={"x": 0, "y": 1}
    )
    assert out.shape == (1, 1)


def test_inferring_a_cost_without_labels_names_the_layer_to_infer():
    pred, cost = _net()
    params = paddle.parameters.create(cost)
    with pytest.raises(DataError) as info:
        paddle.infer(output_layer=cost, parameters=params, input=[(x,) for x in X])
    message = str(info.value)
    assert f"output_layer '{cost.name}' (square_error) is a cost" in message
    assert "the label data layer(s) ['y']" in message
    assert f"infer the layer the cost scores, its input '{pred.name}'" in message
    # with the labels it is inferred, as in v2: the cost of each sample
    w, b = params.get(f"_{pred.name}.w0"), params.get(f"_{pred.name}.wbias")
    got = paddle.infer(output_layer=cost, parameters=params, input=_samples())
    np.testing.assert_allclose(got.ravel(), ((X @ w + b - Y) ** 2).ravel(), rtol=1e-5)


def test_a_layer_of_another_network_says_how_to_fix_it():
    _, cost = _net()
    params = paddle.parameters.create(cost)
    other = L.fc(input=L.data(name="z", type=DT.dense_vector(3)), size=2, name="other")
    with pytest.raises(ParameterError) as info:
        paddle.infer(output_layer=other, parameters=params, input=[(X[0],)])
    message = str(info.value)
    assert "the parameters lack ['_other.w0', '_other.wbias'] of layer(s) ['other']" in message
    assert "'___fc_layer_0__.w0'" in message  # what the parameters do hold
    assert "paddle.layer.reset_names()" in message
    assert "paddle.parameters.create(output_layer)" in message


def test_layers_of_two_builds_in_one_cost_say_how_to_fix_it():
    first, _ = _net()
    paddle.layer.reset_names()
    _, cost = _net()  # built again: the same names, other layers
    with pytest.raises(TopologyError) as info:
        paddle.parameters.create(L.addto(input=[first, cost]))
    message = str(info.value)
    assert "two different layers are named 'x' (data at " in message
    assert "paddle.layer.reset_names()" in message
    assert "build the network once and use that build's layers" in message


def test_infer_given_one_sample_says_to_pass_a_list_of_samples():
    pred, _ = _net()
    params = paddle.parameters.create(pred)
    with pytest.raises(
        DataError, match=r"input is a single sample, tuple .*write input=\[sample\]"
    ):
        paddle.infer(output_layer=pred, parameters=params, input=(X[0],))
    with pytest.raises(DataError, match=r"a single sample's value, .*write input=\[\(value,\)\]"):
        paddle.infer(output_layer=pred, parameters=params, input=X[0])
    # a list of bare arrays keeps the hint to wrap each one
    with pytest.raises(DataError, match=r"wrap an array that is one field, e\.g\. \(image,\)"):
        paddle.infer(output_layer=pred, parameters=params, input=[X[0], X[1]])


@pytest.mark.parametrize("call", ["train", "test"])
def test_a_reader_of_samples_says_to_wrap_it_with_paddle_batch(call):
    _, cost = _net()
    trainer, _ = _trainer(cost)
    run = trainer.train if call == "train" else trainer.test
    with pytest.raises(DataError) as info:
        run(lambda: iter(_samples()))
    message = str(info.value)
    assert "batch 0: the reader yielded a single sample, tuple (array([0., 1., 2.]" in message
    assert "where a batch (a list of samples) belongs" in message
    assert "reader=paddle.batch(reader, batch_size=32)" in message
