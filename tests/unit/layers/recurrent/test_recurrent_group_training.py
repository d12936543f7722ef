"""Recurrent groups in training: one compiled train step per length bucket over a pass
of lengths 1..500, groups nested in groups, dropout inside a step."""

import jax
import numpy as np
import pytest
from jax._src import dispatch, monitoring

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.feeding.buckets import default_ladder
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from tests.unit._sequence_fixtures import nested_data, nested_value

L, N, A = paddle.layer, paddle.networks, paddle.activation


def _traces(fun_name):
    """A list that grows by one each time jax traces a function called ``fun_name``."""
    found = []

    def listener(event, duration, **kwargs):
        if event == dispatch.JAXPR_TRACE_EVENT and kwargs.get("fun_name") == fun_name:
            found.append(duration)

    return found, listener


@pytest.mark.slow
def test_a_pass_over_lengths_1_to_500_compiles_the_train_step_once_per_bucket():
    x = L.data(name="x", type=paddle.data_type.dense_vector_sequence(2))
    y = L.data(name="y", type=paddle.data_type.dense_vector(1))
    gru = N.simple_gru(input=x, size=2)
    cost = L.square_error_cost(input=L.fc(input=L.last_seq(input=gru), size=1), label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Adam(learning_rate=1e-3))
    rng = np.random.default_rng(0)
    samples = [(rng.normal(size=(n, 2)).astype(np.float32), [0.5]) for n in range(1, 501)]
    reader = paddle.batch(lambda: iter(samples), batch_size=25)
    buckets = {default_ladder(max(len(s[0]) for s in b)) for b in reader()}
    traces, listener = _traces("body")
    monitoring.register_event_duration_secs_listener(listener)
    try:
        trainer.train(reader=reader, num_passes=1)
    finally:
        monitoring.unregister_event_duration_listener(listener)
    assert len(buckets) == 14  # 20 batches: their longest sequences share 14 buckets
    assert len(traces) == len(buckets)  # one program per bucket
    assert np.isfinite(params.get("___simple_gru_0___transform.w0")).all()


def test_groups_nest_inside_group_steps_over_sub_sequences():
    x = nested_data("x", 3)

    def outer(sub):  # a whole sub-sequence
        def inner(word):
            h = L.memory(name="h", size=2)
            return L.fc(input=[word, h], size=2, name="h")

        words = L.recurrent_group(name="inner", step=inner, input=sub)
        total = L.memory(name="acc", size=2)
        return L.addto(input=[L.last_seq(input=words), total], name="acc")

    out = L.recurrent_group(name="outer", step=outer, input=x)
    topo = Topology(out)
    names = [s.name for s in topo.param_specs()]
    assert names == ["_h@inner@outer.w0", "_h@inner@outer.w1", "_h@inner@outer.wbias"]
    params = {s.name: initialize(s, 0) for s in topo.param_specs()}
    feeds = {"x": nested_value()}
    (value,), _ = jax.jit(lambda p, f: forward([out], p, f))(params, feeds)
    w0, w1, b = (np.asarray(params[n], np.float64) for n in names)
    seq, data = feeds["x"], np.asarray(feeds["x"].data, np.float64)
    for i, count in enumerate(seq.lengths):
        total = np.zeros(2)
        for j in range(count):
            h = np.zeros(2)
            for t in range(seq.sub_lengths[i, j]):
                h = np.tanh(data[i, j, t] @ w0 + h @ w1 + b[0])
            total = total + h
            np.testing.assert_allclose(np.asarray(value.data)[i, j], total, rtol=1e-5, atol=1e-6)


def test_dropout_inside_a_step_draws_a_fresh_mask_at_every_step():
    x = L.data(name="x", type=paddle.data_type.dense_vector_sequence(64))

    def step(y):
        return L.mixed(
            input=[L.identity_projection(input=y)], layer_attr=paddle.attr.Extra(drop_rate=0.5)
        )

    out = L.recurrent_group(step=step, input=x)
    ones = np.ones((1, 4, 64), np.float32)
    feeds = {"x": Seq(ones, np.array([4], np.int32))}
    (train,), _ = forward([out], {}, feeds, key=jax.random.PRNGKey(0), mode="train")
    masks = np.asarray(train.data)[0] != 0
    assert 0.3 < masks.mean() < 0.7 and len({m.tobytes() for m in masks}) == 4
    (test,), _ = forward([out], {}, feeds)
    np.testing.assert_allclose(test.data, 0.5 * ones)  # v2: scaled by 1 - rate in test
