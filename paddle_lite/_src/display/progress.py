"""A ready-made event handler showing training progress (``paddle.event.progress()``).

Where it draws decides how:

* a terminal (the file's ``isatty()``): a tqdm bar per pass, redrawn in place; each pass
  leaves its line;
* Jupyter: one bar for the whole ``train`` call (a widget with ipywidgets, the ``notebook``
  extra; else a text bar), reset at each pass; a saved notebook keeps its last state;
* anything else (a file, a CI log): plain lines, one per pass and, when asked, one every
  ``log_every`` batches (Keras's ``verbose=2``).

Every form shows ``pass k/N``, the batches done of the pass's total (the reader's
``len()``, else the previous pass's count, else ``counting``), the ETA, and the running
cost; the pass end shows the pass's cost as ``History`` records it and its metrics. A
step that compiles shows ``compiling…``; its time is left out of the rate and the ETA.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import time
from collections.abc import Callable
from typing import Any

from paddle_lite._src.errors import ConfigError, MissingDependencyError
from paddle_lite._src.training import events

COMPILING = "compiling…"
STYLES = ("auto", "bar", "lines")
COUNTING_FORMAT = "{desc}: {n_fmt} batches, counting [{elapsed}{postfix}]"
_now = time.perf_counter  # the pass clocks' time source


class PassClock:
    """The batches and time of one pass, compiles set apart: the rate counts only the
    batches that did not compile, over the time they took."""

    def __init__(self, now: float) -> None:
        self.start = self.last = now
        self.compiling_since: float | None = None
        self.compile_seconds = 0.0
        self.timed_batches, self.timed_seconds = 0, 0.0

    def compiling(self, now: float) -> None:
        self.compiling_since = now

    def batch(self, now: float) -> None:
        """A batch ended at ``now``; the one after ``compiling`` counts as compile time."""
        if self.compiling_since is not None:
            self.compile_seconds += now - self.compiling_since
            self.compiling_since = None
        else:
            self.timed_batches += 1
            self.timed_seconds += now - self.last
        self.last = now

    def rate(self) -> float:
        """Batches per second (0.0 until a batch without a compile has ended)."""
        if not self.timed_batches or self.timed_seconds <= 0:
            return 0.0
        return self.timed_batches / self.timed_seconds


class _Progress:
    """What every form shows: the pass label, its total, its clock and its cost."""

    def __init__(self, total: int | None, every: int) -> None:
        self.fixed_total, self.every = total, every
        self.num_passes: int | None = None
        self.label, self.total, self.done = "", None, 0
        self.clock = PassClock(_now())
        self.cost_sum, self.cost_count = 0.0, 0

    def begin_pass(self, event: Any) -> None:
        passes = getattr(event, "num_passes", None) or self.num_passes
        self.label = f"pass {event.pass_id + 1}" + (f"/{passes}" if passes else "")
        batches = getattr(event, "batches", None)
        self.total = self.fixed_total if self.fixed_total is not None else batches
        self.done, self.cost_sum, self.cost_count = 0, 0.0, 0
        self.clock = PassClock(_now())

    def compiling(self) -> None:
        self.clock.compiling(_now())

    def end_iteration(self, event: Any) -> None:
        self.clock.batch(_now())
        self.done = max(self.done + 1, event.batch_id + 1)  # a resumed pass starts late
        if event.batch_id % self.every == 0:
            self.cost_sum += event.cost
            self.cost_count += 1

    def running_cost(self) -> float | None:
        """The mean of the batch costs read so far this pass."""
        return self.cost_sum / self.cost_count if self.cost_count else None

    def pass_cost(self, event: Any) -> float | None:
        """The pass's cost as ``History`` has it (``EndPass.cost``), else the running one."""
        cost = getattr(event, "cost", None)
        return self.running_cost() if cost is None else cost

    def end_pass(self, event: Any) -> None:
        raise NotImplementedError

    def end_training(self) -> None:
        """The ``train`` call is over (or a new one starts)."""


