"""Checkpoints of multi-process jobs: a killed rank restarts from them, a SIGTERM writes one.

The job is ``tests/unit/scripts/mp_checkpointed.py`` (a 20-32-4 MLP, 512 rows, batches of
64, 2 passes, a checkpoint every 3 batches) under ``python -m paddle_lite.launch``. Every
host read of the device state is local to a process (nothing puts values on the mesh or
computes over it), so process 0 writing the files never leaves a collective half-joined.
A job of N processes resumed from its checkpoints ends bit-identical to an uninterrupted
job of N processes (the same reduction order), and within float tolerance of one process.
"""

import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "mp_checkpointed.py"
ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
ALL_BATCHES = [(p, b) for p in range(2) for b in range(8)]


def _start(log, *args, nproc=None, restarts=0):
    launch = [] if nproc is None else ["-m", "paddle_lite.launch", "--nproc", str(nproc)]
    launch += ["--max-restarts", str(restarts)] if restarts else []
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, *launch, str(SCRIPT), *map(str, args)],
            env=ENV, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip


def _finish(proc, log, code=0):
    assert proc.wait(timeout=300) == code, pathlib.Path(log).read_text()[-4000:]


def _load(path):
    with np.load(path) as f:
        return {n: f[n] for n in f.files}


def _trained(log):
    return [tuple(map(int, line.split())) for line in pathlib.Path(log).read_text().splitlines()]


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """The final parameters of an uninterrupted run of 1 and of 2 processes."""
    tmp = tmp_path_factory.mktemp("mp")
    one = _start(tmp / "one.log", tmp / "ck1", tmp / "one")
    two = _start(tmp / "two.log", tmp / "ck2", tmp / "two", nproc=2)
    _finish(one, tmp / "one.log")
    _finish(two, tmp / "two.log")
    return _load(tmp / "one.npz"), _load(tmp / "two.npz")


def _assert_runs_equal(got, references, nproc):
    one, two = references
    for name in one:
        np.testing.assert_allclose(got[name], one[name], atol=1e-5, rtol=0, err_msg=name)
        if nproc == 2:
            np.testing.assert_array_equal(got[name], two[name], err_msg=name)


@pytest.mark.parametrize("nproc", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_a_rank_killed_mid_pass_restarts_from_the_checkpoint(references, tmp_path, fault, nproc):
    fault.case(
        "multi-process checkpoints",
        f"{nproc} processes training with checkpoint_dir (every 3 batches); rank 1 "
        "SIGKILLed after pass 0, batch 4; --max-restarts 1",
        "checkpoints are written (no collective left half-joined); the restarted job resumes "
        f"and ends {'bit-identical to 2 processes uninterrupted, ' if nproc == 2 else ''}"
        "within 1e-5 of one process",
    )
    log = tmp_path / "job.log"
    marker = tmp_path / "killed"
    job = _start(log, tmp_path / "ck", tmp_path / "got", "--kill", 1, 0, 4, marker,
                 nproc=nproc, restarts=1)  # fmt: skip
    _finish(job, log)
    text = log.read_text()
    assert marker.exists() and "rank 1 failed first (exit code -9)" in text
    _assert_runs_equal(_load(tmp_path / "got.npz"), references, nproc)
    fault.observed("rank 1 killed, the job restarted from its checkpoint and ended as expected")


def test_sigterm_to_the_launcher_checkpoints_every_process(references, tmp_path, fault):
    fault.case(
        "multi-process checkpoints",
        "SIGTERM to the launcher of 2 processes training with checkpoint_dir, mid-pass; "
        "the job is started again",
        "every process stops after the same step, process 0 writes a checkpoint, the launcher "
        "ends by SIGTERM; the second start ends bit-identical, no batch trained twice",
    )
    log, trained = tmp_path / "job.log", tmp_path / "trained.log"
    job = _start(log, tmp_path / "ck", tmp_path / "never", "--slow", 0.1, "--log", trained,
                 nproc=2)  # fmt: skip
    deadline = time.time() + 120
    while len(_trained(trained) if trained.exists() else []) < 5:
        assert job.poll() is None and time.time() < deadline, log.read_text()[-4000:]
        time.sleep(0.02)
    job.send_signal(signal.SIGTERM)
    _finish(job, log, code=-signal.SIGTERM)
    first = _trained(trained)
    again = _start(tmp_path / "again.log", tmp_path / "ck", tmp_path / "got", "--log", trained,
                   nproc=2)  # fmt: skip
    _finish(again, tmp_path / "again.log")
    assert _trained(trained) == ALL_BATCHES  # each batch once, in order
    _assert_runs_equal(_load(tmp_path / "got.npz"), references, 2)
    fault.observed(
        f"stopped after {len(first)} batches with a checkpoint; the second start trained the "
        "rest once and ended bit-identical"
    )
