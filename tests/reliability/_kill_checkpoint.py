"""Kill harness for checkpoint saves: stop a process before each filesystem operation.

Run as ``python _kill_checkpoint.py WORKDIR MODE`` (MODE ``exchange``: the system's atomic
swap; ``renames``: the fallback without it). First a save of version 2 over version 1 runs
with every filesystem call counted (``os.mkdir``, ``open`` for writing, ``os.fsync``,
``os.rename`` / ``os.replace``, the exchange, ``os.unlink`` / ``os.rmdir``): N calls. Then
for each k in 1..N a fresh folder gets version 1, saved whole, and a forked child saves
version 2 over it with a hook that ends the child with ``os._exit`` (no cleanup runs, as
with SIGKILL) just before call k. The same is done for the very first save into an empty
folder. One JSON line per run: the case folder, k, the call it stopped before, the exit
code. It forks before JAX starts a backend (nothing here computes with JAX).
"""

import builtins
import json
import os
import sys

import numpy as np

from paddle_lite._src.parameters import Parameters
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite._src.training import checkpoint_folders, checkpoints

KILLED = 17
_CALLS = ["mkdir", "fsync", "rename", "replace", "unlink", "rmdir"]


def version(v):
    """The parameters, arrays and meta of checkpoint version ``v``."""
    params = Parameters()
    for i in range(2):
        value = np.full((16, 8), float(v * 10 + i), np.float32)
        params.append_spec(ParamSpec(f"w{i}", (16, 8), InitSpec("gaussian", 0.0, 0.01)), value)
    arrays = {"key": np.array([v, 7], np.uint32), "opt0_0": np.full(5, v, np.float32)}
    return params, arrays, {"pass_id": v, "batch_id": 0}


def save(path, v):
    checkpoints.save(path, *version(v))


class Counter:
    def __init__(self, stop_at):
        self.stop_at, self.count, self.log = stop_at, 0, []

    def hit(self, what):
        self.count += 1
        self.log.append(what)
        if self.count == self.stop_at:
            sys.stdout.flush()
            os._exit(KILLED)


def install(counter, mode):
    """Count (and stop before) every filesystem call the save makes."""
    for name in _CALLS:
        real = getattr(os, name)

        def hooked(*args, _real=real, _name=name, **kwargs):
            counter.hit(_name)
            return _real(*args, **kwargs)

        setattr(os, name, hooked)
    real_open = builtins.open

    def hooked_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            counter.hit("open-for-writing")
        return real_open(file, mode, *args, **kwargs)

    builtins.open = hooked_open
    real_exchange = checkpoint_folders.exchange

    def hooked_exchange(a, b):
        if mode == "renames":
            return False
        counter.hit("exchange")
        return real_exchange(a, b)

    checkpoint_folders.exchange = hooked_exchange


def run_child(path, v, stop_at, mode):
    """Save version ``v`` at ``path`` in a child stopped before call ``stop_at``."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        counter = Counter(stop_at)
        install(counter, mode)
        save(path, v)
        os.write(write, json.dumps(counter.log).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        log = f.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), json.loads(log) if log else None


def main(workdir, mode):
    probe = os.path.join(workdir, "probe", "ck")
    save(probe, 1)
    _, calls = run_child(probe, 2, 0, mode)
    _, first_calls = run_child(os.path.join(workdir, "probe-first", "ck"), 1, 0, mode)
    for kind, n, log in (("replace", len(calls), calls), ("first", len(first_calls), first_calls)):
        for k in range(1, n + 2):
            path = os.path.join(workdir, f"{kind}-{k}", "ck")
            if kind == "replace":
                save(path, 1)
            else:
                os.makedirs(os.path.dirname(path))
            code, _ = run_child(path, 2 if kind == "replace" else 1, k, mode)
            before = log[k - 1] if k <= n else None
            print(json.dumps({"kind": kind, "path": path, "k": k, "before": before, "exit": code}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
