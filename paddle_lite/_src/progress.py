"""A ready-made event handler: a progress bar per pass with running cost and metrics."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import Any

from paddle_lite._src import events


def progress(total: int | None = None, every: int = 10, file: Any = None) -> Callable[[Any], None]:
    """An event handler drawing a tqdm bar per pass (terminal or Jupyter).

    In Jupyter with ipywidgets (the ``notebook`` extra) the bar is a widget; without
    ipywidgets it is a text bar (tqdm's own fallback would warn on every pass).

    The bar shows the running mean cost and, every ``every`` batches, the batch
    metrics; ``EndPass`` prints the pass metrics. Needs the ``progress`` extra
    (``pip install paddle_lite[progress]``).

    Args:
        total: batches per pass, when known (for a percentage and an ETA).
        every: refresh the cost shown every this many batches (reading the cost
            waits for the device, so reading it every batch would slow training).
        file: where to draw (default stderr).

    Example::

        trainer.train(reader, num_passes=5, event_handler=paddle.event.progress())
    """
    tqdm = bar_class()
    state: dict[str, Any] = {"bar": None, "sum": 0.0, "n": 0}

    def handler(event: Any) -> None:
        if isinstance(event, events.BeginPass):
            state.update(
                bar=tqdm(
                    total=total, desc=f"pass {event.pass_id}", file=file or sys.stderr, leave=True
                ),
                sum=0.0,
                n=0,
            )
        elif isinstance(event, events.EndIteration):
            bar = state["bar"]
            bar.update(1)
            if event.batch_id % every == 0:
                state["sum"] += event.cost
                state["n"] += 1
                bar.set_postfix(cost=f"{state['sum'] / state['n']:.5g}", **_short(event.metrics))
        elif isinstance(event, events.EndPass):
            bar = state["bar"]
            bar.set_postfix(
                cost=f"{state['sum'] / max(state['n'], 1):.5g}", **_short(event.metrics)
            )
            bar.close()

    return handler


def bar_class() -> Any:
    """tqdm's widget bar inside a Jupyter kernel with ipywidgets, else its text bar."""
    try:
        from tqdm.std import tqdm
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "paddle.event.progress() needs tqdm: pip install 'paddle_lite[progress]'."
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