class _Lines(_Progress):
    """Plain lines: one per pass, and one every ``log_every`` batches when asked."""

    def __init__(self, total: int | None, every: int, file: Any, log_every: int | None) -> None:
        super().__init__(total, every)
        self.file, self.log_every = file, log_every

    def end_iteration(self, event: Any) -> None:
        super().end_iteration(event)
        if self.log_every and self.done % self.log_every == 0 and self.done != self.total:
            seconds = _now() - self.clock.start
            eta = ""
            if self.total and self.clock.rate():
                eta = f", ETA {_duration((self.total - self.done) / self.clock.rate())}"
            self._write(f"{self._batches()} in {_duration(seconds)}{eta}", self.running_cost(), {})

    def end_pass(self, event: Any) -> None:
        seconds = _now() - self.clock.start
        took = f"{self._batches()} in {_duration(seconds)}"
        if self.clock.compile_seconds:
            took += f" (compiling {_duration(self.clock.compile_seconds)})"
        self._write(took, self.pass_cost(event), event.metrics)

    def _batches(self) -> str:
        return f"{self.done}/{self.total} batches" if self.total else f"{self.done} batches"

    def _write(self, head: str, cost: float | None, metrics: dict[str, Any]) -> None:
        fields = [f"{k} {v}" for k, v in _shown(cost, metrics).items()]
        print(", ".join([f"{self.label}: {head}", *fields]), file=self.file, flush=True)


class _Bars(_Progress):
    """tqdm bars: one per pass (terminal), or one reset at each pass (Jupyter)."""

    def __init__(self, tqdm: Any, total: int | None, every: int, file: Any, notebook: bool):
        super().__init__(total, every)
        self.tqdm, self.file, self.notebook = _timed(tqdm), file, notebook
        self.widget = tqdm is not _std_tqdm()  # tqdm.notebook's
        self.bar: Any = None
        self.shown: Any = None  # the widget's display handle (its saved text is updated)

    def begin_pass(self, event: Any) -> None:
        super().begin_pass(event)
        fmt = COUNTING_FORMAT if self.total is None else None
        if self.bar is not None and self.notebook:
            self.bar.bar_format, self.bar.clock = fmt, self.clock
            self.bar.set_description_str(self.label, refresh=False)
            self.bar.set_postfix(refresh=False)
            self.bar.reset(total=self.total)  # redrawn now
        else:
            self.bar = self._new_bar(fmt)
            self.bar.clock = self.clock

    def _new_bar(self, fmt: str | None) -> Any:
        options = {"total": self.total, "desc": self.label, "unit": "batch", "leave": True}
        options.update(bar_format=fmt, dynamic_ncols=True)
        if self.widget:
            bar = self.tqdm(**options, display=False)
            from IPython import display

            self.shown = display.display(bar.container, display_id=True)
            return bar
        return self.tqdm(**options, file=self.file or sys.stderr)

    def compiling(self) -> None:
        super().compiling()
        if self.bar is not None:
            self.bar.set_description_str(f"{self.label} {COMPILING}")  # redrawn now

    def end_iteration(self, event: Any) -> None:
        super().end_iteration(event)
        bar = self.bar
        if bar is None:
            return
        if bar.desc != self.label:  # the compile is over
            bar.set_description_str(self.label, refresh=False)
        if event.batch_id % self.every == 0:
            bar.set_postfix(_shown(self.running_cost(), event.metrics), refresh=False)
        bar.update(self.done - bar.n)

    def end_pass(self, event: Any) -> None:
        if self.bar is None:
            return
        self.bar.set_postfix(_shown(self.pass_cost(event), event.metrics), refresh=False)
        if self.notebook:
            self.bar.refresh()
            self._save_text()
        else:
            self.bar.close()  # draws the pass's last state once, and leaves it
            self.bar = None

    def end_training(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self._save_text()
            self.bar = None

    def _save_text(self) -> None:
        """Redisplay the widget with the bar's state now as its text, the form a saved
        notebook keeps (ipywidgets would cut it at 110 characters)."""
        if self.shown is not None:
            bundle = self.bar.container._repr_mimebundle_()
            bundle["text/plain"] = repr(self.bar.container)
            self.shown.update(bundle, raw=True)


def progress(
    total: int | None = None,
    every: int = 10,
    file: Any = None,
    log_every: int | None = None,
    style: str = "auto",
) -> Callable[[Any], None]:
    """An event handler showing the progress of training: a bar, or plain lines in logs.

    In a terminal a tqdm bar per pass reads
    ``pass 2/30:  40%|####      | 81/202 [00:01<00:01, 95.3batch/s, cost=17.2]``: the
    batch total is the reader's ``len()`` (``paddle.batch`` of a sized reader has one),
    else the previous pass's count (a first pass without one reads ``81 batches,
    counting``); the rate and the ETA leave out compiles (the bar reads ``pass 1/30
    compiling…`` while a step compiles). The cost is the running mean of the costs read
    (one every ``every`` batches); at the pass end it is the pass's cost as ``History``
    records it (``EndPass.cost``), with the pass metrics. In Jupyter one bar serves the
    ``train`` call (a widget with ipywidgets, the ``notebook`` extra; else a text bar), and a
    saved notebook keeps its last state. Written to a file or a CI log (not a terminal) it
    prints one line per pass, ``pass 1/30: 202/202 batches in 1.93s (compiling 1.41s),
    cost 32.6103``, and with ``log_every`` one every ``log_every`` batches too.

    Args:
        total: batches per pass, when known in advance and the reader has no ``len()``.
        every: read the cost every this many batches (reading waits for the device, so
            reading it every batch would slow training).
        file: where to write (default stderr).
        log_every: as plain lines, also a line every this many batches (default: none).
        style: ``"auto"`` (a bar in a terminal or Jupyter, lines elsewhere), ``"bar"`` or
            ``"lines"``.

    Returns:
        The handler: pass it as ``event_handler`` (or in a list of handlers).

    Example:
        ```python
        trainer.train(reader, num_passes=5, event_handler=paddle.event.progress())
        ```
    """
    every, make = _positive("every", every), _form(style, file)
    log_every = None if log_every is None else _positive("log_every", log_every)
    state: dict[str, _Progress] = {}

    def handler(event: Any) -> None:
        if isinstance(event, events.BeginTraining) or not state:
            if state:
                state["now"].end_training()
            state["now"] = make(total, every, log_every)
            state["now"].num_passes = getattr(event, "num_passes", None)
        shown = state["now"]
        if isinstance(event, events.BeginPass):
            shown.begin_pass(event)
        elif isinstance(event, events.Compiling):
            shown.compiling()
        elif isinstance(event, events.EndIteration):
            shown.end_iteration(event)
        elif isinstance(event, events.EndPass):
            shown.end_pass(event)
        elif isinstance(event, events.EndTraining):
            shown.end_training()

    return handler


def _form(style: str, file: Any) -> Callable[[int | None, int, int | None], _Progress]:
    """The form ``style`` gives for ``file``: a function making one ``train`` call's."""
    if style not in STYLES:
        raise ConfigError(f"progress(): style must be one of {STYLES}; received {style!r}.")
    notebook = file is None and _in_kernel()
    target = sys.stderr if file is None else file
    if style == "lines" or (style == "auto" and not notebook and not _is_terminal(target)):
        return lambda total, every, log_every: _Lines(total, every, target, log_every)
    tqdm = bar_class() if notebook else _std_tqdm()
    return lambda total, every, _: _Bars(tqdm, total, every, file, notebook)


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"progress(): {name} must be an int >= 1; received {value!r}.")
    return value


