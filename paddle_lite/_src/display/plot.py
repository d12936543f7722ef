"""Live cost plots (v2 ``paddle.plot.Ploter``).

Inside Jupyter ``plot()`` redraws one image in place (``display.notebook``); elsewhere it
writes a PNG: to ``path`` when given, else into a temporary folder (never into the working
directory unasked; ``Ploter.last_path`` says where, and the first such write prints it).
matplotlib is imported only when drawing (the ``plot`` extra); ``DISABLE_PLOT=True`` in
the environment turns ``plot`` into a no-op that imports nothing.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
from typing import Any

from paddle_lite._src.display import draw as plot_draw
from paddle_lite._src.display.progress import progress
from paddle_lite._src.errors import MissingDependencyError, PaddleLiteError
from paddle_lite._src.files import atomic
from paddle_lite._src.training import events

_serials = itertools.count()
_folder: list[str] = []  # the temporary folder of this process's unasked-for PNGs


def default_path() -> str:
    """A fresh PNG path in this process's temporary folder (made on first use)."""
    if not _folder:
        _folder.append(tempfile.mkdtemp(prefix="paddle_lite_plots_"))
    return os.path.join(_folder[0], f"plot_{next(_serials)}.png")


def import_pyplot(notebook: bool) -> Any:
    """``matplotlib.pyplot`` (Agg outside a notebook), or a typed error saying what to install."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError(
            "paddle.plot.Ploter.plot() draws with matplotlib, which is not installed: "
            "pip install 'paddle_lite[plot]' (or set DISABLE_PLOT=True to skip plotting)."
        ) from None
    if not notebook:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


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


def saved_as(path: str) -> str:
    """The file ``plt.savefig(path)`` writes, as v2's ``plot(path)`` called it: a path
    without an extension gets ``.png`` (matplotlib appends its default format)."""
    return path if os.path.splitext(path)[1][1:] else path.rstrip(".") + ".png"


def _save_atomically(figure: Any, path: str) -> None:
    """``figure.savefig(path)`` through a temporary file: a reader never sees half a PNG."""
    fmt = os.path.splitext(path)[1][1:].lower() or "png"
    with atomic.atomic_write(path) as stream:
        figure.savefig(stream, format=fmt, bbox_inches="tight")  # the legend above the axes


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _common_unit(titles: tuple[str, ...]) -> str:
    """The y-axis label: the last word every title shares ("Train cost", "Test cost" ->
    "cost"), else "value"."""
    last = {t.split()[-1].lower() for t in titles if t.split()}
    return last.pop() if len(last) == 1 else "value"


class Ploter:
    """One line per title, drawn on demand.

    In Jupyter each ``plot()`` redraws one image in place in the cell that calls it
    (other outputs of the cell, such as a progress bar, stay); elsewhere it writes a PNG
    to ``path``, or with no path into a temporary folder (``last_path``; never into the
    working directory unless asked).

    Args:
        *titles: one line per title, in legend order.
        xlabel: the x-axis label (default ``"step"``).
        ylabel: the y-axis label (default: the last word the titles share, such as
            ``"cost"`` for ``"Train cost"`` and ``"Test cost"``, else ``"value"``).

    Example:
        ```python
        plot = paddle.plot.Ploter("Train cost", "Test cost")
        plot.append("Train cost", step, event.cost)
        plot.plot()              # redraws in Jupyter; a temporary PNG elsewhere
        plot.plot("cost.png")    # writes cost.png
        ```
    """

    def __init__(self, *titles: str, xlabel: str = "step", ylabel: str | None = None) -> None:
        self.__title__ = titles
        self.__xlabel__ = xlabel
        self.__ylabel__ = ylabel if ylabel is not None else _common_unit(titles)
        self.__plot_data__ = {title: PlotData() for title in titles}
        self.__disabled__ = os.environ.get("DISABLE_PLOT") == "True"
        self.last_path: str | None = None  # where the last PNG went (outside Jupyter)
        self._temp_path: str | None = None  # the temporary PNG plot() redraws without a path
        self._image: Any = None  # the image plot() redraws in a notebook (notebook.CellImage)

    def append(self, title: str, step: Any, value: Any) -> None:
        """Add a point to the line ``title`` (one of the titles given at creation)."""
        if title not in self.__plot_data__:
            raise PaddleLiteError(
                f"Ploter has no title {title!r}; its titles are {list(self.__title__)}."
            )
        self.__plot_data__[title].append(step, float(value))

    def plot(self, path: str | None = None) -> None:
        """Draw every title with data (see ``display.draw``); save to ``path`` if given."""
        if self.__disabled__:
            return
        notebook = _in_notebook()
        plt = import_pyplot(notebook)

        titles = [t for t in self.__title__ if self.__plot_data__[t].step]
        lines = [(t, self.__plot_data__[t].step, self.__plot_data__[t].value) for t in titles]
        plot_draw.draw(plt.gca(), lines)
        plt.xlabel(self.__xlabel__)
        plt.ylabel(self.__ylabel__)
        if notebook and path is None:
            if self._image is None:
                from paddle_lite._src.display.notebook import CellImage

                self._image = CellImage()
            self._image.show(plt.gcf())
        else:
            self._save(plt.gcf(), path)
        plt.gcf().clear()
        if notebook:  # a figure left open is drawn again, empty, when the cell ends
            plt.close(plt.gcf())

    def _save(self, figure: Any, path: str | None) -> None:
        if path is None:
            if self._temp_path is None:
                self._temp_path = default_path()
                note = f"paddle.plot: no notebook here; drawing to {self._temp_path}"
                print(note, file=sys.stderr)
            path = self._temp_path
        path = saved_as(path)
        _save_atomically(figure, path)
        self.last_path = path

    def reset(self) -> None:
        """Forget every point."""
        for data in self.__plot_data__.values():
            data.reset()


def live(event_handler: Any, every: int = 10, redraw: int = 100, title: str = "Train cost"):
    """``event_handler`` wrapped to also draw the training cost live and show a progress
    bar ([`progress`][paddle_lite.event.progress]): the cost of every ``every``-th batch joins the
    line ``title``, the figure is redrawn every ``redraw`` batches and at each pass end
    (in Jupyter in place; elsewhere into a temporary PNG, see ``Ploter``), then
    ``event_handler`` sees the event.

    Example:
        ```python
        trainer.train(reader, num_passes=5, event_handler=paddle.plot.live(handler))
        ```
    """
    ploter = Ploter(title)
    bar = progress()
    step = 0

    def handler(event: Any) -> None:
        nonlocal step
        bar(event)
        if isinstance(event, events.EndIteration):
            if step % every == 0:
                ploter.append(title, step, event.cost)
            if step % redraw == 0:
                ploter.plot()  # redraws the curve in place
            step += 1
        if isinstance(event, events.EndPass):
            ploter.plot()
        event_handler(event)

    return handler
