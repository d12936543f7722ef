"""paddle.event.progress(): the exact text in a terminal, in a log file and in a saved
notebook; the pass-end cost is History's; a compile is shown as compiling, never as a
rate; a sized reader gives the batch total from the first pass."""

import importlib.util
import io
import os
import pathlib
import re

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.display import progress as progress_module

L, DT, A, EV = paddle.layer, paddle.data_type, paddle.activation, paddle.event
RNG = np.random.default_rng(0)
SAMPLES = [(RNG.normal(size=4).astype(np.float32), int(RNG.integers(3))) for _ in range(20)]


class Terminal(io.StringIO):
    """A StringIO that says it is a terminal, as a console's stderr does."""

    def isatty(self):
        return True


def _trainer():
    x = L.data(name="x", type=DT.dense_vector(4))
    lbl = L.data(name="lbl", type=DT.integer_value(3))
    cost = L.classification_cost(input=L.fc(input=x, size=3, act=A.Softmax()), label=lbl)
    params = paddle.parameters.create(cost)
    return paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))


def _sized_batches():
    """Batches of 8, 8 and 4 from a reader with a len(): paddle.batch knows there are 3."""
    rows = paddle.reader.creator.np_array(np.arange(len(SAMPLES)))
    return paddle.batch(paddle.reader.map_readers(lambda i: SAMPLES[i], rows), 8)


def _frames(text):
    """Each pass's line as the frames drawn over it (split at the carriage returns)."""
    return [[f for f in line.split("\r") if f] for line in text.split("\n") if line]


def _masked(frame):
    """A frame with tqdm's clock (mm:ss) read as T; rates are left as they are."""
    return re.sub(r"\d\d:\d\d", "T", frame).rstrip()


class FakeClock:
    def __init__(self, monkeypatch):
        self.now = 0.0
        monkeypatch.setattr(progress_module, "_now", lambda: self.now)


def _pass_events(handler, clock, times, cost=2.0, pass_id=0, batches=3, num_passes=1):
    """Feed one pass of hand-built events; ``times[i]`` is when batch i ends, and the
    first batch compiles from time 0."""
    clock.now = 0.0
    handler(EV.BeginTraining(num_passes))
    handler(EV.BeginPass(pass_id, num_passes, batches))
    handler(EV.Compiling(pass_id, 0))
    for batch_id, t in enumerate(times):
        clock.now = t
        metrics = {"classification_error_evaluator": 0.5}
        handler(EV.EndIteration(pass_id, batch_id, cost=cost, evaluator=metrics))
    handler(EV.EndPass(pass_id, evaluator={"classification_error_evaluator": 0.25}, cost=1.75))
    handler(EV.EndTraining())


def test_terminal_bar_rate_and_eta_leave_the_compile_out(monkeypatch):
    clock, out = FakeClock(monkeypatch), Terminal()
    # batch 0 compiles for 5 s, batches 1 and 2 take 0.5 s each: 2 batches/s, not 0.5
    _pass_events(EV.progress(every=1, file=out), clock, [5.0, 5.5, 6.0])
    (frames,) = _frames(out.getvalue())
    assert [_masked(f) for f in frames] == [
        "pass 1/1:   0%|          | 0/3 [T<?, ?batch/s]",
        "pass 1/1 compiling…:   0%|          | 0/3 [T<?, ?batch/s]",
        # the pass end: EndPass's cost (History's), not the running mean of the batches' 2.0
        "pass 1/1: 100%|##########| 3/3 [T<T,  2.00batch/s, cost=1.75, classification_error=0.25]",
    ]


def test_log_file_gets_one_line_per_pass_and_per_n_batches(monkeypatch):
    clock, out = FakeClock(monkeypatch), io.StringIO()
    handler = EV.progress(every=1, file=out, log_every=1)
    _pass_events(handler, clock, [5.0, 5.5, 6.0, 6.5], batches=4)
    assert out.getvalue() == (
        "pass 1/1: 1/4 batches in 5.00s, cost 2\n"  # right after the compile: no ETA
        "pass 1/1: 2/4 batches in 5.50s, ETA 1.00s, cost 2\n"  # 2 batches/s from here
        "pass 1/1: 3/4 batches in 6.00s, ETA 0.50s, cost 2\n"
        "pass 1/1: 4/4 batches in 6.50s (compiling 5.00s), cost 1.75, classification_error 0.25\n"
    )
    out = io.StringIO()
    _pass_events(EV.progress(file=out, log_every=2), clock, [5.0, 5.5, 6.0, 6.5], batches=4)
    assert out.getvalue().splitlines()[0] == "pass 1/1: 2/4 batches in 5.50s, ETA 1.00s, cost 2"


def test_a_first_pass_without_a_length_says_counting(monkeypatch):
    FakeClock(monkeypatch)
    out = Terminal()
    handler = EV.progress(every=1, file=out)
    handler(EV.BeginPass(0, 2, None))
    handler(EV.EndIteration(0, 0, cost=2.0, evaluator={}))
    handler(EV.EndPass(0, cost=2.0))
    assert [_masked(f) for f in _frames(out.getvalue())[0]] == [
        "pass 1/2: 0 batches, counting [T]",
        "pass 1/2: 1 batches, counting [T, cost=2]",
    ]
    lines = io.StringIO()
    handler = EV.progress(file=lines)
    handler(EV.BeginPass(0, 2, None))
    handler(EV.EndIteration(0, 0, cost=2.0, evaluator={}))
    handler(EV.EndPass(0, cost=2.0))
    assert re.fullmatch(r"pass 1/2: 1 batches in \d\.\d\ds, cost 2\n", lines.getvalue())


