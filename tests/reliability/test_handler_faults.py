"""Faults injected from event handlers and readers in the middle of ``train``: the
exception reaches the caller unchanged, the parameters hold the last completed update,
and the same trainer trains and tests again afterwards.
"""

import io
import threading
import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training.chunks import converted, device_batches
from paddle_lite.errors import (
    NonFiniteError,
    ParameterError,
    ParameterWarning,
    ReaderTypeError,
    TrainerBusyError,
)

W = "_out.w0"


class Boom(Exception):
    pass


def _data():
    rng = np.random.RandomState(0)
    return [(rng.randn(3).astype("float32"), rng.randn(1).astype("float32")) for _ in range(24)]


def _net():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    out = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear(), name="out")
    return paddle.layer.square_error_cost(input=out, label=y)


def _trainer(params=None):
    cost = _net()
    params = params if params is not None else paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01)
    return paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt), params


def _reader():
    data = _data()
    return paddle.batch(lambda: iter(data), 4)


def _trains_again(trainer, params):
    before = params.get(W).copy()
    history = trainer.train(_reader(), num_passes=1)
    cost = trainer.test(_reader()).cost
    assert np.isfinite(history.cost[-1]) and np.isfinite(cost)
    assert not np.array_equal(params.get(W), before)


@pytest.mark.parametrize(
    "event_type, batch_id, error",
    [
        (paddle.event.EndIteration, 2, Boom("handler failed")),
        (paddle.event.BeginIteration, 3, KeyboardInterrupt()),
        (paddle.event.EndPass, None, Boom("end of pass")),
    ],
    ids=["EndIteration-Boom", "BeginIteration-KeyboardInterrupt", "EndPass-Boom"],
)
def test_handler_raises_mid_pass(fault, event_type, batch_id, error):
    fault.case(
        "event handlers",
        f"the handler raises {type(error).__name__} at {event_type.__name__}"
        + (f" of batch {batch_id}" if batch_id is not None else " of pass 0"),
        "the same exception reaches the caller; parameters hold the last completed update; "
        "the trainer trains and tests again",
    )
    trainer, params = _trainer()
    seen = {}

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration):
            seen["w"] = params.get(W).copy()  # after this batch's update
        if isinstance(ev, event_type) and getattr(ev, "batch_id", batch_id) == batch_id:
            raise error

    with pytest.raises(type(error)) as info:
        trainer.train(_reader(), num_passes=2, event_handler=handler)
    assert info.value is error
    assert np.array_equal(params.get(W), seen["w"])  # BeginIteration 3: batch 2's update
    _trains_again(trainer, params)
    fault.observed(
        f"{type(error).__name__} reached the caller; parameters equal those after the "
        "last completed batch; trained and tested again"
    )


def test_keyboard_interrupt_in_reader(fault):
    fault.case(
        "event handlers",
        "KeyboardInterrupt raised by the reader after 10 samples",
        "KeyboardInterrupt (not wrapped) reaches the caller; the trainer trains again",
    )
    trainer, params = _trainer()
    data = _data()

    def interrupted():
        for i, sample in enumerate(data):
            if i == 10:
                raise KeyboardInterrupt
            yield sample

    updates = []

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration):
            updates.append(params.get(W).copy())

    with pytest.raises(KeyboardInterrupt):
        trainer.train(paddle.batch(interrupted, 4), num_passes=1, event_handler=handler)
    assert len(updates) == 2 and np.array_equal(params.get(W), updates[-1])
    _trains_again(trainer, params)
    fault.observed("KeyboardInterrupt reached the caller after 2 batches; trained again")


def test_train_called_from_a_handler(fault):
    fault.case(
        "event handlers",
        "trainer.train() called again from inside its own EndIteration handler",
        "TrainerBusyError saying train() is not re-entrant; the trainer trains again",
    )
    trainer, params = _trainer()
    seen = {}

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration) and ev.batch_id == 1:
            seen["w"] = params.get(W).copy()
            trainer.train(_reader(), num_passes=1)

    with pytest.raises(TrainerBusyError, match="from inside an event handler") as info:
        trainer.train(_reader(), num_passes=1, event_handler=handler)
    assert np.array_equal(params.get(W), seen["w"])
    _trains_again(trainer, params)
    fault.observed(info.value)


