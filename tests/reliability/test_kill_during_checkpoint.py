"""A checkpoint save killed before any of its filesystem calls loses nothing.

``_kill_checkpoint.py`` stops a child process (``os._exit``: no cleanup runs, as with
SIGKILL) just before each filesystem call of a save over an existing checkpoint and of a
first save into an empty folder, with the atomic exchange and with the fallback of two
renames. Here, for every stop: the name still resolves to a whole checkpoint (the old one
or the new one, every value bit-identical, the manifest verified) once one was ever
completed there; a first save killed before it completed leaves "no checkpoint"; and the
next save leaves no hidden folder behind.
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from paddle_lite._src.training import checkpoints
from paddle_lite.errors import CheckpointError

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _kill_checkpoint as harness  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks (POSIX only)")


def _runs(workdir, mode):
    path = os.pathsep.join([str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, str(HERE / "_kill_checkpoint.py"), str(workdir), mode],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=path, JAX_PLATFORMS="cpu"),
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return [json.loads(line) for line in run.stdout.splitlines()]


def _version_loaded(path):
    """The version the checkpoint under ``path`` holds (None when there is none)."""
    found = checkpoints.latest(path)
    if found is None:
        return None
    params, arrays, meta = checkpoints.load(found)
    v = meta["pass_id"]
    want_params, want_arrays, _ = harness.version(v)
    for name in want_params.names():
        np.testing.assert_array_equal(params.get(name), want_params.get(name))
    for name, value in want_arrays.items():
        np.testing.assert_array_equal(arrays[name], value)
    return v


@pytest.mark.parametrize("mode", ["exchange", "renames"])
def test_a_save_killed_before_any_filesystem_call_loses_nothing(tmp_path, mode, fault):
    runs = _runs(tmp_path, mode)
    replaced = [r for r in runs if r["kind"] == "replace"]
    how = "the atomic exchange" if mode == "exchange" else "two renames (no exchange)"
    fault.case(
        "checkpoints (crash-safe replacement)",
        f"save_checkpoint over a checkpoint, with {how}, killed before each of its "
        f"{len(replaced) - 1} filesystem calls; the same for a first save",
        "the name always holds the old or the new checkpoint, whole; a first save killed "
        "early leaves none; the next save removes what the killed one left",
    )
    seen = {"replace": {}, "first": {}}
    for run in runs:
        got = _version_loaded(run["path"])
        if run["kind"] == "replace":
            assert got in (1, 2), run
            assert run["exit"] != 0 or got == 2, run
        else:
            assert got in (None, 1), run
            assert run["exit"] != 0 or got == 1, run
        seen[run["kind"]].setdefault(got, []).append(run["k"])
        harness.save(run["path"], 3)
        assert _version_loaded(run["path"]) == 3
        assert os.listdir(os.path.dirname(run["path"])) == ["ck"], run
    assert set(seen["replace"]) == {1, 2} and set(seen["first"]) == {None, 1}
    fault.observed(
        f"replace: old checkpoint loaded after stops {seen['replace'][1]}, new after "
        f"{seen['replace'][2]}, never none; first save: none after {seen['first'][None]}, "
        f"the checkpoint after {seen['first'][1]}; no hidden folder left by the next save"
    )


def test_a_damaged_checkpoint_file_is_refused_naming_it(tmp_path, fault):
    path = str(tmp_path / "ck")
    harness.save(path, 1)
    fault.case(
        "checkpoints (crash-safe replacement)",
        "one byte of state.npz changed in a saved checkpoint",
        "CheckpointError naming the checkpoint and the file (manifest sha256)",
    )
    target = tmp_path / "ck" / checkpoints.ARRAYS
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"ck.*state\.npz.*sha256") as info:
        checkpoints.load(path)
    fault.observed(info.value)
    target.write_bytes(bytes(data[:-10]))
    with pytest.raises(CheckpointError, match=r"state\.npz.*bytes; the manifest says"):
        checkpoints.load(path)
