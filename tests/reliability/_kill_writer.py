"""Kill harness: for each writer, save version 1, then SIGKILL a process in the middle of
saving version 2 over it.

Run as ``python _kill_writer.py WORKDIR CASE...``. For each case the harness writes version 1
of the file to ``WORKDIR/<case>/``, keeps a copy of its bytes in ``expected.bin``, then forks
a child that installs a hook and starts saving version 2: the hook stops the child at the
chosen point (``write``: after half of the first chunk reached the disk; ``rename``: after
every byte is written and synced, just before the rename) and tells the harness, which kills
it with SIGKILL. The harness prints one JSON line per case: the child's exit signal.

It forks before JAX starts a backend (nothing here computes with JAX), so the fork is safe.
The ``control`` case writes version 2 with a plain ``open(path, "wb")``: killing it must
damage the file, which shows the harness really interrupts a save.
"""

import json
import os
import signal
import sys
import time

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.dataset import common
from paddle_lite._src.files import atomic
from paddle_lite._src.readers.record_index import write_recordio
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite.plot import Ploter

FILES = {
    "tar": "model.tar",
    "npz": "model.npz",
    "topology": "model.json",
    "inference": "inference.json",
    "recordio": "train.rec",
    "plot": "cost.png",
    "shards": "mnist-00000",
    "control": "model.tar",
}


def _params(version):
    params = paddle.parameters.Parameters()
    for i in range(3):
        value = np.full((64, 32), float(version * 10 + i), np.float32)
        params.append_spec(ParamSpec(f"w{i}", (64, 32), InitSpec("gaussian", 0.0, 0.01)), value)
    return params


def _topology(version):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(8))
    out = paddle.layer.fc(input=x, size=4 + version, name=f"out{version}")
    return paddle.topology.Topology(out)


def _samples(version):
    return lambda: iter([(np.arange(50) * version, f"v{version}")] * 40)


def write(case, path, version):
    """Save version ``version`` of the ``case`` file at ``path``."""
    if case == "tar":
        _params(version).to_tar(path)
    elif case == "npz":
        _params(version).save_npz(path)
    elif case == "topology":
        _topology(version).serialize(path)
    elif case == "inference":
        _topology(version).serialize_for_inference(path)
    elif case == "recordio":
        write_recordio(path, _samples(version))
    elif case == "plot":
        plot = Ploter("cost")
        for step in range(20 * version):
            plot.append("cost", step, 1.0 / (step + 1))
        plot.plot(path)
    elif case == "shards":
        folder, prefix = os.path.dirname(path), os.path.basename(path)[: -len("-00000")]
        common.convert(folder, _samples(version), 1000, prefix)
    elif case == "control":
        if version == 1:
            _params(version).to_tar(path)
        else:
            with open(path, "wb") as f:
                f.write(b"\0" * 4096)
                _stop_here(f)


def _stop_here(stream=None):
    """Tell the harness this process is mid-save, then wait to be killed."""
    if stream is not None:
        stream.flush()
        os.fsync(stream.fileno())
    os.write(_READY_FD, b"x")
    time.sleep(120)
    os._exit(3)  # never reached when the harness kills us


class _HalfWriter:
    """A file proxy: the first write lands half of its data on disk, then stops."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, data):
        self._stream.write(data[: max(1, len(data) // 2)])
        _stop_here(self._stream)

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._stream.__exit__(*exc)


def _install(point):
    if point == "write":
        atomic.open = lambda *args, **kwargs: _HalfWriter(open(*args, **kwargs))
    else:  # "rename": every byte written and synced, the rename not done

        def replace(src, dst):
            _stop_here()

        os.replace = replace


def run_case(workdir, case, point):
    folder = os.path.join(workdir, f"{case}-{point}")
    os.makedirs(folder)
    path = os.path.join(folder, FILES[case])
    write(case, path, 1)
    with open(path, "rb") as f, open(os.path.join(folder, "expected.bin"), "wb") as out:
        out.write(f.read())
    global _READY_FD
    ready, _READY_FD = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready)
        _install(point)
        write(case, path, 2)
        os._exit(4)  # the save finished: the hook did not stop it
    os.close(_READY_FD)
    got = os.read(ready, 1)  # blocks until the child is mid-save (or exits)
    if got:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(ready)
    signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {"case": f"{case}-{point}", "path": path, "signal": signum}


_READY_FD = -1

if __name__ == "__main__":
    workdir, cases = sys.argv[1], sys.argv[2:]
    for spec in cases:
        case, point = spec.split(":")
        print(json.dumps(run_case(workdir, case, point)), flush=True)
