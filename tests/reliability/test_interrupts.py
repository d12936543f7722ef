"""Ctrl-C at any moment of train(): the trainer and its Parameters stay whole.

A SIGINT (what Ctrl-C and Jupyter's "interrupt kernel" send) is raised at a moment drawn
at random: at an opcode of the library's own code (deterministic: counted with a trace
function; the signal reaches Python at the next point where it checks for signals), or
from a timer thread at a random time (anywhere, JAX's tracing and compiling included).
After each: ``KeyboardInterrupt`` reached the caller; the parameters are finite and equal,
bit for bit, to those after some whole step of an uninterrupted run; ``paddle.infer``
works; training on from there over the batches left ends bit-identical to the
uninterrupted run; a warm train() compiles nothing, and nothing compiles twice.
"""

import io
import os
import random
import signal
import sys
import threading
import time

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training import folder_lock

# An interrupt landing between open() and its with-block leaves the file to the garbage
# collector, which warns; the file is closed then, nothing else is lost.
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]
L, DT, A = paddle.layer, paddle.data_type, paddle.activation
BATCHES, SIZE = 10, 8
LIBRARY = os.path.dirname(paddle.__file__)


def _network():
    paddle.layer.reset_names()
    x = L.data(name="x", type=DT.dense_vector(6))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=16, act=A.Relu(), layer_attr=paddle.attr.Extra(drop_rate=0.2))
    predict = L.fc(input=h, size=3, act=A.Softmax())
    return x, predict, L.classification_cost(input=predict, label=y)


def _batches():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(BATCHES * SIZE, 6)).astype(np.float32)
    y = rng.integers(0, 3, BATCHES * SIZE).tolist()
    rows = list(zip(x, y, strict=True))
    return [rows[i : i + SIZE] for i in range(0, len(rows), SIZE)]


def _reader(batches):
    return lambda: iter(batches)


class Compiles:
    """Counts the XLA compilations of the thread that trains (``jax.monitoring``'s
    backend compile events, which JAX reports on the compiling thread): a thread another
    test left behind in the same worker process compiles its own programs."""

    def __init__(self):
        self.count, self.names = 0, []
        self.thread = threading.get_ident()
        jax.monitoring.register_event_duration_secs_listener(self._event)

    def _event(self, name, duration, fun_name="?", **kwargs):
        if "backend_compile" in name and threading.get_ident() == self.thread:
            self.count += 1
            self.names.append(fun_name)


COMPILES = Compiles()


class Run:
    """A trainer over fixed batches, and the parameters after each step of an
    uninterrupted run."""

    def __init__(self, tmp_path):
        paddle.init(seed=5)
        self.x, self.predict, cost = _network()
        self.params = paddle.parameters.create(cost)
        self.cost = cost
        self.batches = _batches()
        self.start = str(tmp_path / "start")
        self.trainer = self.new_trainer()
        self.trainer.save_checkpoint(self.start)
        self.reference = [self.params.values()]

        def record(event):
            if isinstance(event, paddle.event.EndIteration):
                self.reference.append(self.params.values())

        before = COMPILES.count
        self.trainer.train(_reader(self.batches), num_passes=1, event_handler=record)
        self.cold_compiles = COMPILES.count - before
        paddle.infer(output_layer=self.predict, parameters=self.params, input=self.sample())
        self.trainer.load_checkpoint(self.start)
        began = time.perf_counter()
        self.trainer.train(_reader(self.batches), num_passes=1)
        self.warm_seconds = time.perf_counter() - began

    def sample(self):
        return [(self.batches[0][0][0],)]

    def new_trainer(self):
        optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.05)
        return paddle.trainer.SGD(self.cost, self.params, optimizer)

    def step_of(self, values):
        """The k such that ``values`` are the parameters after k steps, or None."""
        for k, ref in enumerate(self.reference):
            if all(np.array_equal(values[n], ref[n]) for n in ref):
                return k
        return None


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return Run(tmp_path_factory.mktemp("interrupts"))


def _variant(i, tmp_path):
    """The arguments of trial ``i``: no handler; a handler reading costs and a progress
    bar; checkpoints every 2 batches."""
    kind = i % 3
    if kind == 0:
        return {}
    if kind == 1:
        costs = []

        def handler(event):
            if isinstance(event, paddle.event.EndIteration):
                costs.append(event.cost)

        return {"event_handler": [handler, paddle.event.progress(file=io.StringIO())]}
    return {"checkpoint_dir": str(tmp_path / f"ck{i}"), "checkpoint_every": 2}


class OpcodeAlarm:
    """Sends SIGINT right after the ``at``-th opcode the library's own frames execute.

    A trace function cannot raise the signal itself: Python would run the handler inside
    the trace function and the exception would come out at that opcode, where a real
    signal never lands (Python runs handlers only at calls, returns and loops). So it
    arms a 20 microsecond timer whose SIGALRM handler raises SIGINT: both handlers run
    where a real signal's would, a few opcodes later.
    """

    def __init__(self, at):
        self.at, self.seen, self.fired = at, 0, False

    def __call__(self, frame, event, arg):
        if self.fired or not frame.f_code.co_filename.startswith(LIBRARY):
            return None
        frame.f_trace_opcodes = True
        return self._local

    def _local(self, frame, event, arg):
        if self.fired:
            return None
        if event == "opcode":
            self.seen += 1
            if self.seen == self.at:
                self.fired = True
                sys.settrace(None)
                signal.setitimer(signal.ITIMER_REAL, 20e-6)
        return self._local


