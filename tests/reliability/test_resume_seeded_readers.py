"""Resuming with seeded readers is bit-identical: the readers' own state is in the checkpoint.

``shuffle(r, n, seed=s)`` and ``bucket_by_length`` (seeded by default) count the passes
they started; a fresh process makes fresh readers whose count starts at 0. A run is
crashed at every batch (and at every pass start) of a small 3-pass run that checkpoints
every 2 batches; a new trainer with new readers loads the newest checkpoint and finishes
the run, which must end bit-identical to the uninterrupted one.
"""

import random

import numpy as np
import pytest
from unit._determinism import assert_same

import paddle_lite as paddle
from paddle_lite._src.readers import state as reader_state

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
PASSES = 3


class _Crash(Exception):
    pass


def _dense():
    x = L.data(name="x", type=DT.dense_vector(6))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=8, act=A.Relu(), layer_attr=paddle.attr.Extra(drop_rate=0.2))
    cost = L.classification_cost(input=L.fc(input=h, size=3, act=A.Softmax()), label=y)
    rng = np.random.default_rng(0)
    x, y_ids = rng.normal(size=(30, 6)).astype(np.float32), rng.integers(0, 3, 30).tolist()
    data = list(zip(x, y_ids, strict=True))
    reader = paddle.batch(paddle.reader.shuffle(lambda: iter(data), 16, seed=42), 8)
    return cost, reader


def _sequences():
    words = L.data(name="w", type=DT.integer_value_sequence(20))
    y = L.data(name="y", type=DT.integer_value(2))
    emb = L.embedding(input=words, size=4)
    pooled = L.pooling(input=emb, pooling_type=paddle.pooling.Sum())
    cost = L.classification_cost(input=L.fc(input=pooled, size=2, act=A.Softmax()), label=y)
    rng = np.random.default_rng(1)
    data = [
        (rng.integers(0, 20, int(rng.integers(1, 9))).tolist(), int(rng.integers(0, 2)))
        for _ in range(24)
    ]
    reader = paddle.reader.bucket_by_length(lambda: iter(data), batch_size=6, buf_size=2)
    return cost, reader


BUILD = {"shuffle(seed=42)": _dense, "bucket_by_length": _sequences}


def _setup(kind):
    paddle.layer.reset_names()
    paddle.init(seed=3)
    random.seed(7)
    np.random.seed(7)
    cost, reader = BUILD[kind]()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Adam(learning_rate=0.01))
    return params, trainer, reader


def _values(params):
    return {n: params.get(n).copy() for n in params.keys()}


def _crash_points(kind):
    """Every (event, pass, batch) of an uninterrupted run, and its final values."""
    params, trainer, reader = _setup(kind)
    points = []

    def record(event):
        if isinstance(event, (paddle.event.BeginPass, paddle.event.EndIteration)):
            points.append((type(event).__name__, event.pass_id, getattr(event, "batch_id", 0)))

    trainer.train(reader, PASSES, record)
    return points, _values(params)


def _crash_and_resume(kind, point, folder):
    params, trainer, reader = _setup(kind)

    def crash(event):
        here = (
            type(event).__name__,
            getattr(event, "pass_id", None),
            getattr(event, "batch_id", 0),
        )
        if here == point:
            raise _Crash

    with pytest.raises(_Crash):
        trainer.train(reader, PASSES, crash, checkpoint_dir=folder, checkpoint_every=2)
    params, trainer, reader = _setup(kind)  # a new process: new readers, counts at 0
    resumed = trainer.load_checkpoint(folder, missing_ok=True)
    trainer.train(reader, PASSES, checkpoint_dir=folder, checkpoint_every=2)
    return resumed, _values(params)


@pytest.mark.parametrize("kind", list(BUILD))
def test_a_crash_at_any_batch_resumes_bit_identically(tmp_path, kind, fault):
    points, want = _crash_points(kind)
    fault.case(
        "checkpoints (seeded readers)",
        f"a crash at each of the {len(points)} batches and pass starts of a 3-pass run with "
        f"a {kind} reader, checkpoint every 2 batches; new trainer and new readers resume",
        "the resumed run ends bit-identical to an uninterrupted one",
    )
    resumed_any = 0
    for i, point in enumerate(points):
        resumed, got = _crash_and_resume(kind, point, str(tmp_path / f"run{i}"))
        resumed_any += resumed
        assert got.keys() == want.keys()
        for name in want:
            assert_same(got[name], want[name], err_msg=f"{point} {name}")
    assert resumed_any == len(points) - 3  # all but the crashes before the first checkpoint
    fault.observed(
        f"{len(points)} crashes, {resumed_any} resumed from a checkpoint; every parameter "
        "bit-identical to the uninterrupted run"
    )


def test_decorators_forward_the_state_protocol():
    data = list(range(10))
    seeded = paddle.reader.shuffle(lambda: iter(data), 4, seed=1)
    wrapped = paddle.reader.firstn(paddle.reader.chain(seeded, lambda: iter(data)), 30)
    batched = paddle.batch(paddle.reader.buffered(wrapped, 4), 3)
    assert reader_state.has_state(batched)
    first = list(batched())
    saved = batched.state()
    second = list(batched())
    assert second != first
    batched.restore(saved)
    assert list(batched()) == second
    fresh = paddle.batch(
        paddle.reader.buffered(
            paddle.reader.firstn(
                paddle.reader.chain(
                    paddle.reader.shuffle(lambda: iter(data), 4, seed=1), lambda: iter(data)
                ),
                30,
            ),
            4,
        ),
        3,
    )
    fresh.restore(saved)
    assert list(fresh()) == second
    assert not reader_state.has_state(paddle.batch(lambda: iter(data), 3))
