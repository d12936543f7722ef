"""Optimizer settings that make no sense (v2 accepted any number): they are kept, with an
``OptimizerWarning`` naming the setting; numpy scalars are numbers, as v2's protobuf
fields took them; what cannot train (NaN) is refused by name.
"""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import NonFiniteError, OptimizerConfigError, OptimizerWarning

RNG = np.random.RandomState(0)
X, Y = RNG.randn(8, 3), RNG.randn(8, 1)


def _train(make_optimizer):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    out = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear(), name="out")
    cost = paddle.layer.square_error_cost(input=out, label=y)
    params = paddle.parameters.create(cost)
    start = {n: params.get(n).astype(np.float64) for n in params.names()}
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=make_optimizer())
    samples = [(X[i].astype("float32"), Y[i].astype("float32")) for i in range(8)]
    error = None
    try:
        trainer.train(paddle.batch(lambda: iter(samples), 4), num_passes=1)
    except NonFiniteError as err:
        error = err
    return start, {n: params.get(n) for n in params.names()}, error


def _momentum_reference(start, momentum, lr):
    """Brute force in float64: v = momentum*v - lr*g; w += v (g: the batch's summed
    gradient of sum((out - y)**2))."""
    w, b = start["_out.w0"], start["_out.wbias"].reshape(1, 1)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for k in range(2):
        xb, yb = X[4 * k : 4 * k + 4], Y[4 * k : 4 * k + 4]
        r = xb @ w + b - yb
        vw, vb = momentum * vw - lr * 2 * xb.T @ r, momentum * vb - lr * 2 * r.sum(0, keepdims=True)
        w, b = w + vw, b + vb
    return w, b


@pytest.mark.parametrize("momentum, lr", [(1.5, 0.1), (-0.5, 0.1), (0.9, -0.05)])
def test_nonsense_momentum_and_rate_train_as_in_v2(fault, momentum, lr):
    fault.case(
        "optimizer settings",
        f"Momentum(momentum={momentum}, learning_rate={lr})",
        "OptimizerWarning naming the setting; trains exactly as v2's rule says",
    )
    with pytest.warns(OptimizerWarning) as rec:
        make = lambda: paddle.optimizer.Momentum(momentum=momentum, learning_rate=lr)  # noqa: E731
        start, got, error = _train(make)
    assert error is None
    w, b = _momentum_reference(start, momentum, lr)
    np.testing.assert_allclose(got["_out.w0"], w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["_out.wbias"].reshape(1, 1), b, rtol=1e-5, atol=1e-6)
    assert rec[0].filename == __file__
    fault.observed(rec[0].message)


def test_numpy_scalars_are_numbers():
    lr, momentum = np.float32(0.1), np.float64(0.5)
    start, got, _ = _train(lambda: paddle.optimizer.Momentum(momentum=momentum, learning_rate=lr))
    w, _ = _momentum_reference(start, 0.5, float(lr))
    np.testing.assert_allclose(got["_out.w0"], w, rtol=1e-5, atol=1e-6)
    assert paddle.optimizer.Adam(beta1=np.float32(0.5)).beta1 == 0.5
    assert paddle.optimizer.L2Regularization(rate=np.int64(0)) is not None


@pytest.mark.parametrize(
    "make, setting",
    [
        (lambda: paddle.optimizer.Adam(beta1=1.0, learning_rate=0.1), "beta1=1.0"),
        (lambda: paddle.optimizer.Adam(beta2=1.5, learning_rate=0.1), "beta2=1.5"),
        (lambda: paddle.optimizer.RMSProp(rho=2.0, learning_rate=0.1), "rho=2.0"),
    ],
    ids=["adam-beta1", "adam-beta2", "rmsprop-rho"],
)
def test_settings_that_overflow(fault, make, setting):
    fault.case(
        "optimizer settings",
        f"{setting} (v2 accepted it)",
        "OptimizerWarning naming it; the first non-finite update raises NonFiniteError "
        "and the parameters keep their last finite values",
    )
    with pytest.warns(OptimizerWarning, match=setting.replace(".", r"\.")) as rec:
        make()
    with pytest.warns(OptimizerWarning):
        start, got, error = _train(make)
    assert isinstance(error, NonFiniteError) and "update is not" in str(error)
    assert all(np.isfinite(v).all() for v in got.values())
    if "batch 0" in str(error):  # nothing was applied
        assert all(np.array_equal(got[n], start[n].astype(np.float32)) for n in got)
    fault.observed(f"{rec[0].message.args[0][:60]}...; then {str(error)[:60]}...")


@pytest.mark.parametrize("field", ["learning_rate", "momentum"])
def test_nan_settings_are_refused(fault, field):
    fault.case(
        "optimizer settings",
        f"Momentum({field}=nan)",
        "OptimizerConfigError naming the setting and the value",
    )
    with pytest.raises(OptimizerConfigError, match=f"{field} must be finite; received nan") as info:
        paddle.optimizer.Momentum(**{field: float("nan")})
    fault.observed(info.value)
