"""lstm_step, get_output, gru_step and gru_step_naive: one step against numpy float64,
parameter layouts and argument checks."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite.errors import LayerConfigError
from tests.unit._sequence_fixtures import seq_data, seq_value
from tests.unit.layers.recurrent.test_layers_recurrent import gru_ref

L, A = paddle.layer, paddle.activation
RNG = np.random.default_rng(7)
H = 3


def _params(*outs, seed=0):
    return {s.name: initialize(s, seed) for s in Topology(list(outs)).param_specs()}


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _lstm_group(x):
    """An LSTM written directly with lstm_step and get_output (v2's lstmemory_unit)."""

    def step(y):
        h_mem = L.memory(name="lstm", size=H)
        c_mem = L.memory(name="lstm_c", size=H)
        gates = L.mixed(
            name="gates",
            size=4 * H,
            input=[L.identity_projection(input=y), L.full_matrix_projection(input=h_mem)],
        )
        h = L.lstm_step(name="lstm", input=gates, state=c_mem, act=A.Relu())
        c = L.get_output(name="lstm_c", input=h, arg_name="state")
        return [h, c]

    return L.recurrent_group(name="g", step=step, input=x)


def test_lstm_step_and_its_state_output_match_numpy():
    x = seq_data("x", 4 * H)
    h_out, c_out = _lstm_group(x)
    assert L.get_layer("lstm@g").outputs == ["default", "state"]
    specs = {s.name: s.shape for s in Topology([h_out, c_out]).param_specs()}
    assert specs == {"_gates@g.w1": (H, 4 * H), "_lstm@g.wbias": (1, 3 * H)}
    params = _params(h_out, c_out)
    params["_lstm@g.wbias"] = RNG.normal(size=(1, 3 * H)).astype(np.float32)
    lengths = [3, 1, 0]
    feeds = {"x": seq_value(lengths, t=4, d=4 * H)}
    h_v, c_v = jax.jit(lambda p, f: forward([h_out, c_out], p, f)[0])(params, feeds)
    w = np.asarray(params["_gates@g.w1"], np.float64)
    ci, cf, co = np.split(np.asarray(params["_lstm@g.wbias"][0], np.float64), 3)
    data = np.asarray(feeds["x"].data, np.float64)
    for b, n in enumerate(lengths):
        h, c = np.zeros(H), np.zeros(H)
        for t in range(n):
            a, i, f, o = np.split(data[b, t] + h @ w, 4)
            i, f = _sigmoid(i + c * ci), _sigmoid(f + c * cf)
            c = np.maximum(a, 0) * i + c * f
            h = _sigmoid(o + c * co) * np.tanh(c)
            np.testing.assert_allclose(np.asarray(h_v.data)[b, t], h, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(c_v.data)[b, t], c, rtol=1e-5, atol=1e-6)


def test_gru_step_matches_grumemory_maths_and_naive_gru_step_equals_it():
    x = seq_data("x", 3 * H)

    def step(y):
        mem = L.memory(name="gru", size=H)
        mem2 = L.memory(name="naive", size=H)
        fast = L.gru_step(name="gru", input=y, output_mem=mem)
        slow = L.gru_step_naive(name="naive", input=y, output_mem=mem2)
        return [fast, slow]

    fast, slow = L.recurrent_group(name="g", step=step, input=x)
    params = _params(fast, slow)
    assert params["_gru@g.w0"].shape == (H, 3 * H) and params["_gru@g.wbias"].shape == (1, 3 * H)
    w = np.asarray(params["_gru@g.w0"])
    b = RNG.normal(size=(1, 3 * H)).astype(np.float32)
    params["_gru@g.wbias"] = b
    # the naive step's gates read W_g's columns, its candidate W_c; biases per part
    params["_naive_update@g.w1"] = w.reshape(-1)[: 2 * H * H].reshape(H, 2 * H)[:, :H]
    params["_naive_reset@g.w1"] = w.reshape(-1)[: 2 * H * H].reshape(H, 2 * H)[:, H:]
    params["_naive_output_candidate@g.w1"] = w.reshape(-1)[2 * H * H :].reshape(H, H)
    for part, cols in (("update", slice(0, H)), ("reset", slice(H, 2 * H))):
        params[f"_naive_{part}@g.wbias"] = b[:, cols]
    params["_naive_output_candidate@g.wbias"] = b[:, 2 * H :]
    lengths = [4, 2]
    feeds = {"x": seq_value(lengths, t=4, d=3 * H)}
    fv, sv = jax.jit(lambda p, f: forward([fast, slow], p, f)[0])(params, feeds)
    data = np.asarray(feeds["x"].data, np.float64)
    for i, n in enumerate(lengths):
        want = gru_ref(data[i, :n], w.astype(np.float64), b[0].astype(np.float64), False)
        np.testing.assert_allclose(np.asarray(fv.data)[i, :n], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sv.data, fv.data, rtol=1e-5, atol=1e-6)


def test_step_layer_argument_checks():
    x = seq_data("x", 4 * H)

    def bad_state(y):
        mem = L.memory(name="s", size=H + 1)
        return L.lstm_step(input=y, state=mem, name="s")

    with pytest.raises(LayerConfigError, match="needs a state of size 3"):
        L.recurrent_group(step=bad_state, input=x)

    def bad_output(y):
        mem = L.memory(name="s", size=4)
        out = L.gru_step(input=L.fc(input=y, size=12), output_mem=mem, name="s")
        L.get_output(input=out, arg_name="state")
        return out

    with pytest.raises(LayerConfigError, match="has no output 'state'; its outputs are"):
        L.recurrent_group(step=bad_output, input=x)
    with pytest.raises(LayerConfigError, match="one dense vector per sample"):
        L.gru_step(input=x, output_mem=x)
    v = L.data(name="v", type=paddle.data_type.dense_vector(10))
    with pytest.raises(LayerConfigError, match="multiple of 3"):
        L.gru_step(input=v, output_mem=v)
    with pytest.raises(LayerConfigError, match="Sigmoid, Relu, Tanh or Linear"):
        L.lstm_step(input=x, state=x, gate_act=A.Softmax())
