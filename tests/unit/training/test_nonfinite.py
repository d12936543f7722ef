"""Non-finite steps: named and diagnosed (raise), or dropped and reported (skip)."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import ConfigError, NonFiniteError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(5)
X = RNG.normal(size=(40, 4)).astype(np.float32)
Y = RNG.normal(size=(40, 1)).astype(np.float32)


def _samples(bad_row=None, value=np.nan):
    x = X.copy()
    if bad_row is not None:
        x[bad_row, 2] = value
    return list(zip(x, Y, strict=True))


def _net(sqrt=False):
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.dense_vector(1))
    h = L.fc(input=x, size=3, act=A.Tanh(), name="hidden")
    if sqrt:
        h = paddle.op.sqrt(L.fc(input=h, size=3, act=A.Relu(), name="relu"))
    p = L.fc(input=h, size=1, act=A.Linear(), name="out")
    return L.square_error_cost(input=p, label=y)


def _trainer(cost):
    params = paddle.parameters.create(cost, seed=2)
    return params, paddle.trainer.SGD(
        cost, params, paddle.optimizer.Momentum(0.9, learning_rate=0.01)
    )


def _values(params):
    return {n: params.get(n).copy() for n in params.keys()}


def test_a_nan_input_names_the_batch_and_the_first_layer_and_keeps_the_last_good_values(fault):
    samples = _samples(bad_row=17)  # batch 3 of batches of 5
    params, trainer = _trainer(_net())
    fault.case(
        "non-finite values",
        "a NaN in a sample of pass 0, batch 3",
        "NonFiniteError naming the batch and the first non-finite layer; last good values kept",
    )
    with pytest.raises(NonFiniteError) as err:
        trainer.train(paddle.batch(lambda: iter(samples), 5), num_passes=2)
    fault.observed(err.value)
    text = str(err.value)
    assert "pass 0, batch 3" in text
    assert "first layer whose output is not finite is 'hidden' (fc)" in text
    assert "inputs: 'x' (not finite)" in text and "on_nan='skip'" in text
    paddle.layer.reset_names()
    want_params, good = _trainer(_net())
    good.train(paddle.batch(lambda: iter(samples[:15]), 5), num_passes=1)
    for name, value in _values(want_params).items():
        np.testing.assert_array_equal(params.get(name), value)


def test_a_gradient_that_overflows_names_the_parameters(fault):
    _, trainer = _trainer(_net(sqrt=True))
    fault.case("non-finite values", "sqrt of exact zeros: an infinite gradient", "NonFiniteError")
    # relu outputs exact zeros for some samples: sqrt's derivative there is infinite
    with pytest.raises(
        NonFiniteError, match="every layer's output is finite but the gradients"
    ) as e:
        trainer.train(paddle.batch(lambda: iter(_samples()), 5), num_passes=1)
    fault.observed(e.value)


def test_skip_drops_the_batch_and_reports_it(fault):
    fault.case(
        "non-finite values",
        "a NaN in a sample of batch 3, training with on_nan='skip'",
        "the batch's update is dropped and its EndIteration says skipped",
    )
    samples = _samples(bad_row=17)
    params, trainer = _trainer(_net())
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((event.batch_id, event.skipped, np.isfinite(event.cost)))

    trainer.train(paddle.batch(lambda: iter(samples), 5), event_handler=handler, on_nan="skip")
    assert [s for s in seen if s[1]] == [(3, True, False)]
    assert all(finite for _, skipped, finite in seen if not skipped)
    paddle.layer.reset_names()
    want_params, good = _trainer(_net())
    without = samples[:15] + samples[20:]
    good.train(paddle.batch(lambda: iter(without), 5))
    for name, value in _values(want_params).items():
        np.testing.assert_array_equal(params.get(name), value)
    fault.observed("batch 3 skipped; parameters equal a run without batch 3")


def test_the_flag_is_read_even_when_no_handler_reads_anything():
    samples = _samples(bad_row=38, value=np.inf)  # the last batch of the pass
    _, trainer = _trainer(_net())
    with pytest.raises(NonFiniteError, match="pass 0, batch 7"):
        trainer.train(paddle.batch(lambda: iter(samples), 5), steps_per_dispatch=4)


@pytest.mark.parametrize("bad_batch", [3, 16, 17, 40, 63])
def test_a_bad_step_deep_in_a_long_pass_is_named_and_nothing_after_it_is_kept(bad_batch):
    """The flag is read every CHECK_EVERY dispatches: a bad batch before, at and after
    a read is named exactly, and the steps run between it and the read that finds it
    change nothing."""
    rng = np.random.default_rng(9)
    x = rng.normal(size=(80, 4)).astype(np.float32)
    x[bad_batch, 1] = np.nan
    samples = list(zip(x, rng.normal(size=(80, 1)).astype(np.float32), strict=True))
    params, trainer = _trainer(_net())
    with pytest.raises(NonFiniteError, match=f"pass 0, batch {bad_batch}:"):
        trainer.train(paddle.batch(lambda: iter(samples), 1), num_passes=1)
    paddle.layer.reset_names()
    want_params, good = _trainer(_net())
    good.train(paddle.batch(lambda: iter(samples[:bad_batch]), 1), num_passes=1)
    for name, value in _values(want_params).items():
        np.testing.assert_array_equal(params.get(name), value)


def test_on_nan_must_be_known():
    _, trainer = _trainer(_net())
    with pytest.raises(ConfigError, match=r"on_nan must be one of \['raise', 'skip'\]"):
        trainer.train(paddle.batch(lambda: iter(_samples()), 5), on_nan="ignore")


def test_huge_but_finite_gradients_are_not_taken_for_overflow():
    """Gradients whose sum would overflow float32 are finite: the step applies."""
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.dense_vector(1))
    p = L.fc(input=x, size=1, act=A.Linear(), bias_attr=False, name="out")
    cost = L.sum_cost(input=L.scaling(input=y, weight=p))
    params = paddle.parameters.create(cost, seed=2)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=1e-30))
    big = np.full(4, 3e38, np.float32)  # d cost / d w = x * y: each 3e38, sum 1.2e39
    before = params.get("_out.w0").copy()
    trainer.train(paddle.batch(lambda: iter([(big, np.ones(1, np.float32))]), 1))
    want = before.astype(np.float64) - 1e-30 * 3e38  # v2 momentum: w -= lr * g
    np.testing.assert_allclose(params.get("_out.w0"), want, rtol=1e-5)


def test_the_finite_check_groups_leaves_without_overflowing_and_misses_nothing():
    """Leaves of one shape are checked together: huge finite values stay finite, and
    one infinity or NaN anywhere (any leaf, any position) is caught."""
    import jax.numpy as jnp

    from paddle_lite._src.training.steps import _all_finite

    huge = {"w": jnp.full((3, 2), 3e38, jnp.float32), "m": jnp.full((3, 2), -3e38, jnp.float32)}
    other = ({"b": jnp.ones(2, jnp.float32)}, [jnp.arange(4, dtype=jnp.int32)])
    assert bool(_all_finite(huge, other))
    for name in huge:
        for bad in (np.inf, -np.inf, np.nan):
            for at in ((0, 0), (2, 1)):
                broken = {**huge, name: huge[name].at[at].set(bad)}
                assert not bool(_all_finite(broken, other)), (name, bad, at)
    assert not bool(_all_finite(huge, ({"b": jnp.array([1.0, np.nan], jnp.float32)}, [])))
    assert bool(_all_finite())


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_apply_if_keeps_the_old_state_bit_for_bit_on_both_paths(backend, monkeypatch):
    """The branch (CPU) and the selects (accelerators) give the update where applied
    and the old values, bit for bit (NaN payloads and -0.0 included), where not."""
    import jax
    import jax.numpy as jnp

    from paddle_lite._src.training import pass_totals, steps

    monkeypatch.setattr(jax, "default_backend", lambda: backend)
    old = np.array([-0.0, np.nan, 1.5, -np.inf], np.float32)
    state = steps.TrainState(
        trainable={"w": jnp.asarray(old)},
        fixed={"s": jnp.asarray(old[::-1])},
        opt_state=(jnp.int32(7), {"v": jnp.asarray(old * 2)}),
        totals=pass_totals.pack((np.float32(2.0), [{"n": np.int32(3)}])),
        counters=jnp.asarray(steps.counters(5, 1)),
        key=jax.random.PRNGKey(0),
        masks={},
    )

    def update(st):
        bump = lambda x: x + 1  # noqa: E731
        totals = pass_totals.add(st.totals, (jnp.float32(1.0), [{"n": jnp.int32(1)}]))
        return (*jax.tree_util.tree_map(bump, (st.trainable, st.fixed, st.opt_state)), totals)

    run = jax.jit(lambda apply, st: steps._apply_if(apply, update, st))
    kept = jax.tree_util.tree_leaves(run(jnp.bool_(False), state))
    want = jax.tree_util.tree_leaves((state.trainable, state.fixed, state.opt_state, state.totals))
    for got, was in zip(kept, want, strict=True):
        assert np.asarray(got).tobytes() == np.asarray(was).tobytes()
    done = run(jnp.bool_(True), state)
    np.testing.assert_array_equal(done[0]["w"], old + 1)
    assert done[2][0] == 8 and [v.tolist() for v in done[3]] == [[3.0], [4]]
