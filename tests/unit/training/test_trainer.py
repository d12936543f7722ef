"""SGD trainer and the functional train/test: v2 numerics, events, freezing, caching."""

import io
import logging

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import ParameterError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 3)).astype(np.float32)
W_TRUE = np.array([[1.0], [-2.0], [0.5]], np.float32)
Y = X @ W_TRUE + 0.3


def _reader():
    yield from zip(X, Y, strict=True)


def _linear():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    pred = L.fc(input=x, size=1, act=A.Linear())
    return pred, L.square_error_cost(input=pred, label=y)


def test_linear_regression_recovers_w_and_b():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost, params, paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01 / 16)
    )
    trainer.train(paddle.batch(_reader, 16), num_passes=40)
    np.testing.assert_allclose(params.get("___fc_layer_0__.w0"), W_TRUE, atol=1e-3)
    np.testing.assert_allclose(params.get("___fc_layer_0__.wbias"), [[0.3]], atol=1e-3)
    assert trainer.test(paddle.batch(_reader, 10)).cost < 1e-5


def test_one_step_is_sgd_on_the_summed_gradient_and_cost_is_the_mean():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    w0, b0 = (
        params.get("___fc_layer_0__.w0").astype(np.float64),
        params.get("___fc_layer_0__.wbias"),
    )
    lr = 0.01
    seen = []
    trainer = paddle.trainer.SGD(
        cost, params, paddle.optimizer.Momentum(momentum=0, learning_rate=lr)
    )
    trainer.train(
        paddle.batch(_reader, 8),
        num_passes=1,
        event_handler=lambda e: seen.append(e),
        feeding={"x": 0, "y": 1},
    )
    first = next(e for e in seen if isinstance(e, paddle.event.EndIteration))
    r = X[:8] @ w0 + b0 - Y[:8]
    assert first.cost == pytest.approx(float((r**2).sum() / 8), rel=1e-5)
    # replay the 8 batches in numpy: gradient of the SUM of per-sample costs
    w, b = w0, b0.astype(np.float64)
    for i in range(0, 64, 8):
        r = X[i : i + 8] @ w + b - Y[i : i + 8]
        w, b = w - lr * 2 * X[i : i + 8].T @ r, b - lr * 2 * r.sum(0, keepdims=True)
    np.testing.assert_allclose(params.get("___fc_layer_0__.w0"), w, rtol=1e-4)


def test_event_order_and_ids():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    names = []
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum())
    trainer.train(
        paddle.batch(_reader, 32),
        num_passes=2,
        event_handler=lambda e: names.append(
            (type(e).__name__, getattr(e, "pass_id", None), getattr(e, "batch_id", None))
        ),
    )

    def per_batch(p, b):
        return [
            ("BeginIteration", p, b),
            ("EndForwardBackward", p, b),
            ("EndIteration", p, b),
        ]

    want = [("BeginTraining", None, None)]
    for p in range(2):
        want += (
            [("BeginPass", p, None)] + per_batch(p, 0) + per_batch(p, 1) + [("EndPass", p, None)]
        )
    assert names.pop(3) == ("Compiling", 0, 0)  # the first step compiles; none after
    assert names == want + [("EndTraining", None, None)]


def test_parameters_reflect_training_inside_handlers_and_after():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    start = params.get("___fc_layer_0__.w0")
    snapshots = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            snapshots.append(params.get("___fc_layer_0__.w0"))

    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    trainer.train(paddle.batch(_reader, 16), event_handler=handler)
    assert not np.array_equal(snapshots[0], start)
    assert not np.array_equal(snapshots[0], snapshots[-1])
    np.testing.assert_array_equal(snapshots[-1], params.get("___fc_layer_0__.w0"))


def test_set_inside_a_handler_is_picked_up():
    _, cost = _linear()
    params = paddle.parameters.create(cost)

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 0:
            params.set("___fc_layer_0__.w0", np.zeros((3, 1), np.float32))

    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.0))
    trainer.train(paddle.batch(_reader, 16), event_handler=handler)
    np.testing.assert_array_equal(params.get("___fc_layer_0__.w0"), np.zeros((3, 1)))


def test_test_cost_is_total_over_samples():
    pred, cost = _linear()
    params = paddle.parameters.create(cost)
    w, b = params.get("___fc_layer_0__.w0"), params.get("___fc_layer_0__.wbias")
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum())
    result = trainer.test(paddle.batch(_reader, 10))  # batches of 10 and a last one of 4
    want = float(((X @ w + b - Y) ** 2).sum() / 64)
    assert result.cost == pytest.approx(want, rel=1e-5)


