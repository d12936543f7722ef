"""recurrent_group, memory and StaticInput: against numpy float64 loops over each
sample's own steps, and the group LSTM / GRU against lstmemory / grumemory (values and
gradients, ragged batches with junk padding, both directions)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError
from tests.unit._sequence_fixtures import nested_data, nested_value, seq_data, seq_value
from tests.unit.layers.recurrent.test_layers_recurrent import gru_ref, lstm_ref

L, N, A = paddle.layer, paddle.networks, paddle.activation
RNG = np.random.default_rng(5)
LENGTHS = [4, 1, 0, 6]


def _params(*outs, seed=0):
    return {s.name: initialize(s, seed) for s in Topology(list(outs)).param_specs()}


def _np(params):
    return {k: np.asarray(v, np.float64) for k, v in params.items()}


def _run(outs, params, feeds):
    values, _ = jax.jit(lambda p, f: forward(outs, p, f))(params, feeds)
    return values


def _rnn_step(y):
    mem = L.memory(name="rnn_state", size=4)
    return L.fc(input=[y, mem], size=4, name="rnn_state", bias_attr=True)


@pytest.mark.parametrize("reverse", [False, True])
def test_simple_rnn_group_matches_a_numpy_loop(reverse):
    x = seq_data("x", 3)
    out = L.recurrent_group(name="rnn", step=_rnn_step, input=x, reverse=reverse)
    params = _params(out)
    feeds = {"x": seq_value(LENGTHS, t=8, d=3)}
    (value,) = _run([out], params, feeds)
    p = _np(params)
    w0, w1, b = p["_rnn_state@rnn.w0"], p["_rnn_state@rnn.w1"], p["_rnn_state@rnn.wbias"][0]
    data = np.asarray(feeds["x"].data, np.float64)
    for i, n in enumerate(LENGTHS):
        h, want = np.zeros(4), np.zeros((n, 4))
        for t in range(n - 1, -1, -1) if reverse else range(n):
            h = np.tanh(data[i, t] @ w0 + h @ w1 + b)
            want[t] = h
        np.testing.assert_allclose(np.asarray(value.data)[i, :n], want, rtol=2e-5, atol=1e-6)
        assert not np.asarray(value.data)[i, n:].any()  # padded steps output 0
    np.testing.assert_array_equal(value.lengths, LENGTHS)


def test_group_layers_take_v2_full_names_and_parameter_names():
    x = seq_data("seq_input", 3)
    out = L.recurrent_group(step=_rnn_step, input=x)
    assert out.name == "rnn_state" and out.kind == "gather_agent"
    group = out.inputs[0]
    assert group.name == "__recurrent_group_0__" and group.kind == "recurrent_layer_group"
    inner = {n.name for n in group.attrs["step"].nodes}
    assert {"seq_input@__recurrent_group_0__", "rnn_state@__recurrent_group_0__"} <= inner
    assert "rnn_state+delay1@__recurrent_group_0__" in inner
    assert [(s.name, s.shape) for s in Topology(out).param_specs()] == [
        ("_rnn_state@__recurrent_group_0__.w0", (3, 4)),
        ("_rnn_state@__recurrent_group_0__.w1", (4, 4)),
        ("_rnn_state@__recurrent_group_0__.wbias", (1, 4)),
    ]


def test_memories_and_static_inputs_draw_v2_memory_names():
    x = seq_data("x", 3)
    ctx = L.data(name="ctx", type=paddle.data_type.dense_vector(4))

    def step(y, c):  # the StaticInput drew __memory_0__
        named = L.memory(name="h", size=4)  # draws __memory_1__, named h+delay1
        free = L.memory(name=None, size=4)  # __memory_2__, linked by set_input
        h = L.fc(input=[y, named, c], size=4, name="h")
        free.set_input(h)
        return L.addto(input=[h, free])

    out = L.recurrent_group(name="g", step=step, input=[x, L.StaticInput(input=ctx)])
    graph = out.inputs[0].attrs["step"]
    assert graph.statics == ("__memory_0__@g",)
    assert [(m.name, m.target) for m in graph.memories] == [
        ("h+delay1@g", "h@g"),
        ("__memory_2__@g", "h@g"),
    ]
    assert out.name == "__addto_0__" and out.inputs[0].inputs == (x, ctx)


def test_memory_naming_no_step_layer_lists_the_step_layers():
    x = seq_data("x", 3)

    def step(y):
        mem = L.memory(name="state", size=4)
        return L.fc(input=[y, mem], size=4, name="stat")

    with pytest.raises(LayerConfigError, match=r"remembers 'state'.*\['stat', 'x'\].*'stat'"):
        L.recurrent_group(step=step, input=x)


def test_memory_checks():
    with pytest.raises(LayerConfigError, match="outside a recurrent group"):
        L.memory(name="h", size=4)
    x = seq_data("x", 3)

    def wrong_size(y):
        mem = L.memory(name="h", size=5)
        return L.fc(input=[y, mem], size=4, name="h")

    with pytest.raises(LayerConfigError, match="size 5 but layer 'h@g'"):
        L.recurrent_group(name="g", step=wrong_size, input=x)

    def two_boots(y):
        return L.memory(name="h", size=3, boot_bias=True, boot_with_const_id=1)

    def inner_boot(y):
        return L.memory(name="h", size=3, boot_layer=L.fc(input=y, size=3, name="h"))

    with pytest.raises(LayerConfigError, match="boot_layer 'h@g2' is built inside the step"):
        L.recurrent_group(name="g2", step=inner_boot, input=x)
    boot = L.data(name="boot", type=paddle.data_type.dense_vector(2))

    def boot_size(y):
        mem = L.memory(name="h3", size=3, boot_layer=boot)
        return L.fc(input=[y, mem], size=3, name="h3")

    out = L.recurrent_group(step=boot_size, input=x)  # v2 parses this; it fails when run
    feeds = {"x": seq_value([2], t=2, d=3), "boot": np.zeros((1, 2), np.float32)}
    with pytest.raises(LayerConfigError, match=r"shape \(2,\) per sample but remembers"):
        forward([out], _params(out), feeds)
    with pytest.raises(LayerConfigError, match="one option at most"):
        L.recurrent_group(step=two_boots, input=x)
    with pytest.raises(LayerTypeError, match="must return a layer"):
        L.recurrent_group(step=lambda y: 3, input=x)
    with pytest.raises(LayerConfigError, match="at least one input split into steps"):
        L.recurrent_group(step=lambda y: y, input=L.StaticInput(input=x))


def test_memory_boot_options_give_the_first_step():
    x = seq_data("x", 2)
    boot = L.data(name="boot", type=paddle.data_type.dense_vector(3))

    def step(y):
        a = L.memory(name="a", size=3, boot_layer=boot)
        b = L.memory(
            name="b",
            size=3,
            boot_bias=paddle.attr.Param(initial_std=1.0),
            boot_bias_active_type=A.Tanh(),
        )
        c = L.memory(name="c", size=3)
        i = L.memory(name="i", size=7, boot_with_const_id=5)
        emb = L.embedding(input=i, size=3, name="e")
        a_out = L.mixed(name="a", input=[L.full_matrix_projection(input=y, size=3)])
        L.addto(name="b", input=[b, a_out])
        L.addto(name="c", input=[c, a_out])
        L.max_id(input=L.fc(input=y, size=7, name="logits"), name="i")
        return [L.addto(input=[a, b, c, emb], name="sum"), L.addto(input=[a], name="first_a")]

    total, first_a = L.recurrent_group(name="g", step=step, input=x)
    params = _params(total, first_a)
    feeds = {"x": seq_value([3, 2], t=4, d=2), "boot": RNG.normal(size=(2, 3)).astype(np.float32)}
    total_v, a_v = _run([total, first_a], params, feeds)
    p = _np(params)
    bias = np.tanh(p["_b+delay1@g.wbias"][0])
    emb5 = p["_e@g.w0"][5]
    want0 = feeds["boot"] + bias + 0.0 + emb5
    np.testing.assert_allclose(np.asarray(total_v.data)[:, 0], want0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(a_v.data)[:, 0], feeds["boot"], rtol=1e-6)


def test_static_inputs_are_whole_values_at_every_step():
    x = seq_data("x", 2)
    ctx = L.data(name="ctx", type=paddle.data_type.dense_vector(3))
    enc = seq_data("enc", 3)

    def step(y, c, e):
        pooled = L.pooling(input=e, pooling_type=paddle.pooling.Sum())
        return L.addto(input=[L.fc(input=y, size=3, bias_attr=False, act=A.Linear()), c, pooled])

    out = L.recurrent_group(
        step=step, input=[x, L.StaticInput(input=ctx), L.StaticInput(input=enc, is_seq=True)]
    )
    params = _params(out)
    feeds = {
        "x": seq_value([2, 3, 1], t=4, d=2),
        "ctx": RNG.normal(size=(3, 3)).astype(np.float32),
        "enc": seq_value([5, 2, 1], t=8, d=3),
    }
    (value,) = _run([out], params, feeds)
    w = _np(params)[next(iter(params))]
    xd, ed = np.asarray(feeds["x"].data, np.float64), np.asarray(feeds["enc"].data, np.float64)
    for i, (n, m) in enumerate(zip([2, 3, 1], [5, 2, 1], strict=True)):
        want = xd[i, :n] @ w + feeds["ctx"][i] + ed[i, :m].sum(0)
        np.testing.assert_allclose(np.asarray(value.data)[i, :n], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reverse", [False, True])
def test_nested_sequences_run_the_group_over_sub_sequences(reverse):
    """Each step sees a whole sub-sequence; a memory sums their pooled values."""
    x = nested_data("x", 3)

    def step(sub):
        mem = L.memory(name="acc", size=3)
        pooled = L.pooling(input=sub, pooling_type=paddle.pooling.Sum())
        acc = L.addto(input=[pooled, mem], name="acc")
        return [acc, L.mixed(input=[L.identity_projection(input=sub)], name="copy")]

    acc, copy = L.recurrent_group(step=step, input=x, reverse=reverse)
    assert acc.spec.seq_level == 1 and copy.spec.seq_level == 2
    feeds = {"x": nested_value()}
    acc_v, copy_v = _run([acc, copy], {}, feeds)
    seq = feeds["x"]
    data = np.asarray(seq.data, np.float64)
    for b, count in enumerate(seq.lengths):
        sums = [data[b, j, : seq.sub_lengths[b, j]].sum(0) for j in range(count)]
        order = range(count - 1, -1, -1) if reverse else range(count)
        total, want = np.zeros(3), np.zeros((count, 3))
        for j in order:
            total = total + sums[j]
            want[j] = total
        np.testing.assert_allclose(np.asarray(acc_v.data)[b, :count], want, rtol=1e-5)
        for j in range(count):
            n = seq.sub_lengths[b, j]
            assert copy_v.sub_lengths[b, j] == n
            np.testing.assert_allclose(np.asarray(copy_v.data)[b, j, :n], data[b, j, :n], 1e-6)
    np.testing.assert_array_equal(acc_v.lengths, seq.lengths)


def _lstm_pair(reverse, hidden=3):
    x = seq_data("x", 4 * hidden)
    group = N.lstmemory_group(input=x, size=hidden, reverse=reverse)
    fused = L.lstmemory(input=x, reverse=reverse)
    params = _params(group, fused, seed=3)
    g = "___lstm_group_0___input_recurrent@__lstm_group_0___recurrent_group.w1"
    peep = "___lstm_group_0__@__lstm_group_0___recurrent_group.wbias"
    params["___lstmemory_0__.w0"] = params[g].reshape(hidden, hidden, 4)
    bias = np.zeros((1, 7 * hidden), np.float32)  # the group has no gate bias by default
    bias[0, 4 * hidden :] = RNG.normal(size=3 * hidden)
    params["___lstmemory_0__.wbias"] = jnp.asarray(bias)
    params[peep] = jnp.asarray(bias[:, 4 * hidden :])
    return group, fused, params


def _grad_check(group, fused, params, feeds, pairs):
    """Gradients of a weighted sum of each output: inputs, and parameter pairs
    ``(group name, fused name, fused gradient -> group layout)``."""
    weights = RNG.normal(size=np.asarray(feeds["x"].data).shape[:2] + (group.size,))

    def grads(out):
        def f(p, x):
            (v,), _ = forward([out], p, {"x": Seq(x, feeds["x"].lengths)})
            return jnp.sum(v.data * weights)

        return jax.grad(f, argnums=(0, 1))(params, feeds["x"].data)

    (gp, gx), (fp, fx) = grads(group), grads(fused)
    assert np.isfinite(gx).all()
    np.testing.assert_allclose(gx, fx, rtol=1e-4, atol=1e-6)
    for g_name, f_name, convert in pairs:
        want = convert(np.asarray(fp[f_name]))
        np.testing.assert_allclose(np.asarray(gp[g_name]), want, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_lstmemory_group_equals_lstmemory_and_a_numpy_loop(reverse):
    group, fused, params = _lstm_pair(reverse)
    feeds = {"x": seq_value(LENGTHS, t=8, d=12)}
    gv, fv = _run([group, fused], params, feeds)
    p = _np(params)
    data = np.asarray(feeds["x"].data, np.float64)
    for i, n in enumerate(LENGTHS):
        want = lstm_ref(
            data[i, :n], p["___lstmemory_0__.w0"], p["___lstmemory_0__.wbias"][0], reverse
        )
        np.testing.assert_allclose(np.asarray(gv.data)[i, :n], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gv.data, fv.data, rtol=1e-5, atol=1e-6)
    w1 = "___lstm_group_0___input_recurrent@__lstm_group_0___recurrent_group.w1"
    peep = "___lstm_group_0__@__lstm_group_0___recurrent_group.wbias"
    pairs = [
        (w1, "___lstmemory_0__.w0", lambda g: g.reshape(3, 12)),
        (peep, "___lstmemory_0__.wbias", lambda g: g[:, 12:]),  # the last 3H are peepholes
    ]
    _grad_check(group, fused, params, feeds, pairs)


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_group_equals_grumemory_and_a_numpy_loop(reverse):
    x = seq_data("x", 9)
    group = N.gru_group(input=x, size=3, reverse=reverse)
    fused = L.grumemory(input=x, reverse=reverse)
    params = _params(group, fused, seed=4)
    name = "___gru_group_0__@__gru_group_0___recurrent_group"
    params["___gru_0__.w0"] = params[f"{name}.w0"]
    params[f"{name}.wbias"] = params["___gru_0__.wbias"] = jnp.asarray(RNG.normal(size=(1, 9)))
    feeds = {"x": seq_value(LENGTHS, t=8, d=9)}
    gv, fv = _run([group, fused], params, feeds)
    p = _np(params)
    data = np.asarray(feeds["x"].data, np.float64)
    for i, n in enumerate(LENGTHS):
        want = gru_ref(data[i, :n], p["___gru_0__.w0"], p["___gru_0__.wbias"][0], reverse)
        np.testing.assert_allclose(np.asarray(gv.data)[i, :n], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gv.data, fv.data, rtol=1e-5, atol=1e-6)
    pairs = [(f"{name}.{r}", f"___gru_0__.{r}", lambda g: g) for r in ("w0", "wbias")]
    _grad_check(group, fused, params, feeds, pairs)


def test_parameters_are_shared_by_name_across_the_group_boundary():
    x = seq_data("x", 3)
    shared = paddle.attr.Param(name="shared_w")
    outside = L.fc(input=x, size=3, param_attr=shared, bias_attr=False, act=A.Linear())

    def step(y):
        return L.fc(input=y, size=3, param_attr=paddle.attr.Param(name="shared_w"), bias_attr=False)

    inside = L.recurrent_group(step=step, input=x)
    topo = Topology([outside, inside])
    assert [s.name for s in topo.param_specs()] == ["shared_w"]
    params = _params(outside, inside)
    feeds = {"x": seq_value([3, 2], t=4, d=3)}
    out_v, in_v = _run([outside, inside], params, feeds)
    mask = np.arange(4)[None, :, None] < np.array([3, 2])[:, None, None]
    np.testing.assert_allclose(
        np.where(mask, np.tanh(out_v.data), 0), np.where(mask, in_v.data, 0), rtol=1e-5
    )


def test_group_output_keeps_the_step_layer_activation_for_costs():
    x = seq_data("x", 3)
    probs = L.recurrent_group(step=lambda y: L.fc(input=y, size=4, act=A.Softmax()), input=x)
    label = L.data(name="y", type=paddle.data_type.integer_value_sequence(4))
    cost = L.classification_cost(input=probs, label=label)
    assert isinstance(probs.activation, A.Softmax) and cost.size == 1


def test_group_topology_json_round_trip_computes_the_same():
    x = seq_data("x", 3)
    out = L.recurrent_group(name="rnn", step=_rnn_step, input=x, reverse=True)
    topo = Topology(out)
    again = Topology.deserialize(topo.serialize())
    assert again.serialize() == topo.serialize()
    params = _params(out)
    feeds = {"x": seq_value(LENGTHS, t=8, d=3)}
    (before,), _ = forward([out], params, feeds)
    (after,), _ = forward([again.get_layer("rnn_state")], params, feeds)
    np.testing.assert_array_equal(after.data, before.data)