ALARM_RAN = threading.Event()  # the SIGALRM handler ran (and raised SIGINT)


def _raise_sigint(*_):
    ALARM_RAN.set()
    signal.raise_signal(signal.SIGINT)


@pytest.fixture(autouse=True)
def _alarm_raises_sigint():
    previous = signal.signal(signal.SIGALRM, _raise_sigint)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def _interrupted_train(run, trainer, kwargs, alarm=None, delay=None):
    """Train with a SIGINT coming; returns what train() raised (None if it ended first)."""
    timer = threading.Timer(delay, signal.raise_signal, (signal.SIGINT,)) if delay else None
    raised = None
    ALARM_RAN.clear()
    try:
        try:
            if timer is not None:
                timer.start()
            if alarm is not None:
                sys.settrace(alarm)
            trainer.train(_reader(run.batches), num_passes=1, **kwargs)
        finally:
            sys.settrace(None)  # (a signal may land here too, as train() returns)
    except KeyboardInterrupt as err:
        raised = err
    try:  # a signal that comes after train() returned
        if timer is not None:
            timer.join()
        deadline = time.monotonic() + 10  # a busy machine may deliver the alarm late
        while alarm is not None and alarm.fired and not ALARM_RAN.is_set():
            assert time.monotonic() < deadline, "the alarm never came"
            time.sleep(0.0005)
    except KeyboardInterrupt:
        pass
    return raised


def _check_after(run, trainer, raised, kwargs):
    """The checks after each interrupt; returns the step the interrupt left."""
    values = run.params.values()
    assert all(np.isfinite(v).all() for v in values.values())
    k = run.step_of(values)
    assert k is not None, "the parameters are not those after any whole step"
    if raised is None:
        assert k == BATCHES
    out = paddle.infer(output_layer=run.predict, parameters=run.params, input=run.sample())
    assert np.isfinite(out).all() and out.shape == (1, 3)
    assert not folder_lock._HELD, "the checkpoint folder is still locked"
    before = COMPILES.count
    if k < BATCHES:
        trainer.train(_reader(run.batches[k:]), num_passes=1)
    continued = COMPILES.count - before
    final = run.params.values()
    for name, want in run.reference[-1].items():
        np.testing.assert_array_equal(final[name], want, err_msg=f"{name} after step {k}")
    return k, continued


def _opcode_count(run, trainer, kwargs):
    alarm = OpcodeAlarm(at=-1)
    trainer.load_checkpoint(run.start)
    _interrupted_train(run, trainer, kwargs, alarm=alarm)
    return alarm.seen


def test_sigint_at_random_opcodes_of_a_warm_trainer(run, fault, tmp_path):
    fault.case(
        "interrupts (Ctrl-C)",
        "SIGINT at 120 random opcodes of a warm train() (no handler; handler and progress "
        "bar; checkpoints every 2 batches)",
        "KeyboardInterrupt; parameters finite and those after a whole step; infer works; "
        "training on ends bit-identical; nothing compiled",
    )
    trainer = run.trainer
    totals = [_opcode_count(run, trainer, _variant(v, tmp_path / "count")) for v in range(3)]
    rng = random.Random(0)
    steps, compiled, interrupted = [], 0, 0
    for i in range(120):
        kwargs = _variant(i, tmp_path)
        trainer.load_checkpoint(run.start)
        before = COMPILES.count
        alarm = OpcodeAlarm(at=rng.randrange(1, totals[i % 3]))
        raised = _interrupted_train(run, trainer, kwargs, alarm=alarm)
        assert alarm.fired
        k, continued = _check_after(run, trainer, raised, kwargs)
        steps.append(k)
        interrupted += raised is not None
        compiled += COMPILES.count - before
    assert compiled == 0, COMPILES.names[-compiled:]
    assert interrupted >= 110 and len(set(steps)) >= 5, (interrupted, steps)
    fault.observed(
        f"120 signals, {interrupted} during train() (the rest came as it returned): "
        f"KeyboardInterrupt, the state after steps {sorted(set(steps))}; every "
        "continuation bit-identical; 0 compilations"
    )


class RaiseBeforeLine:
    """Raises ``KeyboardInterrupt`` at the first line of the library whose text holds
    ``text``, before that line runs: a signal landing just there."""

    def __init__(self, text):
        self.text, self.fired = text, False

    def __call__(self, frame, event, arg):
        if self.fired or not frame.f_code.co_filename.startswith(LIBRARY):
            return None
        return self._line

    def _line(self, frame, event, arg):
        if event == "line" and not self.fired:
            with open(frame.f_code.co_filename) as source:
                line = source.readlines()[frame.f_lineno - 1]
            if self.text in line:
                self.fired = True
                raise KeyboardInterrupt
        return self._line