def test_test_and_save_inside_handlers(fault):
    fault.case(
        "event handlers",
        "trainer.test() in EndIteration and save_parameter_to_tar in EndPass (as v2 programs do)",
        "test() gives the cost of the parameters of that moment; the tar holds them",
    )
    trainer, params = _trainer()
    tested, tars = [], []

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration) and ev.batch_id % 3 == 0:
            values = {n: params.get(n).copy() for n in params.names()}
            tested.append((values, trainer.test(_reader()).cost))
        if isinstance(ev, paddle.event.EndPass):
            buf = io.BytesIO()
            trainer.save_parameter_to_tar(buf)
            tars.append((params.get(W).copy(), buf.getvalue()))

    trainer.train(_reader(), num_passes=2, event_handler=handler)
    for values, cost in tested:
        for name, value in values.items():
            params.set(name, value)
        assert trainer.test(_reader()).cost == pytest.approx(cost, rel=1e-6)
    for w, raw in tars:
        loaded = paddle.parameters.Parameters.from_tar(io.BytesIO(raw))
        assert np.array_equal(loaded.get(W), w)
    assert len(tested) == 4 and len(tars) == 2
    fault.observed(
        f"{len(tested)} tests matched a test() of the same values; {len(tars)} tars "
        "held the values of their pass end"
    )


def test_generator_object_as_reader(fault):
    fault.case(
        "readers",
        "train() given a generator object instead of a reader",
        "ReaderTypeError (a TypeError) saying to pass the function itself",
    )
    trainer, _ = _trainer()
    with pytest.raises(ReaderTypeError, match="reader must be callable") as info:
        trainer.train((b for b in _reader()()), num_passes=1)
    fault.observed(info.value)


def test_parameters_of_another_network(fault):
    fault.case(
        "parameters",
        "SGD given a Parameters of another network (from_tar of another topology)",
        "trains, as v2 did (its own fresh values), with a ParameterWarning naming the "
        "parameters the set lacks",
    )
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    other = paddle.parameters.create(paddle.layer.fc(input=x, size=2, name="other"))
    buf = io.BytesIO()
    other.to_tar(buf)
    foreign = paddle.parameters.Parameters.from_tar(io.BytesIO(buf.getvalue()))
    with pytest.warns(ParameterWarning, match=r"lack 2 of the 2 .*'_out.w0'.*'_other.w0'") as rec:
        trainer, _ = _trainer(foreign)
    history = trainer.train(_reader(), num_passes=1)
    assert np.isfinite(history.cost[-1]) and foreign.names() == ["_other.w0", "_other.wbias"]
    fault.observed(rec[0].message)


def test_infer_given_a_generator(fault):
    fault.case(
        "inference",
        "paddle.infer(input=<a generator of samples>)",
        "ArgumentTypeError (a TypeError, as v2's len() was) saying to pass a list",
    )
    cost = _net()
    params = paddle.parameters.create(cost)
    out = cost.inputs[0]
    with pytest.raises(TypeError, match="input must be a list of samples") as info:
        paddle.infer(output_layer=out, parameters=params, input=((s[0],) for s in _data()))
    fault.observed(info.value)


def test_infer_with_a_layer_missing(fault):
    fault.case(
        "inference",
        "paddle.infer with parameters lacking the output layer's weights",
        "ParameterError naming the missing parameters and the output layer",
    )
    cost = _net()
    out = cost.inputs[0]
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    partial = paddle.parameters.create(paddle.layer.fc(input=x, size=1, name="other"))
    with pytest.raises(
        ParameterError, match=r"lack \['_out.w0', '_out.wbias'\].*'out'.*parameters.create"
    ) as info:
        paddle.infer(output_layer=out, parameters=partial, input=[(s[0],) for s in _data()[:2]])
    fault.observed(info.value)


def test_nan_set_between_train_calls(fault):
    fault.case(
        "parameters",
        "Parameters.set of NaN values between two train() calls",
        "accepted, as v2 did; the next step raises NonFiniteError naming the layer and "
        "the parameter, and the values set are left as they were",
    )
    trainer, params = _trainer()
    trainer.train(_reader(), num_passes=1)
    params.set(W, np.full((3, 1), np.nan, np.float32))
    bias = params.get("_out.wbias").copy()
    with pytest.raises(NonFiniteError, match=r"'out' \(fc\).*\['_out.w0'\] are not finite") as e:
        trainer.train(_reader(), num_passes=1)
    assert np.isnan(params.get(W)).all() and np.array_equal(params.get("_out.wbias"), bias)
    fault.observed(e.value)


