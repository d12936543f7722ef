"""Live cost plots (v2 ``paddle.plot.Ploter``).

Inside Jupyter ``plot()`` clears the cell output and redraws; elsewhere it writes a
PNG (``path``, default ``plot.png``). matplotlib is imported only when drawing
(the ``plot`` extra); ``DISABLE_PLOT=True`` in the environment turns ``plot`` into
a no-op that imports nothing.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from paddle_lite._src import atomic
from paddle_lite._src.errors import PaddleLiteError

DEFAULT_PATH = "plot.png"


class PlotData:
    """The steps and values appended under one title."""

    def __init__(self) -> None:
        self.step: list[Any] = []
        self.value: list[Any] = []

    def append(self, step: Any, value: Any) -> None:
        self.step.append(step)
        self.value.append(value)

    def reset(self) -> None:
        self.step = []
        self.value = []


def _save_atomically(figure: Any, path: str) -> None:
    """``figure.savefig(path)`` through a temporary file: a reader never sees half a PNG."""
    fmt = os.path.splitext(path)[1][1:].lower() or "png"
    with atomic.atomic_write(path) as stream:
        figure.savefig(stream, format=fmt)


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


class Ploter:
    """One line per title, drawn on demand.

    Example::

        plot = paddle.plot.Ploter("Train cost", "Test cost")
        plot.append("Train cost", step, event.cost)
        plot.plot()            # redraws in Jupyter; writes plot.png elsewhere
    """

    def __init__(self, *titles: str) -> None:
        self.__title__ = titles
        self.__plot_data__ = {title: PlotData() for title in titles}
        self.__disabled__ = os.environ.get("DISABLE_PLOT") == "True"

    def append(self, title: str, step: Any, value: Any) -> None:
        """Add a point to the line ``title`` (one of the titles given at creation)."""
        if title not in self.__plot_data__:
            raise PaddleLiteError(
                f"Ploter has no title {title!r}; its titles are {list(self.__title__)}."
            )
        self.__plot_data__[title].append(step, float(value))

    def plot(self, path: str | None = None) -> None:
        """Draw every title with data (legend upper left); save to ``path`` if given."""
        if self.__disabled__:
            return
        import matplotlib

        notebook = _in_notebook()
        if not notebook:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        titles = [t for t in self.__title__ if self.__plot_data__[t].step]
        for title in titles:
            data = self.__plot_data__[title]
            plt.plot(data.step, data.value)
        plt.legend(titles, loc="upper left")
        if notebook and path is None:
            from IPython import display

            display.clear_output(wait=True)
            display.display(plt.gcf())
        else:
            _save_atomically(plt.gcf(), path or DEFAULT_PATH)
        plt.gcf().clear()

    def reset(self) -> None:
        """Forget every point."""
        for data in self.__plot_data__.values():
            data.reset()