def _gan():
    noise = L.data(name="noise", type=DT.dense_vector(2))
    real = L.data(name="real", type=DT.dense_vector(4))
    gen = lambda z: L.fc(input=z, size=4, act=A.Tanh(), parameter_name="G")  # noqa: E731
    dis = lambda x: L.fc(input=x, size=1, act=A.Sigmoid(), parameter_name="D")  # noqa: E731
    return L.should_be_false(dis(gen(noise))), L.should_be_true(dis(real))


def test_gan_alternating_freezes_exactly():
    d0, d1 = _gan()
    params = paddle.parameters.create([d0, d1])
    noise = lambda: (([float(v) for v in RNG.normal(size=2)],) for _ in range(32))  # noqa: E731
    real = lambda: ((np.full(4, 0.5, np.float32),) for _ in range(32))  # noqa: E731
    opt = paddle.optimizer.Adam(learning_rate=1e-2)
    for _ in range(2):
        d_before, g_before = params.get("D"), params.get("G")
        paddle.train(
            d0, params, paddle.batch(noise, 8), update_equation=opt, immutable_parameters={"D"}
        )
        np.testing.assert_array_equal(params.get("D"), d_before)
        np.testing.assert_array_equal(params.get("D.wbias"), params.get("D.wbias"))
        assert not np.array_equal(params.get("G"), g_before)
        g_mid = params.get("G")
        paddle.train(d1, params, paddle.batch(real, 8), update_equation=opt)
        np.testing.assert_array_equal(params.get("G"), g_mid)
        assert not np.array_equal(params.get("D"), d_before)


def test_frozen_prefix_must_match():
    d0, _ = _gan()
    params = paddle.parameters.create(d0)
    with pytest.raises(ParameterError, match="'E' matches no parameter"):
        paddle.train(
            d0, params, paddle.batch(lambda: iter([([0.0, 0.0],)]), 1), immutable_parameters={"E"}
        )


def _compiled(caplog, run):
    """The names of the programs ``run()`` compiles (JAX's compile log)."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="jax"), jax.log_compiles(True):
        result = run()
    return [
        r.getMessage().split(" ")[1]
        for r in caplog.records
        if r.getMessage().startswith("Compiling ")
    ], result


def test_second_train_and_infer_compile_nothing_new(caplog):
    pred, cost = _linear()
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(learning_rate=1e-3)
    train = lambda: paddle.train(cost, params, paddle.batch(_reader, 16), update_equation=opt)  # noqa: E731
    first, _ = _compiled(caplog, train)
    assert "jit(run)" in first
    assert _compiled(caplog, train)[0] == []
    infer = lambda rows: paddle.infer(output_layer=pred, parameters=params, input=rows)  # noqa: E731
    infer([(x,) for x in X[:5]])
    again, out = _compiled(caplog, lambda: infer([(x,) for x in X[5:10]]))
    assert again == []
    w, b = params.get("___fc_layer_0__.w0"), params.get("___fc_layer_0__.wbias")
    np.testing.assert_allclose(out, X[5:10] @ w + b, rtol=1e-5)


def test_type_errors():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    with pytest.raises(TypeError, match="parameters must be a paddle.parameters.Parameters"):
        paddle.trainer.SGD(cost, {}, paddle.optimizer.Momentum())
    with pytest.raises(TypeError, match="update equation"):
        paddle.trainer.SGD(cost, params, "sgd")
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum())
    with pytest.raises(TypeError, match="reader must be callable"):
        trainer.train(paddle.batch(_reader, 4)(), num_passes=1)


def test_save_parameter_to_tar_round_trip():
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    trainer.train(paddle.batch(_reader, 16))
    buf = io.BytesIO()
    trainer.save_parameter_to_tar(buf)
    buf.seek(0)
    again = paddle.parameters.Parameters.from_tar(buf)
    for name in params.keys():
        np.testing.assert_array_equal(again.get(name), params.get(name))


def test_paramconf_order_v2():
    """v2 test_paramconf_order: an l2_rate of 0 takes the optimizer's global rate."""
    import math

    dict_size, embsize, hiddensize = 30, 8, 16
    words = [L.data(name=f"w{i}", type=DT.integer_value(dict_size)) for i in range(4)]
    next_word = L.data(name="next", type=DT.integer_value(dict_size))

    def wordemb(word):
        return L.table_projection(
            input=word,
            size=embsize,
            param_attr=paddle.attr.Param(
                name="_proj", initial_std=0.001, learning_rate=1, l2_rate=0
            ),
        )

    context = L.concat(input=[wordemb(w) for w in words])
    hidden = L.fc(
        name="fc1",
        input=context,
        size=hiddensize,
        act=A.Sigmoid(),
        layer_attr=paddle.attr.Extra(drop_rate=0.5),
        bias_attr=paddle.attr.Param(learning_rate=2),
        param_attr=paddle.attr.Param(
            initial_std=1.0 / math.sqrt(embsize * 8), learning_rate=1, l2_rate=6e-4
        ),
    )
    predict = L.fc(
        input=hidden, size=dict_size, bias_attr=paddle.attr.Param(learning_rate=2), act=A.Softmax()
    )
    cost = L.classification_cost(input=predict, label=next_word)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost,
        params,
        paddle.optimizer.AdaGrad(
            learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(8e-4)
        ),
    )
    config = trainer.get_topology_proto()
    rates = {p.name: p.decay_rate for p in config.parameters}
    assert set(rates) == {
        "_proj",
        "_fc1.w0",
        "_fc1.wbias",
        "___fc_layer_0__.w0",
        "___fc_layer_0__.wbias",
    }
    for name, rate in rates.items():
        assert rate == pytest.approx(6e-4 if name == "_fc1.w0" else 8e-4), name
    samples = [tuple(RNG.integers(0, dict_size, 5).tolist()) for _ in range(16)]
    trainer.train(paddle.batch(lambda: iter(samples), 8), num_passes=1)


