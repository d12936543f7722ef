"""An update that overflows is caught at the batch that makes it.

Batch 5 of the data below has a finite cost and finite gradients, but its update is
not finite: with Momentum at a huge learning rate, the new parameters overflow; with
Adam, the square of a large gradient overflows the second-moment slot (the new
parameters stay finite). ``on_nan="raise"`` must name batch 5 and leave the
parameters and optimizer state exactly as batch 4 left them; ``"skip"`` must drop
batch 5 and leave a state equal, bit for bit, to a run without it. Dispatching 4
batches per device call changes nothing.
"""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import NonFiniteError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
BAD, BATCH = 5, 2
# (optimizer, scale of the ordinary batches, scale of batch BAD)
CASES = {
    "momentum": (lambda: paddle.optimizer.Momentum(0.9, learning_rate=1e30), 1e-20, 1.0),
    "adam": (lambda: paddle.optimizer.Adam(learning_rate=1e-3), 1.0, 1e12),
}


def _samples(case):
    _, small, big = CASES[case]
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(20, 4)).astype(np.float32) * np.float32(small)
    xs[BAD * BATCH : (BAD + 1) * BATCH] *= np.float32(big / small)
    ys = np.full((20, 1), 10, np.float32)
    return list(zip(xs, ys, strict=True))


def _trainer(case):
    paddle.layer.reset_names()
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.dense_vector(1))
    p = L.fc(input=x, size=1, act=A.Linear(), bias_attr=False, name="out")
    cost = L.square_error_cost(input=p, label=y)
    params = paddle.parameters.create(cost, seed=2)
    return params, paddle.trainer.SGD(cost, params, CASES[case][0]())


def _state(params, trainer):
    """Every parameter and every optimizer-state leaf, on the host."""
    values = {n: np.array(params.get(n)) for n in params.keys()}
    slots = jax.tree_util.tree_leaves(trainer._device.opt_states)
    return values, [np.array(s) for s in slots]


def _assert_same(got, want):
    (got_values, got_slots), (want_values, want_slots) = got, want
    assert got_values.keys() == want_values.keys()
    for name, value in want_values.items():
        np.testing.assert_array_equal(got_values[name], value, err_msg=name)
    assert len(got_slots) == len(want_slots)
    for got_slot, want_slot in zip(got_slots, want_slots, strict=True):
        np.testing.assert_array_equal(got_slot, want_slot)


def _all_finite(state):
    values, slots = state
    leaves = list(values.values()) + slots
    return all(np.all(np.isfinite(v)) for v in leaves if np.issubdtype(v.dtype, np.floating))


def _train(case, samples, k, on_nan="raise"):
    params, trainer = _trainer(case)
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((event.batch_id, event.cost, event.skipped))

    error = None
    try:
        reader = paddle.batch(lambda: iter(samples), BATCH)
        trainer.train(reader, event_handler=handler, steps_per_dispatch=k, on_nan=on_nan)
    except NonFiniteError as e:
        error = e
    return _state(params, trainer), seen, error


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("case", list(CASES))
def test_raise_names_the_batch_whose_update_overflows_and_keeps_the_state_before_it(case, k, fault):
    fault.case(
        "non-finite values",
        f"{case}: finite cost and gradients, update overflows at batch {BAD} "
        f"(steps_per_dispatch={k})",
        f"NonFiniteError naming batch {BAD}; parameters and optimizer state bit-identical "
        f"to those after batch {BAD - 1}",
    )
    samples = _samples(case)
    state, seen, error = _train(case, samples, k)
    assert error is not None
    fault.observed(error)
    text = str(error)
    assert f"pass 0, batch {BAD}:" in text
    assert "the cost and every gradient are finite but the update is not" in text
    if case == "momentum":
        assert "parameters ['_out.w0']" in text
    else:
        assert "moment2" in text
    bad = [s for s in seen if s[0] == BAD]
    assert bad and np.isfinite(bad[0][1]), "the overflowing batch's cost must be finite"
    before, _, none = _train(case, samples[: BAD * BATCH], 1)
    assert none is None
    _assert_same(state, before)
    assert _all_finite(state)


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("case", list(CASES))
def test_skip_drops_the_overflowing_update_and_keeps_no_non_finite_value(case, k, fault):
    fault.case(
        "non-finite values",
        f"{case}: update overflows at batch {BAD}, on_nan='skip' (steps_per_dispatch={k})",
        "that batch alone skipped; training goes on; parameters and optimizer state all "
        "finite and bit-identical to a run without it",
    )
    samples = _samples(case)
    state, seen, error = _train(case, samples, k, on_nan="skip")
    assert error is None
    assert [b for b, _, skipped in seen if skipped] == [BAD]
    assert [b for b, _, _ in seen] == list(range(len(samples) // BATCH))
    assert _all_finite(state)
    without = samples[: BAD * BATCH] + samples[(BAD + 1) * BATCH :]
    want, _, _ = _train(case, without, 1, on_nan="skip")
    _assert_same(state, want)
    fault.observed(f"batch {BAD} skipped, the other 9 applied; state equals a run without it")