@pytest.mark.parametrize("batch", [0, 3])
def test_an_interrupt_just_before_a_warm_step_keeps_its_compiled_program(run, batch):
    trainer = run.trainer
    trainer.load_checkpoint(run.start)
    if batch:
        trainer.train(_reader(run.batches[:batch]), num_passes=1)
    before = COMPILES.count
    alarm = RaiseBeforeLine("= run(held.leaves")  # the step's call, before it donates
    with pytest.raises(KeyboardInterrupt):
        sys.settrace(alarm)
        try:
            trainer.train(_reader(run.batches[batch:]), num_passes=1)
        finally:
            sys.settrace(None)
    assert alarm.fired
    assert run.step_of(run.params.values()) == batch
    trainer.train(_reader(run.batches[batch:]), num_passes=1)
    assert run.step_of(run.params.values()) == BATCHES
    assert COMPILES.count == before, COMPILES.names[before:]


class SignalBeforeLine(RaiseBeforeLine):
    """Sends SIGINT at the first line of the library whose text holds ``text``, before
    that line runs: the handler then in place runs at once, as a real signal's would."""

    def _line(self, frame, event, arg):
        if event == "line" and not self.fired:
            with open(frame.f_code.co_filename) as source:
                line = source.readlines()[frame.f_lineno - 1]
            if self.text in line:
                self.fired = True
                signal.raise_signal(signal.SIGINT)
        return self._line


def test_a_ctrl_c_as_train_lets_go_of_the_signals_leaves_no_handler_behind(run):
    trainer = run.trainer
    trainer.load_checkpoint(run.start)
    alarm = SignalBeforeLine("if signal.getsignal(signal.SIGINT) == self._on_sigint")
    with pytest.raises(KeyboardInterrupt):
        sys.settrace(alarm)
        try:
            trainer.train(_reader(run.batches), num_passes=1)
        finally:
            sys.settrace(None)
    assert alarm.fired
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert run.step_of(run.params.values()) == BATCHES  # it came after the last step
    trainer.load_checkpoint(run.start)  # and the trainer trains on as before
    trainer.train(_reader(run.batches), num_passes=1)
    assert run.step_of(run.params.values()) == BATCHES


def test_an_interrupt_while_the_step_traces_compiles_it_once_more_and_says_so(run):
    trainer = run.new_trainer()
    trainer.load_checkpoint(run.start)
    alarm = RaiseBeforeLine("state, outs = train_run(state, batches)")  # only while tracing
    said = []

    def handler(event):
        said.append(type(event).__name__)

    with pytest.raises(KeyboardInterrupt):
        sys.settrace(alarm)
        try:
            trainer.train(_reader(run.batches), num_passes=1, event_handler=handler)
        finally:
            sys.settrace(None)
    assert alarm.fired and run.step_of(run.params.values()) == 0
    assert said.count("Compiling") == 1
    before = COMPILES.count
    trainer.train(_reader(run.batches), num_passes=1, event_handler=handler)
    assert said.count("Compiling") == 2  # the progress bar shows the compile it waits for
    assert COMPILES.count - before <= run.cold_compiles
    assert run.step_of(run.params.values()) == BATCHES
    again = COMPILES.count
    trainer.load_checkpoint(run.start)
    trainer.train(_reader(run.batches), num_passes=1)
    assert COMPILES.count == again, COMPILES.names[again:]


def test_sigint_at_random_times_of_cold_and_warm_trainers(run, fault, tmp_path):
    fault.case(
        "interrupts (Ctrl-C)",
        "SIGINT from a timer at a random time of train(), 20 new trainers (tracing and "
        "compiling) and 40 warm ones",
        "KeyboardInterrupt; parameters those after a whole step; infer works; training on "
        "ends bit-identical; later calls compile nothing, nothing compiles twice",
    )
    rng = random.Random(1)
    outcomes = {"interrupted": 0, "finished first": 0}
    for i in range(60):
        cold = i < 20
        trainer = run.new_trainer() if cold else run.trainer
        trainer.load_checkpoint(run.start)
        kwargs = _variant(i, tmp_path)
        before = COMPILES.count
        delay = rng.uniform(0.0005, 0.4 if cold else run.warm_seconds)
        raised = _interrupted_train(run, trainer, kwargs, delay=delay)
        outcomes["interrupted" if raised is not None else "finished first"] += 1
        _check_after(run, trainer, raised, kwargs)
        # a compile the interrupt cut short may run once more; nothing else compiles again
        compiled = COMPILES.count - before
        assert compiled <= (run.cold_compiles + 1 if cold else 0), COMPILES.names[-compiled:]
        trainer.load_checkpoint(run.start)
        again = COMPILES.count
        trainer.train(_reader(run.batches), num_passes=1)
        assert COMPILES.count == again, ("a later train() compiled", COMPILES.names[again:])
    assert outcomes["interrupted"] >= 15, outcomes  # (a busy machine slows the runs down)
    fault.observed(f"60 runs: {outcomes}; every check held")
