"""Synchronous multi-process training on ``cloud_reader``, against a real etcd on 127.0.0.1.

v2's master hands each trainer its own tasks, so the processes read different samples and
not the same number of them; each process's batch is its rows of the global batch and a
process whose tasks have run out feeds rows of weight 0 (``training/own_shares.py``), so
the processes run the same steps. The data sets: 3 files of 7, 10 and 13 records in chunks
of 3 (tasks of 2 chunks: 6 tasks of 1 to 6 records), and one file of 3 records: one task,
so one process gets none and trains on rows of weight 0 made from the other's batch.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest
from etcd_server import shared_etcd  # noqa: F401  (a fixture)

from paddle_lite._src.readers.recordio_v2 import write_recordio_v2
from paddle_lite._src.training import checkpoints

SCRIPT = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "cloud_training.py"


def _dataset(folder, sizes):
    folder.mkdir()
    ident = 0
    for f, size in enumerate(sizes):
        rows = []
        for _ in range(size):
            rows.append((ident, [ident % 3 * 0.5, 1.0, -0.5, ident % 2], ident % 2))
            ident += 1
        write_recordio_v2(folder / f"part-{f}", lambda r=rows: iter(r), max_chunk_size=3 * 40)
    return str(folder / "part-*")


def _launch(out, etcd, pattern, prefix, *extra, code=0):
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-m", "paddle_lite.launch", "--nproc", "2", str(SCRIPT),
         etcd.endpoint, pattern, prefix, str(out), *map(str, extra)],
        env=env, capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == code, done.stdout.decode()[-4000:]
    return [json.loads(pathlib.Path(f"{out}.{r}.json").read_text()) for r in range(2)]


@pytest.mark.parametrize("sizes", [(7, 10, 13), (3,)], ids=["6 tasks", "1 task"])
def test_two_processes_train_on_their_own_tasks(shared_etcd, tmp_path, fault, sizes):  # noqa: F811
    fault.case(
        "cloud_reader (several processes)",
        f"2 processes train 2 passes on cloud_reader over files of {list(sizes)} records "
        "(tasks of 2 chunks of 3)",
        "the same steps on both, each record trained once a pass (by one of them), History "
        "counts every record",
    )
    pattern = _dataset(tmp_path / "data", sizes)
    prefix = f"/test/cloud_training/{len(sizes)}/"
    ranks = _launch(tmp_path / "run", shared_etcd, pattern, prefix)
    total = sum(sizes)
    assert ranks[0]["steps"] == ranks[1]["steps"]
    for p in range(2):
        both = ranks[0]["read"][p] + ranks[1]["read"][p]
        assert sorted(both) == list(range(total)), p  # each once, by one process
    assert all(r["finite"] and r["samples"] == [total, total] for r in ranks)
    fault.observed(
        f"both ran {ranks[0]['steps']} steps; records read per process and pass "
        f"{[[len(r['read'][p]) for p in range(2)] for r in ranks]}; History {ranks[0]['samples']}"
    )


def test_a_restart_from_a_checkpoint_gives_back_the_untrained_tasks(
    shared_etcd, tmp_path, fault  # noqa: F811
):
    fault.case(
        "cloud_reader (several processes)",
        "2 processes on cloud_reader, checkpointing every 2 batches, stop after pass 0, "
        "batch 2 (the master had handed out more tasks); the job starts again",
        "the checkpoint records the tasks trained; the tasks finished but not trained are "
        "given back to pass 0: every record is trained in pass 0, each once in pass 1",
    )
    sizes = (21, 30, 27)  # 13 tasks of 6 records and one of 3: 5 steps of 2 x 8 a pass
    pattern = _dataset(tmp_path / "data", sizes)
    prefix, folder = "/test/cloud_training/restart/", tmp_path / "ck"
    first = _launch(tmp_path / "first", shared_etcd, pattern, prefix, folder, 0, 2, code=3)
    _, _, meta = checkpoints.load(checkpoints.latest(str(folder)))
    assert meta["batch_id"] == 2 and meta["master"]["pass"] == 0
    again = _launch(tmp_path / "again", shared_etcd, pattern, prefix, folder, -1, -1)
    total = sum(sizes)
    given_back = [i for r in again for i in r["read"][0]]
    assert given_back  # the tasks read ahead but not trained came back to pass 0
    pass0 = [i for r in first for i in r["read"][0]] + given_back
    assert set(pass0) == set(range(total))  # nothing lost in the pass cut short
    assert sorted(i for r in again for i in r["read"][1]) == list(range(total))
    assert again[0]["steps"] == again[1]["steps"] and all(r["finite"] for r in again)
    fault.observed(
        f"pass 0: {len(pass0)} reads of {total} records over both runs (none lost; tasks "
        "read again only where their training was cut); pass 1: each record once"
    )