def _is_terminal(file: Any) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed file
        return False


def _std_tqdm() -> Any:
    try:
        from tqdm.std import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        raise MissingDependencyError(
            "paddle.event.progress() needs tqdm, which is not installed: pip install tqdm."
        ) from None
    return tqdm


def bar_class() -> Any:
    """tqdm's widget bar inside a Jupyter kernel with ipywidgets, else its text bar."""
    tqdm = _std_tqdm()
    if _in_kernel() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as widget_tqdm

        return widget_tqdm
    return tqdm


@functools.cache
def _timed(base: type) -> type:
    """``base`` (a tqdm class) with its rate and ETA taken from a ``PassClock``."""

    class PassBar(base):
        clock: PassClock | None = None

        @property
        def format_dict(self) -> dict[str, Any]:
            shown = super().format_dict
            if self.clock is not None:
                shown["rate"] = self.clock.rate()  # 0.0 reads "?": nothing timed yet
            return shown

    return PassBar


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where a widget can be drawn)."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _duration(seconds: float) -> str:
    """``1.93s`` under a minute, else ``h:mm:ss`` / ``mm:ss``."""
    if seconds < 60:
        return f"{seconds:.2f}s"
    from tqdm.std import tqdm

    return tqdm.format_interval(seconds)


def _shown(cost: float | None, metrics: dict[str, Any]) -> dict[str, str]:
    """``{"cost": ..., metric: ...}`` as shown: the cost first, then the numeric metrics
    without their ``_evaluator`` suffix."""
    shown = {} if cost is None else {"cost": f"{cost:.6g}"}
    for name, value in metrics.items():
        if isinstance(value, (int, float)):
            shown[name.replace("_evaluator", "")] = f"{value:.4g}"
    return shown