def test_real_training_in_a_terminal_shows_history_cost_and_the_total_from_pass_1():
    out = Terminal()
    history = _trainer().train(
        _sized_batches(), num_passes=2, event_handler=EV.progress(every=1, file=out)
    )
    passes = _frames(out.getvalue())
    assert len(passes) == 2 and passes[0][0].startswith("pass 1/2:   0%|          | 0/3 [")
    assert _masked(passes[0][1]) == "pass 1/2 compiling…:   0%|          | 0/3 [T<?, ?batch/s]"
    for pass_id, frames in enumerate(passes):
        record = history[pass_id]
        error = record.metrics["classification_error_evaluator"]
        want = (
            rf"pass {pass_id + 1}/2: 100%\|##########\| 3/3 \[T<T, +[\d.]+batch/s, "
            rf"cost={record.cost:.6g}, classification_error={error:.4g}\]"
        )
        assert re.fullmatch(want, _masked(frames[-1])), frames[-1]
    assert "compiling" not in "".join(passes[1])  # pass 2 reuses the compiled step


def test_real_training_to_a_file_prints_plain_lines_with_history_cost():
    out = io.StringIO()
    history = _trainer().train(
        paddle.batch(lambda: iter(SAMPLES), 8), num_passes=2, event_handler=EV.progress(file=out)
    )
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 2
    for pass_id, line in enumerate(lines):
        record = history[pass_id]
        error = record.metrics["classification_error_evaluator"]
        batches = "3 batches" if pass_id == 0 else "3/3 batches"  # pass 1 had no len()
        compiling = r" \(compiling \d+\.\d\ds\)" if pass_id == 0 else ""
        want = (
            rf"pass {pass_id + 1}/2: {batches} in \d+\.\d\ds{compiling}, "
            rf"cost {record.cost:.6g}, classification_error {error:.4g}"
        )
        assert re.fullmatch(want, line), line


def test_end_pass_carries_the_history_cost():
    seen = []
    history = _trainer().train(
        _sized_batches(),
        num_passes=2,
        event_handler=lambda e: isinstance(e, EV.EndPass) and seen.append(e.cost),
    )
    assert seen == history.cost and all(isinstance(c, float) for c in seen)
    assert EV.EndPass(0).cost is None  # built by hand, as v2 programs do: no cost


def test_bad_arguments_are_typed_errors():
    with pytest.raises(paddle.errors.ConfigError, match="style must be one of"):
        EV.progress(style="fancy")
    with pytest.raises(paddle.errors.ConfigError, match="log_every must be an int >= 1"):
        EV.progress(log_every=0)
    with pytest.raises(paddle.errors.ConfigError, match="every must be an int >= 1"):
        EV.progress(every=0)


NOTEBOOK_EXTRA = ("nbclient", "nbformat", "ipykernel", "ipywidgets")
NOTEBOOK_CELLS = [
    """import numpy as np
import paddle_lite as paddle
L, DT, A = paddle.layer, paddle.data_type, paddle.activation
x = L.data(name="x", type=DT.dense_vector(4))
lbl = L.data(name="lbl", type=DT.integer_value(3))
cost = L.classification_cost(input=L.fc(input=x, size=3, act=A.Softmax()), label=lbl)
trainer = paddle.trainer.SGD(
    cost, paddle.parameters.create(cost), paddle.optimizer.Momentum(learning_rate=0.1)
)
rng = np.random.default_rng(0)
samples = [(rng.normal(size=4).astype(np.float32), int(rng.integers(3))) for _ in range(20)]
rows = paddle.reader.creator.np_array(np.arange(20))
reader = paddle.batch(paddle.reader.map_readers(lambda i: samples[i], rows), 8)""",
    "history = trainer.train(reader, num_passes=2, event_handler=paddle.event.progress(every=1))",
    "error = history.metrics[-1]['classification_error_evaluator']\n"
    "print(f'cost={history.cost[-1]:.6g}, classification_error={error:.4g}')",
]


@pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in NOTEBOOK_EXTRA),
    reason="the notebook extra is not installed: pip install -e '.[notebook]'",
)
def test_a_saved_notebook_keeps_the_bar_final_state(tmp_path, monkeypatch):
    import nbclient
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    root = str(pathlib.Path(__file__).resolve().parents[3])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    resources = {"metadata": {"path": str(tmp_path)}}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, resources=resources).execute()
    (shown,) = nb.cells[1].outputs  # one widget, nothing else
    assert "application/vnd.jupyter.widget-view+json" in shown["data"]
    ended = nb.cells[2].outputs[0]["text"].strip()  # History's cost and metric, as shown
    want = r"pass 2/2: 100%\|##########\| 3/3 \[T<T, +[\d.]+batch/s, " + re.escape(ended) + r"\]"
    assert re.fullmatch(want, _masked(shown["data"]["text/plain"])), shown["data"]["text/plain"]
