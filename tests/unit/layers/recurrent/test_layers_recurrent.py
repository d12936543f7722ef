"""Recurrent layers (recurrent, lstmemory, grumemory, simple_lstm) against numpy float64
loops over each sample's unpadded steps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers.recurrent import basic as R
from paddle_lite._src.networks.sequence import simple_lstm
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(11)
LENGTHS = np.array([5, 1, 3], np.int32)
T_PAD = 8


@pytest.fixture(autouse=True)
def _fresh_names():
    with paddle.layer.name_scope():
        yield


# numpy float64 references -------------------------------------------------------------
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


NP_ACTS = {"tanh": np.tanh, "sigmoid": _sigmoid, "relu": lambda z: np.maximum(z, 0.0)}


def _steps(length, reverse):
    return range(length - 1, -1, -1) if reverse else range(length)


def rnn_ref(x, w, b, act, reverse):
    """x [len, H] -> [len, H]: out_t = act(x_t + out_prev W + b)."""
    out, prev = np.zeros_like(x), np.zeros(x.shape[1])
    for t in _steps(len(x), reverse):
        prev = NP_ACTS[act](x[t] + prev @ w + b)
        out[t] = prev
    return out


def lstm_ref(x, w0, bias, reverse, act="tanh", gate="sigmoid", state="tanh"):
    """x [len, 4H]; w0 with dims [H, H, 4] holds a row-major [H, 4H] matrix; bias 7H."""
    h = x.shape[1] // 4
    w = w0.reshape(-1).reshape(h, 4 * h)
    b, ci, cf, co = bias[: 4 * h], bias[4 * h : 5 * h], bias[5 * h : 6 * h], bias[6 * h :]
    out, hp, cp = np.zeros((len(x), h)), np.zeros(h), np.zeros(h)
    for t in _steps(len(x), reverse):
        z = x[t] + b + hp @ w
        a, i, f, o = z[:h], z[h : 2 * h], z[2 * h : 3 * h], z[3 * h :]
        i = NP_ACTS[gate](i + cp * ci)
        f = NP_ACTS[gate](f + cp * cf)
        c = NP_ACTS[act](a) * i + cp * f
        o = NP_ACTS[gate](o + c * co)
        hp, cp = o * NP_ACTS[state](c), c
        out[t] = hp
    return out


def gru_ref(x, w0, bias, reverse, act="tanh", gate="sigmoid"):
    """x [len, 3H] = [update, reset, candidate]; w0 memory = [H, 2H] gates, [H, H] cand."""
    h = x.shape[1] // 3
    flat = w0.reshape(-1)
    wg, wc = flat[: 2 * h * h].reshape(h, 2 * h), flat[2 * h * h :].reshape(h, h)
    out, prev = np.zeros((len(x), h)), np.zeros(h)
    for t in _steps(len(x), reverse):
        g = x[t] + bias
        z = NP_ACTS[gate](g[:h] + prev @ wg[:, :h])
        r = NP_ACTS[gate](g[h : 2 * h] + prev @ wg[:, h:])
        cand = NP_ACTS[act](g[2 * h :] + (r * prev) @ wc)
        prev = (1.0 - z) * prev + z * cand
        out[t] = prev
    return out


# helpers --------------------------------------------------------------------------------
def _seq_data(width, garbage=0.0):
    data = RNG.normal(size=(len(LENGTHS), T_PAD, width))
    for b, n in enumerate(LENGTHS):
        data[b, n:] = garbage
    return Seq(data.astype(np.float32), LENGTHS)


def _params(out, scale=0.5):
    """Random values for every parameter (biases and peepholes non-zero too)."""
    return {
        s.name: (RNG.normal(size=s.shape) * scale).astype(np.float32)
        for s in Topology(out).param_specs()
    }


def _run(out, params, seq):
    (value,), _ = forward([out], params, {"x": seq})
    assert isinstance(value, Seq)
    return np.asarray(value.data)


def _check(got, seq, ref_one):
    """Each sample's valid steps equal the reference; padded steps are 0."""
    for b, n in enumerate(LENGTHS):
        want = ref_one(seq.data[b, :n].astype(np.float64))
        np.testing.assert_allclose(got[b, :n], want, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(got[b, n:], 0.0)


def _x(width):
    return L.data(name="x", type=DT.dense_vector_sequence(width))


# values ---------------------------------------------------------------------------------
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_recurrent_matches_numpy(reverse, act):
    out = R.recurrent(input=_x(4), reverse=reverse, act=A.Relu() if act == "relu" else None)
    params, seq = _params(out), _seq_data(4)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    _check(_run(out, params, seq), seq, lambda x: rnn_ref(x, p["w0"], p["wbias"][0], act, reverse))


@pytest.mark.parametrize("reverse", [False, True])
def test_lstmemory_matches_numpy(reverse):
    out = R.lstmemory(input=_x(12), reverse=reverse)
    params, seq = _params(out), _seq_data(12)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    _check(_run(out, params, seq), seq, lambda x: lstm_ref(x, p["w0"], p["wbias"][0], reverse))


def test_lstmemory_other_activations_and_no_bias():
    out = R.lstmemory(
        input=_x(8), act=A.Relu(), gate_act=A.Tanh(), state_act=A.Sigmoid(), bias_attr=False
    )
    params, seq = _params(out), _seq_data(8)
    assert list(params) == ["___lstmemory_0__.w0"]
    w0 = params["___lstmemory_0__.w0"].astype(np.float64)

    def ref(x):
        return lstm_ref(x, w0, np.zeros(14), False, act="relu", gate="tanh", state="sigmoid")

    _check(_run(out, params, seq), seq, ref)


@pytest.mark.parametrize("reverse", [False, True])
def test_grumemory_matches_numpy(reverse):
    out = R.grumemory(input=_x(9), reverse=reverse)
    params, seq = _params(out), _seq_data(9)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    _check(_run(out, params, seq), seq, lambda x: gru_ref(x, p["w0"], p["wbias"][0], reverse))


def test_grumemory_relu_candidate():
    out = R.grumemory(input=_x(6), act=A.Relu(), gate_act=A.Tanh())
    params, seq = _params(out), _seq_data(6)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}

    def ref(x):
        return gru_ref(x, p["w0"], p["wbias"][0], False, act="relu", gate="tanh")

    _check(_run(out, params, seq), seq, ref)


