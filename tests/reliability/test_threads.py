"""Other threads read the model while one thread trains it: a whole step, or a typed error.

One thread trains; others call ``paddle.infer``, ``Parameters.values`` / ``get`` /
``to_tar``, ``trainer.test`` and ``trainer.save_checkpoint`` in a loop. Every value read
must be the parameters after some whole step of the run (the training thread records
each step's values), every checkpoint must hold the parameters of the step its position
says, and nothing may raise but the typed errors the docs name.
"""

import hashlib
import io
import threading
import time

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.training import checkpoints
from paddle_lite.errors import TrainerBusyError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
ROWS = [(np.random.default_rng(i).normal(size=6).astype(np.float32), i % 4) for i in range(96)]


def _setup():
    paddle.layer.reset_names()
    paddle.init(seed=9)
    x = L.data(name="x", type=DT.dense_vector(6))
    y = L.data(name="y", type=DT.integer_value(4))
    h = L.fc(input=x, size=32, act=A.Tanh())
    predict = L.fc(input=h, size=4, act=A.Softmax())
    cost = L.classification_cost(input=predict, label=y)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Adam(learning_rate=0.01)
    return paddle.trainer.SGD(cost, params, optimizer), params, predict


def _digest(values):
    h = hashlib.sha256()
    for name in sorted(values):
        h.update(np.ascontiguousarray(values[name]).tobytes())
    return h.hexdigest()


def _reader():
    return paddle.batch(lambda: iter(ROWS), 8)


def _wait_for(condition, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.001)


def test_readers_in_other_threads_see_whole_steps(tmp_path, fault):
    fault.case(
        "threads",
        "3 threads call infer, Parameters.values / get / to_tar, trainer.test and "
        "save_checkpoint in a loop while the main thread trains the same Parameters",
        "every read is the values after a whole step; every checkpoint's parameters are "
        "those of its step; no error",
    )
    trainer, params, predict = _setup()
    steps = {_digest(params.values()): 0}  # digest -> step, recorded by the trainer
    step_values = {0: params.values()}

    def record(event):
        if isinstance(event, paddle.event.EndIteration):
            values = params.values()
            step = trainer._device.steps_run()
            steps[_digest(values)] = step
            step_values[step] = values
            if step in (24, 48):  # a checkpoint mid-run, however busy the machine is
                count = len(saved)
                _wait_for(lambda: len(saved) > count)

    seen, errors, saved = [], [], []
    stop = threading.Event()

    def reading(kind):
        try:
            while not stop.is_set():
                if kind == "values":
                    seen.append(_digest(params.values()))
                    one = params.get("___fc_layer_0__.w0")
                    assert np.isfinite(one).all()
                    buffer = io.BytesIO()
                    params.to_tar(buffer)
                    buffer.seek(0)
                    seen.append(_digest(paddle.parameters.Parameters.from_tar(buffer).values()))
                elif kind == "infer":
                    out = paddle.infer(output_layer=predict, parameters=params,
                                       input=[(ROWS[0][0],), (ROWS[1][0],)])  # fmt: skip
                    assert out.shape == (2, 4) and np.isfinite(out).all()
                    result = trainer.test(paddle.batch(lambda: iter(ROWS[:16]), 8))
                    assert np.isfinite(result.cost)
                else:
                    folder = str(tmp_path / f"ck{len(saved)}")
                    trainer.save_checkpoint(folder)
                    saved.append(folder)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=reading, args=(k,)) for k in ("values", "infer", "save")]
    for t in threads:
        t.start()
    try:
        history = trainer.train(_reader(), num_passes=6, event_handler=record)
    finally:
        stop.set()
        for t in threads:
            t.join()
    final = params.values()
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
    unknown = [d for d in seen if d not in steps]
    assert seen and not unknown, f"{len(unknown)} of {len(seen)} reads were no whole step"
    assert all(not p.tests for p in history)  # tests from other threads are not the run's
    mid = []
    for folder in saved:
        loaded, _, meta = checkpoints.load(folder)
        assert _digest(loaded.values()) == _digest(step_values[meta["step"]]), folder
        if 0 < meta["step"] < 72:
            mid.append((folder, meta["pass_id"]))
    assert len(mid) >= 2, saved
    folder, pass_id = mid[len(mid) // 2]  # its optimizer state and position fit too:
    trainer, params, _ = _setup()
    trainer.load_checkpoint(folder)
    trainer.train(_reader(), num_passes=6 - pass_id)
    assert _digest(params.values()) == _digest(final)
    fault.observed(
        f"{len(seen)} reads, each a whole step; {len(saved)} checkpoints, each holding its "
        "step's parameters; one resumed to the end bit-identical; no error"
    )


def test_train_from_another_thread_is_a_typed_error():
    trainer, params, _ = _setup()
    busy = []

    def train_in_thread():
        try:
            trainer.train(_reader(), 1)
        except TrainerBusyError as err:
            busy.append(err)

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and not busy:
            t = threading.Thread(target=train_in_thread, name="dashboard")
            t.start()
            t.join()

    trainer.train(_reader(), 1, handler)
    assert "'dashboard' while thread 'MainThread' trains" in str(busy[0])
