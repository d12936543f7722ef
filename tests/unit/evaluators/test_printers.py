"""paddle.layer.printer and the evaluator printers print every batch of a trainer."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.graph import current_scope
from paddle_lite.errors import LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _net():
    x = L.data(name="x", type=DT.dense_vector(2))
    y = L.data(name="y", type=DT.integer_value(3))
    prob = L.fc(
        input=x,
        size=3,
        act=A.Softmax(),
        bias_attr=False,
        param_attr=paddle.attr.Param(name="w", initial_std=0.0),
    )
    return x, y, prob, L.classification_cost(input=prob, label=y)


def _test(cost):
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=paddle.optimizer.Momentum(learning_rate=0.0)
    )
    samples = [(np.array([1.0, 2.0], "f4"), 0), (np.array([3.0, 4.0], "f4"), 2)]
    result = trainer.test(reader=paddle.batch(lambda: iter(samples), 2))
    jax.effects_barrier()
    return result


def test_printer_prints_its_inputs_every_batch_and_returns_none(capsys):
    x, _, prob, cost = _net()
    assert L.printer(input=[x, prob]) is None
    (printer,) = current_scope().evaluators
    assert printer.name == "__print_0__"
    result = _test(cost)
    out = capsys.readouterr().out
    assert "layer=x [[1. 2.]\n [3. 4.]]" in out
    assert "layer=__fc_layer_0__ [[0.33333334" in out  # zero weights: uniform softmax
    assert result.metrics == {"classification_error_evaluator": 0.5}


def test_printer_format_and_evaluator_printers(capsys):
    x, y, prob, cost = _net()
    L.printer(input=x, format="features: %s")
    paddle.evaluator.maxid_printer(input=prob, num_results=2)
    paddle.evaluator.classification_error_printer(input=prob, label=y)
    paddle.evaluator.value_printer(input=y)
    _test(cost)
    out = capsys.readouterr().out
    assert "features: [[1. 2.]" in out
    assert "__maxid_printer_evaluator_0__: layer=__fc_layer_0__ ids=\n[[0 1]\n [0 1]]" in out
    assert "__classification_error_printer_evaluator_0__: errors=\n[0 1]" in out
    assert "layer=y value=\n[0 2]" in out


def test_printer_outside_the_topology_stays_silent(capsys):
    _, _, _, cost = _net()
    other = L.data(name="other", type=DT.dense_vector(1))
    L.printer(input=other)
    _test(cost)
    assert "layer=other" not in capsys.readouterr().out


def test_printer_format_needs_one_placeholder_per_input():
    x, _, prob, _ = _net()
    with pytest.raises(LayerTypeError, match="one %s per input"):
        L.printer(input=[x, prob], format="only %s")


def test_maxframe_printer_ranks_the_frames_of_each_sequence(capsys):
    from paddle_lite._src.evaluators import printers
    from paddle_lite._src.values import Seq

    scores = L.data(name="scores", type=DT.dense_vector_sequence(1))
    paddle.evaluator.maxframe_printer(input=scores, num_results=2)
    (ev,) = current_scope().evaluators
    data = np.array([[[0.1], [0.9], [0.5]], [[0.7], [0.2], [9.0]]], "f4")
    printers.emit(ev.attrs["render"], ev, [Seq(data, np.array([3, 2], np.int32))])
    assert "frames=[[1, 2], [0, 1]]" in capsys.readouterr().out
