"""sparse_update=True: row-sparse updates with v2's lazy decay, against float64 loops."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import ConfigError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
V, D = 12, 3
RNG = np.random.default_rng(11)
# ids 8..11 never appear; ids 5..7 only in the first batches
BATCHES = [
    [(5, RNG.normal(size=D)), (0, RNG.normal(size=D)), (6, RNG.normal(size=D))],
    [(1, RNG.normal(size=D)), (1, RNG.normal(size=D)), (7, RNG.normal(size=D))],
    [(0, RNG.normal(size=D)), (2, RNG.normal(size=D))],
    [(3, RNG.normal(size=D)), (0, RNG.normal(size=D)), (4, RNG.normal(size=D))],
    [(2, RNG.normal(size=D)), (4, RNG.normal(size=D))],
]


def _reader():
    return iter(BATCHES)


def _net(sparse=True, l2=None):
    ids = L.data(name="ids", type=DT.integer_value(V))
    y = L.data(name="y", type=DT.dense_vector(D))
    attr = paddle.attr.Param(name="emb", sparse_update=sparse, l2_rate=l2)
    emb = L.embedding(input=ids, size=D, param_attr=attr)
    return L.square_error_cost(input=emb, label=y)


def _train(optimizer, passes=2, sparse=True, l2=None, snapshots=None):
    cost = _net(sparse, l2)
    params = paddle.parameters.create(cost, seed=4)
    start = params.get("emb").astype(np.float64)
    trainer = paddle.trainer.SGD(cost, params, optimizer)

    def handler(event):
        if snapshots is not None and isinstance(event, paddle.event.EndIteration):
            snapshots.append(params.get("emb").copy())

    trainer.train(_reader, num_passes=passes, event_handler=handler)
    return start, params.get("emb")


def _grad(w, batch):
    g = np.zeros_like(w)
    for i, y in batch:
        g[i] += 2.0 * (w[i] - y)  # square_error_cost: sum of squares per sample
    return g


def _reference(w, passes, row_update, l2=0.0, rate=None):
    """v2's sparse updater: touched rows only, missed L2 decay applied when next touched
    and for every row at each pass's end."""
    w = w.copy()
    slots, seen, decayed, step = {}, np.zeros(V, int), np.zeros(V, int), 0
    for _ in range(passes):
        for batch in BATCHES:
            g = _grad(w, batch)
            for r in np.nonzero(np.any(g != 0, axis=1))[0]:
                w[r], eta = row_update(w[r], g[r], slots.setdefault(r, {}), step - seen[r], seen[r])
                w[r] /= 1.0 + eta * l2 * (step + 1 - decayed[r])
                seen[r] = decayed[r] = step + 1
            step += 1
        for r in range(V):  # catchUpWith at the pass end
            eta = 3e-3 * (rate(slots[r]) if r in slots else 0.0) if rate else 3e-3
            w[r] /= 1.0 + eta * l2 * (step - decayed[r])
            decayed[r] = step
    return w


def _adagrad(w, g, s, missed, seen):
    s["sum"] = s.get("sum", 0.0) + g * g
    r = 1.0 / np.sqrt(s["sum"] + 1e-6)
    return w - 3e-3 * r * g, 3e-3 * r


def test_adagrad_with_lazy_l2_matches_v2s_sparse_updater():
    opt = paddle.optimizer.AdaGrad(
        learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(0.5)
    )
    snapshots = []
    start, got = _train(opt, snapshots=snapshots)
    want = _reference(start, 2, _adagrad, l2=0.5, rate=lambda s: 1.0 / np.sqrt(s["sum"] + 1e-6))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7)
    # within a pass, rows no batch touched keep their values bit for bit
    np.testing.assert_array_equal(snapshots[3][8:], start[8:].astype(np.float32))
    first = [1, 2, 3, 4]
    np.testing.assert_array_equal(snapshots[0][first], start[first].astype(np.float32))
    # rows never touched have no rate yet (v2's zeroed learning-rate buffer): no decay
    np.testing.assert_array_equal(got[8:], start[8:].astype(np.float32))