def test_keyboard_interrupt_on_the_prefetch_thread(fault):
    fault.case(
        "event handlers",
        "KeyboardInterrupt raised by the reader on the prefetch thread (as on an accelerator)",
        "KeyboardInterrupt reaches the consumer after the batches before it; the thread stops",
    )
    before = set(threading.enumerate())

    def interrupted():
        for i in range(10):
            if i == 3:
                raise KeyboardInterrupt
            yield [i]

    got = []
    with pytest.raises(KeyboardInterrupt):
        for chunk in device_batches(
            converted(interrupted(), lambda b: {"x": np.asarray(b, np.float32)}), background=True
        ):
            got.append(int(np.asarray(chunk.feeds[0]["x"])[0]))
    for thread in set(threading.enumerate()) - before:
        thread.join(10.0)
        assert not thread.is_alive()
    assert got == [0, 1, 2]
    fault.observed("KeyboardInterrupt after batches [0, 1, 2]; no thread left")


@pytest.mark.parametrize("num_passes, passes", [(2.0, 2), (2.5, 2), ("2", None), (None, None)])
def test_num_passes_of_another_type(fault, num_passes, passes):
    fault.case(
        "training arguments",
        f"train(num_passes={num_passes!r})",
        "a number trains int(num_passes) passes, as v2's xrange did (a TrainingWarning when "
        "a fraction is dropped); anything else is ArgumentTypeError",
    )
    trainer, _ = _trainer()
    if passes is None:
        with pytest.raises(TypeError, match="num_passes must be a number of passes") as info:
            trainer.train(_reader(), num_passes=num_passes)
        fault.observed(info.value)
        return
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        history = trainer.train(_reader(), num_passes=num_passes)
    assert len(history.cost) == passes
    assert [str(w.message) for w in rec] == (
        [] if num_passes == passes else ["train(num_passes=2.5) trains 2 passes (the fraction "
                                         "is dropped, as v2's xrange did)."]
    )  # fmt: skip
    fault.observed(f"{len(history.cost)} passes; warnings: {[str(w.message) for w in rec]}")


def test_handler_raises_inside_a_dispatch_of_four(fault):
    fault.case(
        "event handlers",
        "the handler raises at EndIteration of batch 1 with steps_per_dispatch=4",
        "the exception reaches the caller; the parameters are those after batch 3 (the "
        "call's 4 batches ran before their events, as documented)",
    )
    after = {}

    def record(ev):
        if isinstance(ev, paddle.event.EndIteration):
            after[ev.batch_id] = params.get(W).copy()

    trainer, params = _trainer()
    start = {n: params.get(n).copy() for n in params.names()}
    trainer.train(_reader(), num_passes=1, event_handler=record)
    trainer, params = _trainer()
    for name, value in start.items():
        params.set(name, value)

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration) and ev.batch_id == 1:
            raise Boom("inside the dispatch")

    with pytest.raises(Boom):
        trainer.train(_reader(), num_passes=1, event_handler=handler, steps_per_dispatch=4)
    np.testing.assert_allclose(params.get(W), after[3], rtol=1e-6, atol=1e-7)
    assert not np.allclose(params.get(W), after[1])
    fault.observed("Boom reached the caller; parameters equal a one-step run's after batch 3")


def test_another_trainer_trains_inside_a_handler(fault):
    fault.case(
        "event handlers",
        "a second trainer sharing the Parameters trains a pass inside the first's EndIteration",
        "both keep every update: the values equal one trainer over the batches in that order",
    )
    data = _data()[:8]
    cost = _net()

    def sgd(params):
        opt = paddle.optimizer.Momentum(learning_rate=0.01)  # no velocity: order is all
        return paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)

    def fresh():
        params = paddle.parameters.create(cost)
        for name in params.names():
            params.set(name, np.full(params.get_shape(name), 0.1, np.float32))
        return params

    params = fresh()
    first, second = sgd(params), sgd(params)
    reader = paddle.batch(lambda: iter(data), 4)

    def handler(ev):
        if isinstance(ev, paddle.event.EndIteration) and ev.batch_id == 0:
            second.train(reader, num_passes=1)

    first.train(reader, num_passes=1, event_handler=handler)
    reference = fresh()
    sgd(reference).train(paddle.batch(lambda: iter(data[:4] + data + data[4:]), 4), 1)
    for name in params.names():
        np.testing.assert_allclose(params.get(name), reference.get(name), rtol=1e-6)
    fault.observed("values equal one trainer over batches [0, 0, 1, 1]")
