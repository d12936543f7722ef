"""The calls v2's vision, speech and recommendation programs (2017-18) make, each in a
small network of our own, checked against what v2 did with them.

Each test names the v2 program idiom it covers; the values expected are what v2's
trainer and gradient machine computed (see the docstrings for the v2 source facts).
"""

from __future__ import annotations

import io
import tarfile

import numpy as np

import paddle_lite as paddle

L, DT, A, E = paddle.layer, paddle.data_type, paddle.activation, paddle.evaluator
RNG = np.random.default_rng(7)


def _data(n=12, dim=6, classes=3):
    x = RNG.normal(size=(n, dim)).astype(np.float32)
    y = RNG.integers(0, classes, n)
    return [(x[i], int(y[i])) for i in range(n)]


def _with_side_head(dim=6, classes=3):
    """A trunk with a main classifier and an auxiliary one (GoogLeNet's pattern)."""
    x = L.data(name="x", type=DT.dense_vector(dim))
    y = L.data(name="y", type=DT.integer_value(classes))
    trunk = L.fc(input=x, size=5, act=A.Tanh(), name="trunk")
    main = L.fc(input=trunk, size=classes, act=A.Softmax(), name="main")
    side = L.fc(input=trunk, size=classes, act=A.Softmax(), name="side")
    cost = L.classification_cost(input=main, label=y)
    side_cost = L.cross_entropy_cost(input=side, label=y, coeff=0.3)
    return cost, side_cost, side, y


def _train_one_batch(cost, params, batch, extra_layers=None):
    optimizer = paddle.optimizer.Momentum(momentum=0, learning_rate=0.1)
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=optimizer, extra_layers=extra_layers
    )
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((event.cost, dict(event.metrics)))

    trainer.train(lambda: iter([batch]), num_passes=1, event_handler=handler)
    return trainer, seen[0]


def test_extra_layer_costs_train_with_parameters_the_trainer_creates():
    """googlenet in image_classification: ``parameters.create(cost)`` then
    ``SGD(cost, ..., extra_layers=[loss1, loss2])`` with auxiliary ``cross_entropy_cost
    (coeff=0.3)`` heads. v2's gradient machine initialised the heads' parameters itself
    and ran every cost layer's backward (the heads add their gradient to the trunk);
    the reported cost summed the output layers only; the pool kept its own names."""
    batch = _data()
    cost, side_cost, side, y = _with_side_head()
    E.classification_error(input=side, label=y)
    params = paddle.parameters.create(cost)
    assert not any(name.startswith("_side") for name in params.keys())
    trainer, (reported, metrics) = _train_one_batch(cost, params, batch, extra_layers=[side_cost])
    assert sorted(params.keys()) == sorted(paddle.parameters.create(cost).keys())
    assert any(key.startswith("classification_error_evaluator") for key in metrics)

    # the same step with both costs declared: same update, cost reported with the head's
    both = paddle.parameters.create([cost, side_cost])
    _, (reported_both, _) = _train_one_batch([cost, side_cost], both, batch)
    np.testing.assert_allclose(params.get("_trunk.w0"), both.get("_trunk.w0"), rtol=1e-5)
    np.testing.assert_allclose(params.get("_main.w0"), both.get("_main.w0"), rtol=1e-5)
    assert reported_both > reported + 1e-3

    # and without the head the trunk moves differently, with the same reported cost
    alone = paddle.parameters.create(cost)
    _, (reported_alone, _) = _train_one_batch(cost, alone, batch)
    assert np.abs(alone.get("_trunk.w0") - params.get("_trunk.w0")).max() > 1e-6
    np.testing.assert_allclose(reported_alone, reported, rtol=1e-6)

    out = io.BytesIO()
    trainer.save_parameter_to_tar(out)
    out.seek(0)
    with tarfile.open(fileobj=out) as tar:
        members = {m.name for m in tar.getmembers()}
    assert not any(m.startswith("_side") for m in members)
