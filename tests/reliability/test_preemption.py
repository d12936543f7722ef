"""SIGTERM (preemption) during train(checkpoint_dir=...): finish the step, checkpoint, exit.

The script ``tests/unit/scripts/checkpointed_training.py`` trains 3 passes, logging each
batch it trains; a test sends it SIGTERM mid-run, checks how it ended and what its last
checkpoint holds, runs it again on the same folder, and compares with an uninterrupted
run: bit-identical, and no batch trained twice.
"""

import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training import checkpoints

SCRIPT = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "checkpointed_training.py"
sys.path.insert(0, str(SCRIPT.parent))
import checkpointed_training as run  # noqa: E402

ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
ALL_BATCHES = [(p, b) for p in range(3) for b in range(8)]  # 60 samples in batches of 8


def _start(tmp_path, name, *args):
    with open(tmp_path / f"{name}.err", "wb") as err:
        return subprocess.Popen(
            [sys.executable, str(SCRIPT), *map(str, args)],
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def _trained(log):
    lines = log.read_text().split("\n") if log.exists() else []
    return [tuple(map(int, line.split())) for line in lines if line[:1].isdigit()]


def _wait_for(proc, log, lines, where, seconds=120):
    deadline = time.time() + seconds
    while len(log.read_text().splitlines() if log.exists() else []) < lines:
        assert proc.poll() is None and time.time() < deadline, where.read_text()[-3000:]
        time.sleep(0.01)


def _same(got, want):
    with np.load(got) as a, np.load(want) as b:
        assert sorted(a.files) == sorted(b.files)
        for name in b.files:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


CASES = {  # name: (log lines to wait for, extra arguments, the exit status expected)
    "mid-run, at a pass's end": (9, [], -signal.SIGTERM),  # 'begin' and 8 batches
    "while compiling the first step": (1, [], -signal.SIGTERM),  # right after BeginTraining
    "mid-pass, with its own SIGTERM handler (exits 7)": (5, ["own-handler"], 7),
}


def test_sigterm_checkpoints_then_the_rerun_resumes_exactly(tmp_path, fault):
    reference = _start(tmp_path, "reference", tmp_path / "ref", tmp_path / "want.npz")
    victims = {}
    for i, (case, (_, extra, code)) in enumerate(CASES.items()):
        fault.case(
            "preemption (SIGTERM)",
            f"SIGTERM to a train(checkpoint_dir=...) process {case}; rerun it",
            f"the step in flight finishes, a checkpoint is written, exit status {code}; the "
            "rerun ends bit-identical, no batch trained twice",
        )
        work = tmp_path / f"case{i}"
        work.mkdir()
        log = work / "trained.log"
        proc = _start(work, "victim", work / "ck", work / "never.npz", 0.05, log, *extra)
        victims[case] = (work, log, proc)
    for case, (work, log, proc) in victims.items():
        lines, extra, code = CASES[case]
        _wait_for(proc, log, lines, work / "victim.err")
        proc.send_signal(signal.SIGTERM)
    resumed, observed = {}, {}
    for case, (work, log, proc) in victims.items():
        lines, extra, code = CASES[case]
        assert proc.wait(timeout=120) == code, (work / "victim.err").read_text()[-3000:]
        first = _trained(log)
        assert first, "no batch was trained before the exit"
        if extra:
            assert log.read_text().splitlines()[-1] == "handler"
        _, _, meta = checkpoints.load(checkpoints.latest(str(work / "ck")))
        assert meta["step"] == len(first)  # the checkpoint holds every batch trained, no more
        observed[case] = f"exit status {code} after {len(first)} batches, checkpoint at that step"
        resumed[case] = _start(work, "resumed", work / "ck", work / "got.npz", 0.0, log)
    assert reference.wait(timeout=300) == 0, (tmp_path / "reference.err").read_text()[-3000:]
    for i, (case, proc) in enumerate(resumed.items()):
        work, log, _ = victims[case]
        assert proc.wait(timeout=300) == 0, (work / "resumed.err").read_text()[-3000:]
        _same(work / "got.npz", tmp_path / "want.npz")
        assert _trained(log) == ALL_BATCHES  # each batch once, in order
        fault.observed(f"{observed[case]}; rerun bit-identical, each batch trained once", row=i)


class _Preempted(Exception):
    pass


def _raise(signum, frame):
    raise _Preempted


def _trainer():
    paddle.layer.reset_names()
    paddle.init(seed=3)
    cost = run.network()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    return trainer, paddle.batch(lambda: iter(run.samples()), 8)


def test_in_process_the_users_handler_runs_after_the_checkpoint(tmp_path):
    trainer, reader = _trainer()

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 3:
            os.kill(os.getpid(), signal.SIGTERM)
            assert not checkpoints.listed(str(tmp_path))  # noticed, not obeyed inside the handler

    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        with pytest.raises(_Preempted):
            trainer.train(reader, 2, handler, checkpoint_dir=str(tmp_path))
        assert signal.getsignal(signal.SIGTERM) is _raise  # the user's handler is back
        _, _, meta = checkpoints.load(checkpoints.latest(str(tmp_path)))
        assert (meta["pass_id"], meta["batch_id"], meta["samples"]) == (0, 4, 32)
        # without checkpoint_dir a SIGTERM is the user's at once
        with pytest.raises(_Preempted):
            trainer.train(reader, 2, handler)
    finally:
        signal.signal(signal.SIGTERM, previous)
