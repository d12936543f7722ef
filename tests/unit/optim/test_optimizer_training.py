"""A whole ``trainer.train`` against a float64 transcription of v2's updater, step by step.

v2's local training (``SgdThreadUpdater``) per batch: ``startBatch(len(batch))`` adds the
batch's samples to ``numSamplesProcessed`` (short batches count their real samples) and
asks the schedule; each parameter's optimizer is ``sgdOptimizerCreate``:
``AverageOptimizer(OptimizerWithRegularizer(OptimizerWithGradientClipping(rule)))``.
``finishPass`` moves the model-average window limits; ``save_parameter_to_tar`` writes the
average (``apply()``), ``trainer.test`` the current values.
"""

import io

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import OptimizerConfigError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(5)
X = RNG.normal(size=(10, 3))
Y = RNG.normal(size=(10, 1))
BATCH, PASSES = 4, 3  # batches of 4, 4 and 2 samples per pass
LR, DECAY_A, DECAY_B = 0.05, 0.5, 6.0  # discexp: LR * DECAY_A ** floor(n / DECAY_B)
RHO, EPS, L1, L2, CLIP, BIAS_LR = 0.9, 1e-4, 0.02, 0.01, 0.5, 2.0


def _reader():
    yield from ((X[i].astype(np.float32), Y[i].astype(np.float32)) for i in range(len(X)))


def _cost(momentum=None, l1=L1):
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    weight = paddle.attr.Param(l1_rate=l1, gradient_clipping_threshold=CLIP, momentum=momentum)
    out = L.fc(input=x, size=1, act=A.Linear(), name="out", param_attr=weight,
               bias_attr=paddle.attr.Param(learning_rate=BIAS_LR))  # fmt: skip
    return L.square_error_cost(input=out, label=y)


def _rmsprop(**extra):
    return paddle.optimizer.RMSProp(
        learning_rate=LR,
        rho=RHO,
        epsilon=EPS,
        learning_rate_schedule="discexp",
        learning_rate_decay_a=DECAY_A,
        learning_rate_decay_b=DECAY_B,
        regularization=paddle.optimizer.L2Regularization(L2),
        **extra,
    )


def _rms_rate(slots, g, first):
    """``rmspropApply``'s learning-rate vector (``E = g**2`` whole on the first update)."""
    slots["E"] = RHO * slots.get("E", 0.0) + (1.0 if first else 1.0 - RHO) * g * g
    slots["F"] = RHO * slots.get("F", 0.0) + (1.0 - RHO) * g
    return 1.0 / np.sqrt(slots["E"] - slots["F"] ** 2 + EPS)


def _reference(w, b):
    """v2's values after each batch (w, b) and the model average (window 0.6)."""
    slots_w, slots_b, n, history = {}, {}, 0, []
    for _ in range(PASSES):
        for start in range(0, len(X), BATCH):
            xb, yb = X[start : start + BATCH], Y[start : start + BATCH]
            n += len(xb)
            lr = LR * DECAY_A ** np.floor(n / DECAY_B)
            r = xb @ w + b - yb
            gw, gb = np.clip(2.0 * xb.T @ r, -CLIP, CLIP), 2.0 * r.sum(0)
            first = not history
            # weight: L1 set, so no decay inside the rule; L1L2LrRegularizer after it
            rate = _rms_rate(slots_w, gw, first)
            w = w - lr * rate * gw
            eta = lr * rate
            w = np.sign(w) * np.maximum(np.abs(w) - eta * L1, 0.0) / (1.0 + eta * L2)
            # bias: L2 only, inside the rule, at the parameter's own rate
            rate = _rms_rate(slots_b, gb, first)
            b = b - lr * BIAS_LR * rate * (gb + L2 * b)
            history.append((w, b))
    return history


def _average(values, batches_per_pass, max_window, window=0.6):
    """AverageOptimizer: windows of at least min(10000, max_window, updates after the
    first pass) and at most max_window (default: the last pass's batches)."""
    max_w = 2**62 if max_window is None else max_window
    min_w, prev, updates, acc, old = min(10000, max_w), 0, 0, 0, 0
    recent, old_sum = 0.0, 0.0
    for i, value in enumerate(values):
        if i and i % batches_per_pass == 0:  # finishPass of the previous pass
            if max_window is None:
                max_w, prev = updates - prev, updates
            min_w = min(min_w, updates)
        updates, acc, recent = updates + 1, acc + 1, recent + value
        if acc >= min_w and acc >= min(max_w, int(updates * window)):
            old_sum, recent, old, acc = recent, 0.0, acc, 0
    return (recent + old_sum) / (acc + old)


@pytest.mark.parametrize("max_window", [None, 100])
def test_rmsprop_schedule_l1_clip_and_model_average_through_train(max_window):
    cost = _cost()
    params = paddle.parameters.create(cost)
    w0, b0 = params.get("_out.w0").astype(np.float64), params.get("_out.wbias").astype(np.float64)
    average = paddle.optimizer.ModelAverage(average_window=0.6, max_average_window=max_window)
    trainer = paddle.trainer.SGD(cost, params, _rmsprop(model_average=average))
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((params.get("_out.w0").copy(), params.get("_out.wbias").copy()))

    trainer.train(paddle.batch(_reader, BATCH), num_passes=PASSES, event_handler=handler)
    want = _reference(w0, b0.reshape(1))
    assert len(seen) == len(want) == 9
    for step, ((gw, gb), (ww, wb)) in enumerate(zip(seen, want, strict=True)):
        np.testing.assert_allclose(gw, ww, rtol=2e-5, atol=1e-7, err_msg=f"w, batch {step}")
        np.testing.assert_allclose(gb.ravel(), wb, rtol=2e-5, atol=1e-7, err_msg=f"b, {step}")
    buf = io.BytesIO()
    trainer.save_parameter_to_tar(buf)
    buf.seek(0)
    saved = paddle.parameters.Parameters.from_tar(buf)
    for name, k in (("_out.w0", 0), ("_out.wbias", 1)):
        mean = _average([v[k] for v in want], 3, max_window)
        np.testing.assert_allclose(saved.get(name).ravel(), np.ravel(mean), rtol=2e-5, atol=1e-7)
    w, b = want[-1]
    current = float(((X @ w + b - Y) ** 2).sum() / len(X))
    assert trainer.test(paddle.batch(_reader, BATCH)).cost == pytest.approx(current, rel=1e-5)


@pytest.mark.parametrize(
    "optimizer,momentum",
    [
        (lambda: paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01), None),
        (lambda: paddle.optimizer.AdaGrad(learning_rate=0.01), 0.5),
    ],
    ids=["global-momentum", "param-momentum"],
)
def test_l1_decay_with_momentum_is_refused_as_in_v2(optimizer, momentum):
    # OptimizerWithRegularizer::create: CHECK(momentum == 0) "Parameter cannot support
    # momentum if it use L1 decay" (the trainer aborted when it created the updater)
    cost = _cost(momentum=momentum)
    params = paddle.parameters.create(cost)
    with pytest.raises(OptimizerConfigError, match=r"'_out\.w0' has momentum .* and L1 decay"):
        paddle.trainer.SGD(cost, params, optimizer())


def test_l1_decay_without_momentum_trains():
    cost = _cost()
    params = paddle.parameters.create(cost)
    before = params.get("_out.w0").copy()
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    trainer.train(paddle.batch(_reader, BATCH), num_passes=1)
    assert not np.array_equal(params.get("_out.w0"), before)
