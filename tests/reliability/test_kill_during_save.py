"""A process killed (SIGKILL) in the middle of a save leaves the previous file intact.

One harness process (``_kill_writer.py``) saves version 1 of each kind of file the library
writes, then kills a child in the middle of saving version 2 over it. Here each file must
still hold exactly version 1 and load as such; the control case, a plain non-atomic write
killed the same way, must be damaged (otherwise the harness would prove nothing).
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.readers.recordio import read_samples
from paddle_lite._src.topology import load_inference_topology

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import _kill_writer  # noqa: E402

WRITERS = {
    "tar": "Parameters.to_tar(path)",
    "npz": "Parameters.save_npz(path)",
    "topology": "Topology.serialize(path)",
    "inference": "Topology.serialize_for_inference(path)",
    "recordio": "reader.creator.write_recordio(path, reader)",
    "plot": "plot.Ploter.plot(path)",
    "shards": "dataset.common.convert(folder, reader, ...)",
}
CASES = [f"{w}:write" for w in WRITERS] + ["tar:rename", "recordio:rename", "control:write"]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks (POSIX only)")


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """``{case: result}`` of one harness run over every case."""
    workdir = tmp_path_factory.mktemp("kill")
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    env["MPLBACKEND"] = "Agg"
    run = subprocess.run(
        [sys.executable, str(HERE / "_kill_writer.py"), str(workdir), *CASES],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = [json.loads(line) for line in run.stdout.splitlines()]
    return {r["case"]: r for r in results}


def _loads_as_version_1(case, path):
    """Load the file with the library's own reader; check it holds version 1."""
    if case == "tar":
        params = paddle.parameters.Parameters.from_tar(path)
        np.testing.assert_array_equal(params.get("w2"), np.full((64, 32), 12.0, np.float32))
    elif case == "npz":
        params = paddle.parameters.Parameters.load_npz(path)
        np.testing.assert_array_equal(params.get("w0"), np.full((64, 32), 10.0, np.float32))
    elif case == "topology":
        topo = paddle.topology.Topology.deserialize(pathlib.Path(path))
        assert [layer.name for layer in topo.outputs] == ["out1"]
    elif case == "inference":
        topo = load_inference_topology(pathlib.Path(path))
        assert topo.outputs[0].size == 5
    elif case in ("recordio", "shards"):
        read = read_samples if case == "recordio" else paddle.dataset.common.converted_reader
        samples = list(read(path)) if case == "recordio" else list(read([path])())
        assert len(samples) == 40 and samples[0][1] == "v1"
    elif case == "plot":
        assert pathlib.Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("case", [c for c in CASES if not c.startswith("control")])
def test_previous_file_survives_a_kill(killed, case, fault):
    writer, point = case.split(":")
    moment = "half-way through writing" if point == "write" else "after writing, before renaming"
    fault.case(
        "files (atomic writes)",
        f"SIGKILL {moment} {WRITERS[writer]} over an existing file",
        "the previous file is intact and loads",
    )
    result = killed[f"{writer}-{point}"]
    assert result["signal"] == 9, result  # the child really died by SIGKILL mid-save
    path = pathlib.Path(result["path"])
    assert path.read_bytes() == (path.parent / "expected.bin").read_bytes()
    _loads_as_version_1(writer, str(path))
    leftovers = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) == 1 and leftovers[0].name.startswith(f".{path.name}.")
    size = leftovers[0].stat().st_size
    _kill_writer.write(writer, str(path), 1)  # the next save of the same file
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    fault.observed(
        f"file unchanged ({path.stat().st_size} bytes) and loads; the killed save left only "
        f"a hidden temporary file ({size} bytes), which the next save removed"
    )


def test_the_harness_damages_a_plain_write(killed):
    result = killed["control-write"]
    path = pathlib.Path(result["path"])
    assert result["signal"] == 9
    assert path.read_bytes() != (path.parent / "expected.bin").read_bytes()
    # its zeros read as a whole tar of no parameter (the end-of-archive blocks), as in v2
    assert paddle.parameters.Parameters.from_tar(str(path)).names() == []
