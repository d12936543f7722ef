"""Signals while a trainer trains: a Ctrl-C never strands its state; a SIGTERM checkpoints.

Python runs a signal's handler in the main thread between two bytecodes, so the
``KeyboardInterrupt`` of a Ctrl-C (or of Jupyter's "interrupt kernel") can land on any
line -- also just after the step call that donated the state's buffers returned and
before its new buffers were stored, which would leave the trainer holding deleted
arrays. A ``Guard`` is the trainer's critical section: the lock every reader of the
device state takes (another thread reads the values of a whole step, or waits for it),
and, while ``Guard.installed`` in the main thread, a SIGINT handler that defers the
interrupt until the section ends: a few Python lines and one compiled step's call.
While a step program that has never returned may still be tracing or compiling (its
inputs not yet donated) the interrupt goes through at once, and the caller drops the
program being built (JAX compiles a jitted function again at every later call once an
interrupt has cut its first compile short; a fresh function compiles once).

During ``train(checkpoint_dir=...)`` a SIGTERM (how Kubernetes, Slurm and cloud VMs
preempt a job) is noticed rather than obeyed at once (``Preemption``): the loop
finishes the step in flight, writes a checkpoint and then ends the process as the signal
would have (the handler installed before is called; the default one ends the process
with status -15, 143 in a shell). In a multi-process job JAX's preemption service
receives the signal and every process stops after the same step
(``multihost_utils.reached_preemption_sync_point``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any


def in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _call(handler: Any, signum: int, frame: Any) -> None:
    """Do what ``handler`` (a value ``signal.getsignal`` returned) does with a signal."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)  # the default action ends the process here
        raise SystemExit(128 + signum)  # unless the signal is blocked (a tracer)


class Guard:
    """A trainer's critical section (see the module docstring).

    ``with guard:`` holds ``lock`` and defers SIGINT while ``installed``; set
    ``donating`` to a step call's donated inputs while it runs, so that an interrupt
    goes through until they are consumed.
    """

    def __init__(self, lock: Any) -> None:
        self.lock = lock
        self.depth = 0
        self.pending: tuple[int, Any] | None = None  # a deferred SIGINT
        self.donating: list[Any] | None = None
        self._previous: Any = None  # the SIGINT handler installed() replaced
        self._active = False  # inside installed()'s block (its handler not yet let go)

    # The order of these lines matters: Python runs a signal's handler right after a call
    # returns, and the handler must see the section as entered until the lock is free.
    def __enter__(self) -> Guard:
        self.depth += 1
        self.lock.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.donating = None
        self.lock.release()
        self.depth -= 1
        if self.pending is not None and not self.depth:
            self._deliver()

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.depth and not self._interruptible():
            self.pending = self.pending or (signum, frame)
            return
        if not self._active and signal.getsignal(signal.SIGINT) == self._on_sigint:
            # installed() is letting go and this interrupt cuts it short: let go here
            signal.signal(signal.SIGINT, self._previous)
        _call(self._previous, signum, frame)

    def _interruptible(self) -> bool:
        """Whether a step call is running whose donated inputs are all still there
        (tracing or compiling: stopping it loses nothing)."""
        inputs = self.donating
        return inputs is not None and not any(x.is_deleted() for x in inputs)

    def _deliver(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            _call(self._previous, *pending)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Guard]:
        """Defer SIGINT in this guard's sections for the block (in the main thread, where
        Python runs signal handlers; elsewhere the block runs as it is)."""
        previous = signal.getsignal(signal.SIGINT) if in_main_thread() else None
        if previous is None or previous == signal.SIG_IGN or previous == self._on_sigint:
            yield self  # not ours to wrap, or wrapped already
            return
        self._previous, self._active = previous, True
        try:
            signal.signal(signal.SIGINT, self._on_sigint)
            yield self
        finally:
            # First, before any call (where a signal's handler may run): from here on a
            # SIGINT puts the previous handler back itself (``_on_sigint``).
            self._active = False
            if signal.getsignal(signal.SIGINT) == self._on_sigint:
                signal.signal(signal.SIGINT, previous)
            if self.pending is not None:
                self._deliver()


_SYNC_STEPS = itertools.count()  # this process's calls of the preemption sync point


class Preemption:
    """SIGTERM during ``train(checkpoint_dir=...)``: see the module docstring.

    ``due`` says when to checkpoint and ``stop`` ends the process afterwards.
    Outside the main thread (no signal reaches a Python handler there) and when SIGTERM
    is ignored, nothing is installed.
    """

    def __init__(self, multi_process: bool) -> None:
        self.multi_process = multi_process
        self.notice: tuple[int, Any] | None = None
        self._previous: Any = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[Preemption]:
        if self.multi_process or not in_main_thread():
            yield self
            return
        previous = signal.getsignal(signal.SIGTERM)
        if previous is None or previous == signal.SIG_IGN:
            yield self
            return
        self._previous = previous
        try:
            signal.signal(signal.SIGTERM, self._on_sigterm)
            yield self
        finally:
            if signal.getsignal(signal.SIGTERM) == self._on_sigterm:
                signal.signal(signal.SIGTERM, previous)

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        self.notice = (signum, frame)

    def due(self, after_step: bool = True) -> bool:
        """Whether to checkpoint and stop now. In a multi-process job every process
        asks after each step (``after_step``), and all stop after the same one."""
        if self.multi_process:
            return after_step and _reached_sync_point()
        return self.notice is not None

    def stop(self) -> None:
        """After the checkpoint: end the process as the SIGTERM would have, or, when
        the handler installed before returns, go on training."""
        if self.multi_process:
            _call(signal.SIG_DFL, signal.SIGTERM, None)
        notice, self.notice = self.notice, None
        if notice is not None:  # due() said so
            _call(self._previous, *notice)


def _reached_sync_point() -> bool:
    from jax.experimental import multihost_utils

    try:
        return multihost_utils.reached_preemption_sync_point(next(_SYNC_STEPS))
    except RuntimeError:  # the preemption service is off (jax_enable_preemption_service)
        return False
