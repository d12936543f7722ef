"""Each process of a job reads only its rows of a seekable reader; a checkpoint resumes
on any process count.

``tests/unit/scripts/sharded_input.py`` trains over ``paddle.batch(shuffle(map_readers(
sample, np_array(range(200))), seed=7), 16)`` and records the samples each process
reads. With N processes each reads about 200 / N samples a pass (the rows of a 16-row
batch split N ways; the last batch, of 8, is padded to 16 with rows of weight 0 that
repeat real ones, so a process may read up to one batch more), the processes together
read every sample of a pass, and the parameters equal one process's up to float
reduction order (1e-5). A checkpoint taken by 2 processes resumes on 1 and on 3.
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "sharded_input.py"
ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
TOTAL, BATCH = 200, 16


def _run(out, *args, nproc=None, code=0):
    launch = [] if nproc is None else ["-m", "paddle_lite.launch", "--nproc", str(nproc)]
    done = subprocess.run(
        [sys.executable, *launch, str(SCRIPT), str(out), *map(str, args)],
        env=ENV, capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == code, done.stdout.decode()[-3000:] + done.stderr.decode()[-3000:]
    return done


def _reads(out, nproc):
    return [json.loads(pathlib.Path(f"{out}.reads.{r}.json").read_text()) for r in range(nproc)]


def _load(path):
    with np.load(path) as f:
        return {n: f[n] for n in f.files}


def _close(got, want):
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-5, rtol=0, err_msg=name)


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    """One process, dense and sequence inputs: parameters and reads."""
    tmp = tmp_path_factory.mktemp("one")
    _run(tmp / "dense")
    _run(tmp / "seq", "--seq")
    return {"dense": _load(tmp / "dense.npz"), "sequence": _load(tmp / "seq.npz")}


@pytest.mark.parametrize(
    "nproc, seq", [(2, False), (2, True), pytest.param(3, False, marks=pytest.mark.slow)]
)
def test_each_process_reads_its_share(one, tmp_path, fault, nproc, seq):
    kind = "sequence" if seq else "dense"
    fault.case(
        "sharded input",
        f"{nproc} processes over a seekable reader of 200 {kind} samples, batches of 16",
        "each reads about 200/N a pass (at most one batch more), together all of them; "
        "parameters within 1e-5 of one process",
    )
    out = tmp_path / "run"
    _run(out, *(["--seq"] if seq else []), nproc=nproc)
    reads = _reads(out, nproc)
    per_pass = []
    for p in range(2):
        counts = [len(r["passes"][p]) for r in reads]
        assert all(TOTAL / nproc <= c <= TOTAL / nproc + BATCH for c in counts), counts
        assert set().union(*(r["passes"][p] for r in reads)) == set(range(TOTAL))
        per_pass.append(counts)
    _close(_load(f"{out}.npz"), one[kind])
    fault.observed(f"samples read per process in each pass: {per_pass}; parameters equal")


@pytest.mark.parametrize("nproc", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_a_two_process_checkpoint_resumes_on_another_count(one, tmp_path, fault, nproc):
    fault.case(
        "sharded input",
        f"2 processes checkpointing every 3 batches stop after pass 0, batch 9; the job "
        f"resumes on {nproc}",
        "the resumed run reads no sample before the checkpoint's and ends within 1e-5 of an "
        "uninterrupted run",
    )
    ckpt = tmp_path / "ck"
    _run(tmp_path / "stopped", "--ckpt", ckpt, "--stop-at", 0, 9, nproc=2, code=3)
    out = tmp_path / "resumed"
    _run(out, "--ckpt", ckpt, nproc=nproc)
    reads = _reads(out, nproc)
    # resumed at batch 9 (the checkpoint after 9 batches): pass 0 read only the 200 - 144
    # samples after it, and before its first step no process read more than those (a
    # process reads a window of batches ahead to agree on padded lengths)
    assert all(r["first_step"] <= TOTAL - 9 * BATCH for r in reads)
    assert len(set().union(*(r["passes"][0] for r in reads))) == TOTAL - 9 * BATCH
    _close(_load(f"{out}.npz"), one["dense"])
    fault.observed(
        f"resumed on {nproc}: first step after {[r['first_step'] for r in reads]} samples "
        "read; parameters equal the uninterrupted run's"
    )
