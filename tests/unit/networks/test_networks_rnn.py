"""The recurrent networks: simple_gru (a group) equals simple_gru2 (grumemory),
bidirectional networks join the right steps, simple_attention against numpy, v2 names."""

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from tests.unit._sequence_fixtures import seq_data, seq_value

L, N, A = paddle.layer, paddle.networks, paddle.activation
RNG = np.random.default_rng(3)
LENGTHS = [5, 1, 3]


def _params(*outs, seed=0):
    return {s.name: initialize(s, seed) for s in Topology(list(outs)).param_specs()}


def _run(outs, params, feeds):
    return jax.jit(lambda p, f: forward(outs, p, f)[0])(params, feeds)


def test_simple_gru_group_equals_simple_gru2():
    x = seq_data("x", 4)
    group = N.simple_gru(input=x, size=3, reverse=True)
    fused = N.simple_gru2(input=x, size=3, reverse=True)
    params = _params(group, fused)
    assert list(params) == [
        "___simple_gru_0___transform.w0",
        "___simple_gru_0__@__simple_gru_0___recurrent_group.w0",
        "___simple_gru_0__@__simple_gru_0___recurrent_group.wbias",
        "___simple_gru2_0___transform.w0",
        "___simple_gru2_0__.w0",
        "___simple_gru2_0__.wbias",
    ]
    params["___simple_gru2_0___transform.w0"] = params["___simple_gru_0___transform.w0"]
    params["___simple_gru2_0__.w0"] = params[
        "___simple_gru_0__@__simple_gru_0___recurrent_group.w0"
    ]
    gv, fv = _run([group, fused], params, {"x": seq_value(LENGTHS, t=8, d=4)})
    np.testing.assert_allclose(gv.data, fv.data, rtol=1e-5, atol=1e-6)
    assert group.reverse and group.name == "__simple_gru_0__"


def test_gru_unit_boots_its_memory():
    x = seq_data("x", 6)
    boot = L.data(name="boot", type=paddle.data_type.dense_vector(2))
    out = N.gru_group(input=x, size=2, memory_boot=boot, name="g")
    params = _params(out)
    feeds = {"x": seq_value([1, 1], t=1, d=6), "boot": RNG.normal(size=(2, 2)).astype(np.float32)}
    (value,) = _run([out], params, feeds)
    h0 = feeds["boot"].astype(np.float64)
    w = np.asarray(params["_g@g_recurrent_group.w0"], np.float64).reshape(-1)
    wg, wc = w[:8].reshape(2, 4), w[8:].reshape(2, 2)
    xg = np.asarray(feeds["x"].data, np.float64)[:, 0]
    z = 1 / (1 + np.exp(-(xg[:, :2] + h0 @ wg[:, :2])))
    r = 1 / (1 + np.exp(-(xg[:, 2:4] + h0 @ wg[:, 2:])))
    want = h0 - z * h0 + z * np.tanh(xg[:, 4:] + (r * h0) @ wc)
    np.testing.assert_allclose(np.asarray(value.data)[:, 0], want, rtol=1e-5, atol=1e-6)


def test_bidirectional_networks_join_last_forward_and_first_backward_steps():
    x = seq_data("x", 4)
    lstm = N.bidirectional_lstm(input=x, size=3, name="bl")
    gru_seq = N.bidirectional_gru(input=x, size=2, name="bg", return_seq=True)
    fw, bw = L.get_layer("bl_fw"), L.get_layer("bl_bw")
    assert lstm.size == 6 and lstm.spec.seq_level == 0 and bw.reverse and not fw.reverse
    assert gru_seq.size == 4 and gru_seq.spec.seq_level == 1
    params = _params(lstm, gru_seq, fw, bw)
    feeds = {"x": seq_value(LENGTHS, t=8, d=4)}
    lv, fv, bv = _run([lstm, fw, bw], params, feeds)
    for i, n in enumerate(LENGTHS):
        want = np.concatenate([np.asarray(fv.data)[i, n - 1], np.asarray(bv.data)[i, 0]])
        np.testing.assert_allclose(np.asarray(lv)[i], want, rtol=1e-6)


def test_simple_attention_matches_numpy():
    enc = seq_data("enc", 4)
    proj = seq_data("proj", 3)
    state = L.data(name="state", type=paddle.data_type.dense_vector(3))
    context = N.simple_attention(encoded_sequence=enc, encoded_proj=proj, decoder_state=state)
    assert context.name == "__simple_attention_0___pooling" and context.size == 4
    params = _params(context)
    assert {k: v.shape for k, v in params.items()} == {
        "___simple_attention_0___transform.w0": (3, 3),
        "___simple_attention_0___softmax.w0": (3, 1),
    }
    lengths = [4, 1, 2]
    feeds = {
        "enc": seq_value(lengths, t=4, d=4),
        "proj": seq_value(lengths, t=4, d=3),
        "state": RNG.normal(size=(3, 3)).astype(np.float32),
    }
    (value,) = _run([context], params, feeds)
    w = np.asarray(params["___simple_attention_0___transform.w0"], np.float64)
    v = np.asarray(params["___simple_attention_0___softmax.w0"], np.float64)[:, 0]
    for i, n in enumerate(lengths):
        h = np.asarray(feeds["enc"].data, np.float64)[i, :n]
        u = np.asarray(feeds["proj"].data, np.float64)[i, :n]
        e = np.tanh(feeds["state"][i] @ w + u) @ v
        a = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
        np.testing.assert_allclose(np.asarray(value)[i], a @ h, rtol=1e-5, atol=1e-6)