def test_momentum_moves_only_touched_rows_and_keeps_their_velocity():
    def momentum(w, g, s, missed, seen):
        s["v"] = 0.9 * s.get("v", 0.0) - 0.01 * g
        return w + s["v"], 0.0

    start, got = _train(paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01))
    np.testing.assert_allclose(got, _reference(start, 2, momentum), rtol=2e-5, atol=1e-7)
    np.testing.assert_array_equal(got[8:], start[8:].astype(np.float32))


def test_rmsprop_decays_the_missed_updates_of_a_row():
    rho = 0.9

    def rmsprop(w, g, s, missed, seen):
        decay = rho**missed if seen else 0.0
        first = 1.0 if not seen else 1.0 - rho
        s["e"] = rho * decay * s.get("e", 0.0) + first * g * g
        s["f"] = rho * decay * s.get("f", 0.0) + (1.0 - rho) * g
        return w - 3e-3 * g / np.sqrt(s["e"] - s["f"] ** 2 + 1e-6), 0.0

    opt = paddle.optimizer.RMSProp(learning_rate=3e-3, rho=rho)
    start, got = _train(opt)
    np.testing.assert_allclose(got, _reference(start, 2, rmsprop), rtol=2e-5, atol=1e-7)


def test_sparse_momentum_is_dense_momentum():
    _, dense = _train(paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01), sparse=False)
    paddle.layer.reset_names()
    _, lazy = _train(paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01, sparse=True))
    paddle.layer.reset_names()
    _, rows = _train(paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01))
    np.testing.assert_array_equal(lazy, dense)
    # rows 5..7 are touched early only: dense momentum keeps moving them, row updates do not
    assert not np.allclose(rows[5:8], dense[5:8], rtol=1e-3)


def test_test_and_save_see_the_caught_up_rows_without_changing_training():
    opt = paddle.optimizer.AdaGrad(
        learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(0.5)
    )
    cost = _net()
    params = paddle.parameters.create(cost, seed=4)
    trainer = paddle.trainer.SGD(cost, params, opt)
    seen = {}

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 2:
            seen["live"] = params.get("emb").copy()
            seen["view"] = np.asarray(trainer._device.eval_params(averaged=False)["emb"])

    start = params.get("emb").copy()
    trainer.train(_reader, num_passes=1, event_handler=handler)
    np.testing.assert_array_equal(seen["live"][8:], start[8:])  # never touched
    # rows 5..7 sat out batch 2: their missed decay shows in the evaluation view only
    assert np.all(np.abs(seen["view"][5:8]) < np.abs(seen["live"][5:8]))
    paddle.layer.reset_names()
    _, plain = _train(opt, passes=1)  # the same run without looking
    np.testing.assert_array_equal(params.get("emb"), plain)


@pytest.mark.parametrize("name", ["Adam", "Adamax", "AdaDelta"])
def test_rules_v2_cannot_update_sparsely_are_refused(name):
    cost = _net()
    params = paddle.parameters.create(cost)
    with pytest.raises(ConfigError, match=f"'emb' has sparse_update=True, which v2's {name}"):
        paddle.trainer.SGD(cost, params, getattr(paddle.optimizer, name)())


def test_momentum_with_decay_on_sparse_rows_is_refused_as_in_v2():
    cost = _net()
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(
        momentum=0.9, regularization=paddle.optimizer.L2Regularization(1e-3)
    )
    with pytest.raises(ConfigError, match="cannot support momentum if it's sparse"):
        paddle.trainer.SGD(cost, params, opt)


def test_sparse_momentum_with_decay_on_sparse_rows_is_refused_as_in_v2():
    # Momentum(sparse=True) is v2's sparse_momentum; on a sparse_update parameter
    # OptimizerWithRegularizer::create still CHECKs momentum == 0 when it decays
    cost = _net(l2=1e-3)
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0.9, sparse=True)
    with pytest.raises(ConfigError, match="'emb' has sparse_update=True, momentum 0.9"):
        paddle.trainer.SGD(cost, params, opt)
    paddle.trainer.SGD(_net(sparse=False, l2=1e-3), params, opt)  # a dense parameter trains