def test_pruning_hook_keeps_the_smallest_weights_at_zero():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(4))
    hook = paddle.attr.Hook(type="pruning", sparsity_ratio=0.5)
    pred = L.fc(input=x, size=4, act=A.Linear(), param_attr=paddle.attr.Param(update_hooks=hook))
    cost = L.square_error_cost(input=pred, label=y)
    params = paddle.parameters.create(cost)
    w0 = params.get("___fc_layer_0__.w0")
    keep = np.abs(w0).ravel() >= np.sort(np.abs(w0).ravel())[6]  # the 6 largest of 12
    samples = [
        (RNG.normal(size=3).astype(np.float32), RNG.normal(size=4).astype(np.float32))
        for _ in range(32)
    ]
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    trainer.train(paddle.batch(lambda: iter(samples), 8), num_passes=2)
    w = params.get("___fc_layer_0__.w0").ravel()
    assert np.all(w[~keep] == 0.0) and np.all(w[keep] != 0.0)
    assert not np.allclose(w[keep], w0.ravel()[keep])
    assert params.spec("___fc_layer_0__.w0").sparsity_ratio == 0.5


def test_an_optax_transformation_is_an_update_equation():
    import optax

    _, cost = _linear()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, optax.adam(0.05))
    trainer.train(paddle.batch(_reader, 16), num_passes=60)
    np.testing.assert_allclose(params.get("___fc_layer_0__.w0"), W_TRUE, atol=2e-2)


def test_model_average_is_what_save_writes_while_test_uses_the_current_values():
    # v2's trainer.test ran forward on the current values; only save_parameter_to_tar
    # called the updater's apply() (the average) and restore()
    _, cost = _linear()
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(
        learning_rate=0.01 / 16, model_average=paddle.optimizer.ModelAverage(average_window=0.5)
    )
    trainer = paddle.trainer.SGD(cost, params, opt)
    trainer.train(paddle.batch(_reader, 16), num_passes=3)
    buf = io.BytesIO()
    trainer.save_parameter_to_tar(buf)
    buf.seek(0)
    saved = paddle.parameters.Parameters.from_tar(buf)
    w, b = saved.get("___fc_layer_0__.w0"), saved.get("___fc_layer_0__.wbias")
    assert not np.allclose(w, params.get("___fc_layer_0__.w0"))  # averaged != current
    w_now, b_now = params.get("___fc_layer_0__.w0"), params.get("___fc_layer_0__.wbias")
    want = float(((X.astype(np.float64) @ w_now + b_now - Y) ** 2).sum() / 64)
    averaged = float(((X.astype(np.float64) @ w + b - Y) ** 2).sum() / 64)
    assert want != pytest.approx(averaged, rel=1e-3)  # the two views tell apart
    assert trainer.test(paddle.batch(_reader, 16)).cost == pytest.approx(want, rel=1e-4)