def test_simple_lstm_is_projection_then_lstmemory():
    out = simple_lstm(input=_x(5), size=3, reverse=True)
    params, seq = _params(out), _seq_data(5)
    assert out.name == "__lstm_0__"
    assert out.inputs[0].name == "lstm_transform___lstm_0__"
    assert sorted(params) == [
        "___lstm_0__.w0",
        "___lstm_0__.wbias",
        "_lstm_transform___lstm_0__.w0",
    ]
    wx = params["_lstm_transform___lstm_0__.w0"].astype(np.float64)
    w0 = params["___lstm_0__.w0"].astype(np.float64)
    bias = params["___lstm_0__.wbias"][0].astype(np.float64)
    _check(_run(out, params, seq), seq, lambda x: lstm_ref(x @ wx, w0, bias, True))


def test_simple_lstm_named():
    out = simple_lstm(input=_x(5), size=2, name="enc")
    assert out.name == "enc" and out.size == 2
    assert out.inputs[0].name == "lstm_transform_enc" and out.inputs[0].size == 8


# padding, gradients, jit ----------------------------------------------------------------
BUILDERS = {
    "recurrent": lambda rev: R.recurrent(input=_x(4), reverse=rev),
    "lstmemory": lambda rev: R.lstmemory(input=_x(8), reverse=rev),
    "grumemory": lambda rev: R.grumemory(input=_x(6), reverse=rev),
}


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_padding_garbage_is_ignored(kind, reverse):
    out = BUILDERS[kind](reverse)
    params = _params(out)
    clean = _seq_data(out.inputs[0].size)
    dirty = clean.data.copy()
    for b, n in enumerate(LENGTHS):
        dirty[b, n:] = np.nan if b % 2 else 1e6
    got_clean = _run(out, params, clean)
    got_dirty = _run(out, params, Seq(dirty, LENGTHS))
    np.testing.assert_array_equal(got_dirty, got_clean)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_empty_sequence_outputs_zeros(kind):
    out = BUILDERS[kind](False)
    seq = _seq_data(out.inputs[0].size)
    got = _run(out, _params(out), Seq(seq.data, np.array([0, 2, 8], np.int32)))
    np.testing.assert_array_equal(got[0], 0.0)
    assert np.all(got[2] != 0.0)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_gradients_are_finite_and_padding_gets_none(kind, reverse):
    out = BUILDERS[kind](reverse)
    params = _params(out)
    seq = _seq_data(out.inputs[0].size, garbage=np.nan)

    def loss(p, data):
        (value,), _ = forward([out], p, {"x": Seq(data, seq.lengths)})
        return jnp.sum(value.data)

    g_params, g_data = jax.grad(loss, argnums=(0, 1))(params, jnp.asarray(seq.data))
    for name, g in g_params.items():
        assert np.all(np.isfinite(g)), name
        assert np.any(g != 0.0), name
    g_data = np.asarray(g_data)
    for b, n in enumerate(LENGTHS):
        assert np.all(np.isfinite(g_data[b, :n])) and np.any(g_data[b, :n] != 0.0)
        np.testing.assert_array_equal(g_data[b, n:], 0.0)


