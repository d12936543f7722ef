"""``python -m paddle_lite.launch --nproc P script.py args...``: P local processes, one job.

Each process runs the same script with ``PADDLE_LITE_COORDINATOR_ADDRESS`` (a
loopback port), ``PADDLE_LITE_NUM_PROCESSES`` and ``PADDLE_LITE_PROCESS_ID`` set, so
its ``paddle.init(...)`` joins the job. Output lines are forwarded with a ``[rank]``
prefix. When a process fails, the launcher names the rank that failed first, stops
the others (a lost rank always ends a JAX job) and, with ``--max-restarts N``,
starts the whole job again (scripts resume with ``trainer.load_checkpoint``); else
it exits with the failed rank's code.

A SIGTERM to the launcher (a preempted pod or VM) goes to every process; the launcher
waits up to ``--grace`` seconds for them (a ``train(checkpoint_dir=...)`` finishes its
step, checkpoints and exits: see ``training.signals``), restarts nothing, and ends
by the same signal.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

_POLL_S = 0.1
_GRACE_S = 5.0  # for the ranks beside a failed one: they cannot checkpoint any more
_TERMINATED: list[int] = []  # the signal the launcher received, if any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _forward(stream, rank: int, out) -> None:
    for line in iter(stream.readline, b""):
        out.write(f"[{rank}] {line.decode(errors='replace')}")
        out.flush()
    stream.close()


def _start(command: list[str], nproc: int, port: int) -> list[subprocess.Popen]:
    procs = []
    for rank in range(nproc):
        env = {
            **os.environ,
            "PADDLE_LITE_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
            "PADDLE_LITE_NUM_PROCESSES": str(nproc),
            "PADDLE_LITE_PROCESS_ID": str(rank),
            "PYTHONUNBUFFERED": "1",
        }
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        threading.Thread(target=_forward, args=(proc.stdout, rank, sys.stdout), daemon=True).start()
        procs.append(proc)
    return procs


def _stop(procs: Sequence[subprocess.Popen], grace: float = _GRACE_S) -> None:
    """Stop what still runs: SIGTERM, then SIGKILL after ``grace`` seconds."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.time() + grace
    for proc in procs:
        while proc.poll() is None and time.time() < deadline:
            time.sleep(_POLL_S)
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def run_job(command: list[str], nproc: int, grace: float) -> tuple[int, int | None]:
    """Run one attempt; ``(exit code, first failed rank or None)``."""
    procs = _start(command, nproc, free_port())
    try:
        while True:
            if _TERMINATED:
                _stop(procs, grace)
                return -_TERMINATED[0], None
            codes = [p.poll() for p in procs]
            failed = [r for r, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                return codes[failed[0]], failed[0]
            if all(c == 0 for c in codes):
                return 0, None
            time.sleep(_POLL_S)
    finally:
        _stop(procs)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paddle_lite.launch --nproc P script.py``: run P processes of a script.

    Returns:
        The exit status (0 when every process succeeded, possibly after restarts).
    """
    parser = argparse.ArgumentParser(prog="python -m paddle_lite.launch", description=__doc__)
    parser.add_argument("--nproc", type=int, required=True, help="processes to start")
    parser.add_argument("--max-restarts", type=int, default=0, help="restarts after a failure")
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="seconds the processes have to checkpoint after a SIGTERM before SIGKILL",
    )
    parser.add_argument("script", help="the training script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    opts = parser.parse_args(argv)
    if opts.nproc < 1:
        parser.error(f"--nproc must be >= 1; received {opts.nproc}")
    command = [sys.executable, opts.script, *opts.args]
    signal.signal(signal.SIGTERM, lambda signum, frame: _TERMINATED.append(signum))
    for attempt in range(opts.max_restarts + 1):
        code, rank = run_job(command, opts.nproc, opts.grace)
        if _TERMINATED:
            print("paddle_lite.launch: terminated; the processes were told.", file=sys.stderr)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        if rank is None:
            return 0
        print(
            f"paddle_lite.launch: rank {rank} failed first (exit code {code}); the other ranks "
            f"were stopped (attempt {attempt + 1} of {opts.max_restarts + 1}).",
            file=sys.stderr,
        )
    return code if code > 0 else 1
