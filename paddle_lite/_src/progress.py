"""A ready-made event handler: a progress bar with the pass, the batch count, the ETA,
the running cost and the metrics, and a visible "compiling…" while a step compiles."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import Any

from paddle_lite._src import events
from paddle_lite._src.errors import MissingDependencyError

COMPILING = "compiling…"


class _Bar:
    """The bar of one ``train`` call: a bar per pass in a terminal (each pass's line
    stays), one bar reset at each pass in a notebook (so the cell keeps one bar)."""

    def __init__(self, tqdm: Any, total: int | None, every: int, file: Any, reuse: bool) -> None:
        self.tqdm, self.total, self.every, self.file, self.reuse = tqdm, total, every, file, reuse
        self.bar: Any = None
        self.num_passes: int | None = None
        self.desc = ""
        self.sum, self.n = 0.0, 0

    def begin_pass(self, event: Any) -> None:
        passes = getattr(event, "num_passes", None) or self.num_passes
        self.desc = f"pass {event.pass_id + 1}" + (f"/{passes}" if passes else "")
        total = self.total if self.total is not None else getattr(event, "batches", None)
        self.sum, self.n = 0.0, 0
        if self.bar is not None and self.reuse:
            self.bar.reset(total=total)
            self.bar.set_description_str(self.desc)
            self.bar.set_postfix()
            return
        self.bar = self.tqdm(
            total=total,
            desc=self.desc,
            file=self.file or sys.stderr,
            leave=True,
            dynamic_ncols=True,
        )

    def compiling(self) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"{self.desc} {COMPILING}")  # refreshes the bar now

    def end_iteration(self, event: Any) -> None:
        bar = self.bar
        if bar is None:
            return
        if bar.desc != self.desc:  # the compile is over
            bar.set_description_str(self.desc, refresh=False)
        bar.update(1)
        if event.batch_id % self.every == 0:
            self.sum += event.cost
            self.n += 1
            bar.set_postfix(cost=f"{self.sum / self.n:.5g}", **_short(event.metrics))

    def end_pass(self, event: Any) -> None:
        if self.bar is None:
            return
        cost = f"{self.sum / max(self.n, 1):.5g}"
        self.bar.set_postfix(cost=cost, **_short(event.metrics))
        if not self.reuse:
            self.bar.close()
            self.bar = None

    def end_training(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress(total: int | None = None, every: int = 10, file: Any = None) -> Callable[[Any], None]:
    """An event handler drawing a tqdm progress bar (terminal or Jupyter).

    The bar reads ``pass 2/30``, ``n/N`` batches with the ETA once the pass length is
    known (the reader's ``len()``, else the first pass's count, or ``total``), the
    running mean cost and, every ``every`` batches, the batch metrics; it reads
    ``pass 1/30 compiling…`` while a step compiles (the first batch, a batch of a new
    shape). ``EndPass`` shows the pass metrics. In a terminal each pass leaves its line;
    in Jupyter one bar serves the whole ``train`` call (a widget with ipywidgets, the
    ``notebook`` extra; else a text bar).

    Args:
        total: batches per pass, when known in advance (the first pass then has an ETA).
        every: refresh the cost shown every this many batches (reading the cost
            waits for the device, so reading it every batch would slow training).
        file: where to draw (default stderr).

    Example:
        ```python
        trainer.train(reader, num_passes=5, event_handler=paddle.event.progress())
        ```
    """
    tqdm = bar_class()
    reuse = _in_kernel()
    state = {"bar": _Bar(tqdm, total, every, file, reuse)}

    def handler(event: Any) -> None:
        bar = state["bar"]
        if isinstance(event, events.BeginTraining):
            bar.end_training()
            bar = state["bar"] = _Bar(tqdm, total, every, file, reuse)
            bar.num_passes = getattr(event, "num_passes", None)
        elif isinstance(event, events.BeginPass):
            bar.begin_pass(event)
        elif isinstance(event, events.Compiling):
            bar.compiling()
        elif isinstance(event, events.EndIteration):
            bar.end_iteration(event)
        elif isinstance(event, events.EndPass):
            bar.end_pass(event)
        elif isinstance(event, events.EndTraining):
            bar.end_training()

    return handler


def bar_class() -> Any:
    """tqdm's widget bar inside a Jupyter kernel with ipywidgets, else its text bar."""
    try:
        from tqdm.std import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        raise MissingDependencyError(
            "paddle.event.progress() needs tqdm, which is not installed: pip install tqdm."
        ) from None
    if _in_kernel() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as widget_tqdm

        return widget_tqdm
    return tqdm


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (where a widget can be drawn)."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _short(metrics: dict[str, Any]) -> dict[str, str]:
    return {
        k.replace("_evaluator", ""): f"{v:.4g}"
        for k, v in metrics.items()
        if isinstance(v, (int, float))
    }