def test_lstm_weight_gradient_matches_finite_differences():
    out = R.lstmemory(input=_x(8))
    params, seq = _params(out), _seq_data(8)
    name = "___lstmemory_0__.w0"

    def loss(w):
        (value,), _ = forward([out], {**params, name: w}, {"x": seq})
        return jnp.sum(value.data**2)

    grad = np.asarray(jax.grad(loss)(jnp.asarray(params[name])))
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    idx, eps = (1, 0, 3), 1e-4

    def ref_loss(w0):
        total = 0.0
        for b, n in enumerate(LENGTHS):
            total += np.sum(lstm_ref(seq.data[b, :n].astype(np.float64), w0, p["wbias"][0], 0) ** 2)
        return total

    plus, minus = p["w0"].copy(), p["w0"].copy()
    plus[idx] += eps
    minus[idx] -= eps
    numeric = (ref_loss(plus) - ref_loss(minus)) / (2 * eps)
    np.testing.assert_allclose(grad[idx], numeric, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_jit_equals_eager(kind):
    out = BUILDERS[kind](True)
    params, seq = _params(out), _seq_data(out.inputs[0].size)
    eager = _run(out, params, seq)
    jitted = jax.jit(lambda p, s: forward([out], p, {"x": s})[0][0].data)(params, seq)
    np.testing.assert_allclose(np.asarray(jitted), eager, rtol=1e-5, atol=1e-6)


# names, shapes, default init ------------------------------------------------------------
def _layout(out):
    return {s.name: (s.shape, s.init.std, s.init.smart) for s in Topology(out).param_specs()}


def test_parameter_names_shapes_and_default_init():
    lstm = R.lstmemory(input=_x(16))
    gru = R.grumemory(input=_x(15))
    rnn = R.recurrent(input=_x(9))
    assert (lstm.name, gru.name, rnn.name) == (
        "__lstmemory_0__",
        "__gru_0__",
        "__recurrent_layer_0__",
    )
    assert (lstm.size, gru.size, rnn.size) == (4, 5, 9)
    assert _layout(lstm) == {
        "___lstmemory_0__.w0": ((4, 4, 4), 0.5, True),
        "___lstmemory_0__.wbias": ((1, 28), 0.0, False),
    }
    assert _layout(gru) == {
        "___gru_0__.w0": ((5, 15), pytest.approx(1 / np.sqrt(5)), True),
        "___gru_0__.wbias": ((1, 15), 0.0, False),
    }
    assert _layout(rnn) == {
        "___recurrent_layer_0__.w0": ((9, 9), pytest.approx(1 / 3), True),
        "___recurrent_layer_0__.wbias": ((1, 9), 0.0, False),
    }
    values = initialize(Topology(lstm).param_specs()[1], 0)
    np.testing.assert_array_equal(values, 0.0)


def test_output_is_sequence_and_reverse_attribute():
    out = R.grumemory(input=_x(6), reverse=True)
    assert out.spec.seq_level == 1 and out.reverse
    assert not R.recurrent(input=_x(6)).reverse


def test_named_parameters_are_shared():
    x = _x(8)
    a = R.lstmemory(input=x, param_attr=paddle.attr.Param(name="shared_w"))
    b = R.lstmemory(input=x, param_attr=paddle.attr.Param(name="shared_w"), reverse=True)
    names = [s.name for s in Topology([a, b]).param_specs()]
    assert names.count("shared_w") == 1 and len(names) == 3


# errors -----------------------------------------------------------------------------------
def test_plain_input_is_a_batch_of_one_step_sequences():
    dense = L.data(name="d", type=DT.dense_vector(8))
    out = R.recurrent(input=dense, act=paddle.activation.Tanh())
    assert out.spec.seq_level == 0 and out.size == 8
    params = {s.name: initialize(s, 0) for s in Topology(out).param_specs()}
    params["___recurrent_layer_0__.wbias"] = np.full((1, 8), 0.5, np.float32)
    x = np.random.default_rng(0).normal(size=(3, 8)).astype(np.float32)
    (got,), _ = forward([out], params, {"d": x})
    np.testing.assert_allclose(got, np.tanh(x + 0.5), rtol=1e-5)  # h_0 = 0: one step
    nested = L.data(name="n", type=DT.dense_vector_sub_sequence(8))
    assert R.lstmemory(input=nested).spec.seq_level == 2  # v2 keeps the input's nesting


def test_integer_input_builds_as_in_v2_but_does_not_run():
    ids = L.data(name="w", type=DT.integer_value(12))  # v2 test_layer.test_recurrent_layer
    layers = [R.recurrent(input=ids), R.lstmemory(input=ids), R.grumemory(input=ids)]
    assert [layer.size for layer in layers] == [12, 3, 4]
    params = {s.name: initialize(s, 0) for s in Topology(layers[1]).param_specs()}
    with pytest.raises(LayerConfigError, match="integer ids"):
        forward([layers[1]], params, {"w": np.array([1, 2], np.int32)})


@pytest.mark.parametrize(("fn", "width", "multiple"), [(R.lstmemory, 10, 4), (R.grumemory, 10, 3)])
def test_size_not_divisible_is_refused(fn, width, multiple):
    with pytest.raises(LayerConfigError, match=f"layer 'bad'.*multiple of {multiple}.*10"):
        fn(input=_x(width), name="bad")


def test_size_must_match_input():
    R.lstmemory(input=_x(12), size=3)
    R.grumemory(input=_x(12), size=4)
    with pytest.raises(LayerConfigError, match="size must equal input.size / 4 = 3; received 5"):
        R.lstmemory(input=_x(12), size=5)
    with pytest.raises(LayerConfigError, match="input.size / 3 = 4; received 3"):
        R.grumemory(input=_x(12), size=3)
    with pytest.raises(LayerTypeError, match="size must be an int"):
        R.grumemory(input=_x(12), size="4")


def test_cell_activation_must_be_hppl():
    with pytest.raises(LayerConfigError, match="gate_act must be Sigmoid, Relu, Tanh or Linear"):
        R.lstmemory(input=_x(8), gate_act=A.Softmax())
    with pytest.raises(LayerTypeError, match="act must be a paddle.activation"):
        R.grumemory(input=_x(6), act="tanh")


def test_bad_arguments_are_typed():
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'sise'.*Valid"):
        R.lstmemory(input=_x(8), sise=2)
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        R.recurrent(input=_x(4), layer_attr=paddle.attr.Extra(drop_rate=0.5))
    with pytest.raises(LayerConfigError, match="does not support error_clipping_threshold"):
        R.lstmemory(input=_x(8), layer_attr=paddle.attr.Extra(error_clipping_threshold=1.0))
    with pytest.raises(LayerTypeError, match="reverse must be a bool or 0/1"):
        R.recurrent(input=_x(4), reverse="yes")
    # v2 stored reverse in a proto bool field: 0/1 and numpy bools are bools
    assert R.recurrent(input=_x(4), reverse=1).attrs["reverse"] is True
    assert R.lstmemory(input=_x(16), reverse=np.bool_(False)).attrs["reverse"] is False
    with pytest.raises(LayerTypeError, match="input must be a layer"):
        R.grumemory(input="x")


# dropout on the output (v2 of 2017: layer_support(DROPOUT) on lstmemory and grumemory) ---
def test_lstmemory_drop_rate_drops_outputs_in_training_and_scales_them_in_test():
    out = R.lstmemory(input=_x(12), layer_attr=paddle.attr.Extra(drop_rate=0.25))
    params, seq = _params(out), _seq_data(12)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    full = lambda x: lstm_ref(x, p["w0"], p["wbias"][0], False)  # noqa: E731
    _check(_run(out, params, seq), seq, lambda x: 0.75 * full(x))
    (value,), _ = forward([out], params, {"x": seq}, key=jax.random.PRNGKey(0), mode="train")
    got = np.asarray(value.data)
    kept = dropped = 0
    for b, n in enumerate(LENGTHS):
        want = full(seq.data[b, :n].astype(np.float64))
        keep = got[b, :n] != 0.0
        np.testing.assert_allclose(got[b, :n][keep], want[keep], rtol=1e-5, atol=1e-6)
        kept, dropped = kept + keep.sum(), dropped + (~keep).sum()
    assert kept > 0 and dropped > 0


def test_grumemory_drop_rate_is_accepted_and_not_applied_as_in_v2():
    with pytest.warns(paddle.errors.LayerConfigWarning, match="never applied it"):
        out = R.grumemory(input=_x(9), layer_attr=paddle.attr.Extra(drop_rate=0.5))
    assert "drop_rate" not in out.attrs
    params, seq = _params(out), _seq_data(9)
    p = {k.split(".")[-1]: v.astype(np.float64) for k, v in params.items()}
    _check(_run(out, params, seq), seq, lambda x: gru_ref(x, p["w0"], p["wbias"][0], False))
