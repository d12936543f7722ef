"""The benchmark's row-fed plain JAX side computes what paddle_lite's trainer computes.

Given paddle_lite's own initial parameters, the hand-written scored step's cost and
classification error count on a batch of Python rows equal ``trainer.test``'s on the
same rows, and one SGD step moves chapter 1's parameters as ``trainer.train`` does.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from bench import models, sides
from bench.jax_nets import init_carry, make_scored_step

BATCH = 8


def _lite(model):
    with paddle.layer.name_scope():
        cost, optimizer, feeding = model.lite()
        parameters = paddle.parameters.create(cost)
        trainer = paddle.trainer.SGD(cost, parameters, optimizer)
    return trainer, parameters, feeding


def _fc(parameters, i):
    """paddle_lite's fc layer ``i`` as the plain JAX net's ``{"w", "b"}``."""
    w = parameters.get(f"___fc_layer_{i}__.w0")
    return {"w": w, "b": parameters.get(f"___fc_layer_{i}__.wbias").reshape(-1)}


def _scored(model, params, rows):
    """The row-fed side's step over ``rows`` from ``params``: (new params, cost, errors)."""
    net = model.jax()
    carry = init_carry(net)
    carry = carry._replace(params=params, opt_state=net.tx.init(params))
    side = sides.RowJaxSide(model, "highest")
    new, cost, errors = make_scored_step(net)(carry, side.model.columns(rows, side.padding))
    return jax.device_get(new.params), float(cost), errors


@pytest.mark.parametrize("key", ["fit_a_line", "tiny"])
def test_regression_cost_and_sgd_step_match_the_trainer(key):
    model = models.registry("quick")[key]
    rows = model.samples(BATCH, np.random.default_rng(3))
    trainer, parameters, feeding = _lite(model)
    params, cost, errors = _scored(model, _fc(parameters, 0), rows)
    reader = paddle.batch(lambda: iter(rows), BATCH)
    want = trainer.test(reader=reader, feeding=feeding)
    assert errors is None
    np.testing.assert_allclose(cost, want.cost * BATCH, rtol=1e-5)
    x = np.stack([r[0] for r in rows]).astype(np.float64)
    y = np.stack([r[1] for r in rows]).astype(np.float64)
    w0, b0 = (np.asarray(v, np.float64) for v in _fc(parameters, 0).values())
    np.testing.assert_allclose(cost, np.sum(np.square(x @ w0 + b0 - y)), rtol=1e-5)
    trainer.train(reader=reader, num_passes=1, feeding=feeding)
    np.testing.assert_allclose(params["w"], parameters.get("___fc_layer_0__.w0"), rtol=1e-5)
    np.testing.assert_allclose(
        params["b"], parameters.get("___fc_layer_0__.wbias").reshape(-1), rtol=1e-5
    )


def test_mlp_cost_and_error_count_match_the_trainer():
    model = models.registry("quick")["mlp"]
    rows = model.samples(BATCH, np.random.default_rng(5))
    trainer, parameters, feeding = _lite(model)
    params = [_fc(parameters, i) for i in range(3)]
    _, cost, errors = _scored(model, params, rows)
    want = trainer.test(reader=paddle.batch(lambda: iter(rows), BATCH), feeding=feeding)
    np.testing.assert_allclose(cost, want.cost * BATCH, rtol=1e-5)
    rate = want.metrics["classification_error_evaluator"]
    assert int(errors) == round(rate * BATCH)
    # brute force: the rows whose largest output is not their label
    h = np.stack([r[0] for r in rows]).astype(np.float64)
    for layer in params[:-1]:
        h = np.maximum(h @ np.asarray(layer["w"], np.float64) + layer["b"], 0.0)
    logits = h @ np.asarray(params[-1]["w"], np.float64) + params[-1]["b"]
    labels = np.asarray([r[1] for r in rows])
    assert int(errors) == int(np.sum(logits.argmax(axis=1) != labels))
