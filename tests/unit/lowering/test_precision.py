"""paddle.init(precision=...): what the compiled steps compute in, and that it trains."""

import re

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training.chunks import converted, device_batches
from paddle_lite._src.training.steps import OnNan
from paddle_lite.errors import ConfigError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(7)
CENTERS = RNG.normal(size=(4, 20))
LABELS = RNG.integers(0, 4, 512)
X = (CENTERS[LABELS] + 0.5 * RNG.normal(size=(512, 20))).astype(np.float32)
SAMPLES = list(zip(X, LABELS.tolist(), strict=True))


@pytest.fixture(autouse=True)
def _default_settings():
    yield
    paddle.init()


def _net():
    x = L.data(name="x", type=DT.dense_vector(20))
    y = L.data(name="y", type=DT.integer_value(4))
    h = L.fc(input=x, size=32, act=A.Relu())
    p = L.fc(input=h, size=4, act=A.Softmax())
    return p, L.classification_cost(input=p, label=y)


def _train(precision, passes=3):
    paddle.layer.reset_names()
    paddle.init(precision=precision)
    pred, cost = _net()
    params = paddle.parameters.create(cost, seed=3)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(0.9, learning_rate=1e-3))
    reader = paddle.batch(lambda: iter(SAMPLES[:384]), 32)
    trainer.train(reader, num_passes=passes)
    result = trainer.test(paddle.batch(lambda: iter(SAMPLES[384:]), 64))
    return trainer, params, pred, result


def _step_jaxpr(trainer):
    device = trainer._device
    device.start(frozenset(), OnNan.RAISE)
    feeds = next(device_batches(converted([SAMPLES[:8]], trainer_feeder(trainer).convert))).feeds
    device.begin_pass(0, feeds[0])
    held = device.held
    text = str(device.program.run_for(held.packing).trace(held.leaves, feeds).jaxpr)
    device.stop()
    return text


def trainer_feeder(trainer):
    return paddle.data_feeder.DataFeeder(trainer.__topology__.data_type())


def test_the_step_computes_at_the_chosen_precision():
    steps = {p: _step_jaxpr(_train(p, passes=1)[0]) for p in ("float32", "tf32", "bfloat16")}
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in steps["float32"]
    assert "bf16" not in steps["float32"] and "bf16" not in steps["tf32"]
    assert "HIGHEST" not in steps["tf32"]  # XLA's default: TF32 on GPUs that have it
    assert "bf16[8,32]" in steps["bfloat16"] and "f32[20,32]" in steps["bfloat16"]
    # the softmax's probabilities are float32 even when its input is bfloat16
    assert re.search(r"f32\[8,4\] = exp", steps["bfloat16"])
    assert not re.search(r"bf16\[8,4\] = exp", steps["bfloat16"])


def test_bfloat16_keeps_float32_parameters_and_trains_like_float32():
    _, want, _, want_result = _train("float32")
    _, got, pred, got_result = _train("bfloat16")
    for name in want.keys():
        assert got.get(name).dtype == np.float32
        np.testing.assert_allclose(got.get(name), want.get(name), rtol=0.05, atol=0.02)
    error = got_result.metrics["classification_error_evaluator"]
    assert abs(error - want_result.metrics["classification_error_evaluator"]) <= 0.03
    assert error < 0.2 and abs(got_result.cost - want_result.cost) < 0.05
    out = paddle.infer(output_layer=pred, parameters=got, input=[(x,) for x in X[:3]])
    assert out.dtype == np.float32 and np.allclose(out.sum(axis=1), 1, atol=1e-2)


def test_unknown_precision_is_a_config_error():
    with pytest.raises(ConfigError, match=r"precision must be one of \['float32', 'tf32'"):
        paddle.init(precision="fp16")


def test_settings_come_from_the_environment_too(monkeypatch):
    monkeypatch.setenv("PADDLE_INIT_PRECISION", "bfloat16")
    monkeypatch.setenv("PADDLE_INIT_SEQ_BUCKETS", "32,64")
    settings = paddle.init()
    assert settings["precision"] == "bfloat16" and settings["seq_buckets"] == [32, 64]
    monkeypatch.setenv("PADDLE_INIT_SEQ_BUCKETS", "tight")
    with pytest.raises(ConfigError, match="seq_buckets 'tight' is not"):
        paddle.init()


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_event_gm_computes_layer_outputs_at_the_steps_precision(precision):
    """``event.gm.getLayerOutputs`` runs the layers as the step did: full float32 products
    under "float32" (a GPU would otherwise use TF32), bfloat16 layers under "bfloat16"."""
    paddle.layer.reset_names()
    paddle.init(precision=precision)
    pred, cost = _net()
    params = paddle.parameters.create(cost, seed=3)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(0.9, learning_rate=1e-3))
    seen = {}

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 0:
            seen["gm"] = event.gm.getLayerOutputs(pred.name)[pred.name]["value"]
            seen["params"] = {n: params.get(n).astype(np.float64) for n in params.names()}

    trainer.train(paddle.batch(lambda: iter(SAMPLES[:32]), 32), num_passes=1, event_handler=handler)
    (w1, b1), (w2, b2) = [[seen["params"][n] for n in names] for names in _fc_params(params)]
    h = np.maximum(X[:32].astype(np.float64) @ w1 + b1, 0)
    logits = h @ w2 + b2
    want = np.exp(logits - logits.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    error = np.abs(seen["gm"] - want).max()
    assert seen["gm"].dtype == np.float32
    if precision == "float32":
        assert error < 1e-6
    else:  # bfloat16 keeps about 3 significant digits
        assert 1e-4 < error < 2e-2


def _fc_params(params):
    """The (weight, bias) names of the two fc layers, in the order they were created."""
    names = sorted(params.names())
    weights = [n for n in names if n.endswith(".w0")]
    return [(w, w.replace(".w0", ".wbias")) for w in weights]
