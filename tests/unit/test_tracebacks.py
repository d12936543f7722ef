"""A paddle_lite error's traceback ends at the user's line: the library's own frames are
cut as it leaves a public entry point, unless PADDLE_LITE_TRACEBACK=full; the user's own
frames (readers, event handlers) and other exceptions are never cut, and the type, the
message and the cause stay as raised. Warnings point at the user's line too."""

import os
import traceback

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src import tracebacks

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
HERE = os.path.abspath(__file__)
PACKAGE = os.path.dirname(os.path.abspath(paddle.__file__))


def _files(tb):
    return [os.path.abspath(frame.filename) for frame in traceback.extract_tb(tb)]


def _library_frames(tb):
    return [f for f in _files(tb) if f.startswith(PACKAGE + os.sep)]


def _trainer():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    cost = L.square_error_cost(input=L.fc(input=x, size=1, act=A.Linear()), label=y)
    params = paddle.parameters.create(cost)
    return paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))


def _bad_sample_reader():
    yield np.ones(3, np.float32), np.ones(1, np.float32)
    yield np.ones(4, np.float32), np.ones(1, np.float32)


@pytest.fixture
def cut(monkeypatch):
    monkeypatch.delenv(tracebacks.ENV, raising=False)


def test_a_bad_layer_config_ends_at_the_users_line(cut):
    x = L.data(name="x", type=DT.dense_vector(4))
    with pytest.raises(paddle.errors.LayerConfigError, match="size must be positive") as info:
        L.fc(input=x, size=-1)
    assert _library_frames(info.value.__traceback__) == []
    assert _files(info.value.__traceback__) == [HERE]
    if hasattr(BaseException, "add_note"):  # Python 3.11+
        assert tracebacks.NOTE in info.value.__notes__


def test_a_bad_sample_in_train_ends_at_the_train_call(cut):
    trainer = _trainer()
    with pytest.raises(paddle.errors.DataError, match="sample 1") as info:
        trainer.train(paddle.batch(_bad_sample_reader, 2), num_passes=1)
    assert _files(info.value.__traceback__) == [HERE]


def test_full_keeps_every_frame(monkeypatch):
    monkeypatch.setenv(tracebacks.ENV, "full")
    trainer = _trainer()
    with pytest.raises(paddle.errors.DataError) as info:
        trainer.train(paddle.batch(_bad_sample_reader, 2), num_passes=1)
    assert len(_library_frames(info.value.__traceback__)) >= 5
    assert not getattr(info.value, "__notes__", None)


def test_the_users_handler_frames_stay_and_the_cause_is_kept(cut):
    trainer = _trainer()
    good = [(np.ones(3, np.float32), np.ones(1, np.float32))] * 2

    def handler(event):
        if isinstance(event, paddle.event.EndPass):
            trainer.test(paddle.batch(_bad_sample_reader, 2))

    with pytest.raises(paddle.errors.DataError) as info:
        trainer.train(paddle.batch(lambda: iter(good), 2), num_passes=1, event_handler=handler)
    names = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert names[-1] == "handler" and _library_frames(info.value.__traceback__) == []

    def failing_reader():
        yield good
        raise OSError("disk gone")

    with pytest.raises(paddle.errors.ReaderError) as info:
        trainer.train(failing_reader, num_passes=1)
    cause = info.value.__cause__
    assert isinstance(cause, OSError) and str(cause) == "disk gone"
    assert "failing_reader" in [f.name for f in traceback.extract_tb(cause.__traceback__)]


def test_other_exceptions_pass_untouched(cut):
    trainer = _trainer()
    good = [(np.ones(3, np.float32), np.ones(1, np.float32))] * 2

    def handler(event):
        raise KeyError("mine")

    with pytest.raises(KeyError) as info:
        trainer.train(paddle.batch(lambda: iter(good), 2), num_passes=1, event_handler=handler)
    assert _library_frames(info.value.__traceback__), "a user's exception keeps every frame"
    assert not getattr(info.value, "__notes__", None)


def test_iterating_a_wrapped_generator_cuts_its_errors_too(cut):
    pred = L.fc(input=L.data(name="x", type=DT.dense_vector(3)), size=2)
    inferer = paddle.inference.Inference(
        output_layer=pred, parameters=paddle.parameters.create(pred)
    )
    with pytest.raises(paddle.errors.DataError) as info:
        next(inferer.iter_infer(input=[(np.ones(5, np.float32),)]))
    assert _files(info.value.__traceback__) == [HERE]


def test_warnings_point_at_the_users_line():
    prob = L.fc(input=L.data(name="x", type=DT.dense_vector(3)), size=3, act=A.Softmax())
    params = paddle.parameters.create(prob)
    with pytest.warns(paddle.errors.CostWarning) as record:
        paddle.trainer.SGD(
            cost=prob, parameters=params, update_equation=paddle.optimizer.Momentum()
        )
    assert record[0].filename == __file__
