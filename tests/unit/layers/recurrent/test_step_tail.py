"""A recurrent group's tail: step layers no memory needs run once after the scan, with the
same values and gradients as inside the loop (float64 numpy reference too)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers.recurrent import tail as step_tail
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq

L, A = paddle.layer, paddle.activation


def _group(reverse, drop_rate=None):
    """A tanh RNN whose step also emits ``softmax(W h + b)`` and ``h + x``: a memory
    path (``h``) and a tail (the softmax fc, the addto)."""
    x = L.data(name="x", type=paddle.data_type.dense_vector_sequence(3))
    extra = paddle.attr.Extra(drop_rate=drop_rate) if drop_rate else None

    def step(x_t):
        mem = L.memory(name="h", size=3)
        h = L.fc(input=[x_t, mem], size=3, act=A.Tanh(), name="h")
        prob = L.fc(input=h, size=4, act=A.Softmax(), name="prob", layer_attr=extra)
        return prob, L.addto(input=[h, x_t], name="skip")

    prob, skip = L.recurrent_group(name="rnn", step=step, input=x, reverse=reverse)
    return x, prob, skip


def _graph(out):
    (group,) = [n for n in Topology(out).nodes if n.kind == "recurrent_layer_group"]
    return group.attrs["step"]


def test_the_tail_is_what_no_memory_needs_and_runs_per_row():
    _, prob, _ = _group(reverse=False)
    graph = _graph(prob)
    assert step_tail.tail_nodes(graph) == {"prob@rnn", "skip@rnn"}
    assert step_tail.boundary(graph, step_tail.tail_nodes(graph)) == ("h@rnn",)
    paddle.layer.reset_names()
    _, prob, _ = _group(reverse=False, drop_rate=0.5)  # random: stays in the loop
    assert step_tail.tail_nodes(_graph(prob)) == {"skip@rnn"}


def test_a_layer_read_inside_the_loop_stays_there():
    x = L.data(name="x", type=paddle.data_type.dense_vector_sequence(2))

    def step(x_t):
        mem = L.memory(name="h", size=2)
        a = L.fc(input=x_t, size=2, name="a")  # no memory needs it, but ...
        b = L.sum_to_one_norm(input=a, name="b")  # ... a kind that is not per_row reads it
        return L.addto(input=[L.fc(input=[x_t, mem], size=2, name="h"), b], name="out")

    graph = _graph(L.recurrent_group(name="g", step=step, input=x))
    assert step_tail.tail_nodes(graph) == {"out@g"}


def _values(reverse, monkeypatch=None):
    paddle.layer.reset_names()
    _, prob, skip = _group(reverse)
    topo = Topology([prob, skip])
    params = {s.name: initialize(s, 0) for s in topo.param_specs()}
    rng = np.random.default_rng(1)
    lengths = np.array([5, 2, 4], np.int32)
    feeds = {"x": Seq(rng.normal(size=(3, 6, 3)).astype(np.float32), lengths)}

    def loss(p):
        (pr, sk), _ = forward([prob, skip], p, feeds, None, "train")
        weights = jnp.arange(1.0, 5.0)
        return jnp.sum(pr.data * weights) + jnp.sum(sk.data**2), (pr.data, sk.data)

    with jax.default_matmul_precision("highest"):  # a GPU would otherwise use TF32
        (_, outs), grads = jax.value_and_grad(loss, has_aux=True)(params)
    return params, feeds, outs, grads


@pytest.mark.parametrize("reverse", [False, True])
def test_after_the_scan_equals_inside_it_and_numpy(reverse, monkeypatch):
    params, feeds, (prob, skip), grads = _values(reverse)
    monkeypatch.setattr(step_tail, "tail_nodes", lambda graph: frozenset())
    monkeypatch.setattr(
        "paddle_lite._src.layers.recurrent.group.tail_nodes", lambda graph: frozenset()
    )
    _, _, (prob_in, skip_in), grads_in = _values(reverse)
    np.testing.assert_allclose(prob, prob_in, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(skip, skip_in, rtol=1e-6, atol=1e-7)
    for name in grads:
        np.testing.assert_allclose(grads[name], grads_in[name], rtol=1e-5, atol=1e-6)

    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    x, lengths = np.asarray(feeds["x"].data, np.float64), feeds["x"].lengths
    for i, n in enumerate(lengths):
        h = np.zeros(3)
        for t in range(n - 1, -1, -1) if reverse else range(n):
            h = np.tanh(x[i, t] @ p["_h@rnn.w0"] + h @ p["_h@rnn.w1"] + p["_h@rnn.wbias"][0])
            z = h @ p["_prob@rnn.w0"] + p["_prob@rnn.wbias"][0]
            want = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
            np.testing.assert_allclose(prob[i, t], want, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(skip[i, t], h + x[i, t], rtol=1e-5, atol=1e-6)
        assert not np.asarray(prob)[i, n:].any() and not np.asarray(skip)[i, n:].any()
