"""train() takes a list of handlers and returns a History; Compiling fires once per
compiled signature; BeginPass carries the pass length (the bar: test_progress.py)."""

import numpy as np
import pytest

import paddle_lite as paddle

L, DT, A, EV = paddle.layer, paddle.data_type, paddle.activation, paddle.event


def _trainer():
    x = L.data(name="x", type=DT.dense_vector(4))
    lbl = L.data(name="lbl", type=DT.integer_value(3))
    prob = L.fc(input=x, size=3, act=A.Softmax())
    cost = L.classification_cost(input=prob, label=lbl)
    params = paddle.parameters.create(cost)
    return paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))


def _samples(n=20):
    rng = np.random.default_rng(0)
    return [(rng.normal(size=4).astype(np.float32), int(rng.integers(3))) for _ in range(n)]


SAMPLES = _samples()


def _reader():
    yield from SAMPLES


class _SizedReader:
    """A batch reader with a len(): the bar knows the total from the first pass."""

    def __call__(self):
        return paddle.batch(_reader, 8)()

    def __len__(self):
        return 3


def test_list_of_handlers_called_in_order_and_history():
    trainer = _trainer()
    calls, costs = [], {}

    def first(event):
        calls.append(("first", type(event).__name__))
        if isinstance(event, EV.EndIteration):
            costs.setdefault(event.pass_id, []).append((event.cost, 8 if event.batch_id < 2 else 4))

    def second(event):
        calls.append(("second", type(event).__name__))
        if isinstance(event, EV.EndPass) and event.pass_id == 1:
            trainer.test(paddle.batch(_reader, 10))

    history = trainer.train(paddle.batch(_reader, 8), num_passes=2, event_handler=[first, second])
    assert calls[:4] == [
        ("first", "BeginTraining"),
        ("second", "BeginTraining"),
        ("first", "BeginPass"),
        ("second", "BeginPass"),
    ]
    assert len(history) == 2 and [p.pass_id for p in history] == [0, 1]
    for pass_id, record in enumerate(history):
        pairs = costs[pass_id]
        mean = sum(c * n for c, n in pairs) / sum(n for _, n in pairs)
        assert record.cost == pytest.approx(mean, rel=1e-5)
        assert set(record.metrics) == {"classification_error_evaluator"}
    assert history[0].test is None and history[1].test is not None
    assert history.test_cost == [None, history[1].test.cost]
    assert history.cost == [history[0].cost, history[1].cost]
    assert "History(2 passes" in repr(history)


def test_bad_handler_in_list_is_a_typed_error():
    with pytest.raises(paddle.errors.ArgumentTypeError, match="list of callables"):
        _trainer().train(paddle.batch(_reader, 8), event_handler=[print, 3])


def test_v2_programs_ignoring_the_result_keep_working():
    assert _trainer().train(paddle.batch(_reader, 8), event_handler=lambda e: None) is not None


def test_compiling_fires_once_per_signature_and_pass_lengths():
    trainer = _trainer()
    seen = []

    def handler(event):
        if isinstance(event, EV.Compiling):
            seen.append(("compiling", event.pass_id, event.batch_id))
        if isinstance(event, EV.BeginPass):
            seen.append(("pass", event.pass_id, event.num_passes, event.batches))

    trainer.train(paddle.batch(_reader, 8), num_passes=2, event_handler=handler)
    # batches of 8, 8 and 4: the 4 is padded to 8, so one signature, compiled once
    assert seen == [("pass", 0, 2, None), ("compiling", 0, 0), ("pass", 1, 2, 3)]
    seen.clear()
    trainer.train(_SizedReader(), num_passes=1, event_handler=handler)
    assert seen == [("pass", 0, 1, 3)]  # nothing new to compile; len() gives the total
