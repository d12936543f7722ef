"""How a ``Ploter`` draws its lines, so that a training curve reads at a glance.

* A long noisy series (``SMOOTH_FROM`` points or more that jump about, such as a cost
  every 10 batches) is drawn faint as it is, with its running mean over it: an
  exponential moving average over about a twentieth of the points, of the logarithms
  when the axis is logarithmic.
* A short series (a test cost per pass) is drawn with markers, over the others; a long
  smooth one as a plain line.
* The y axis is logarithmic when every value is positive and the values span
  ``LOG_SPAN`` (two orders of magnitude) or more, as a cost falling from its first
  batches does; else linear.
* The y limits take in the running means, the short series and the middle 96% of the
  raw points: a few spikes of single batches may leave the axes, the curves never do.
* The legend sits above the axes, in one row, never over the data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SMOOTH_FROM = 50
LOG_SPAN = 100.0
FAINT = 0.3


def smoothed(values: Any, log: bool = False) -> np.ndarray:
    """The debiased exponential moving average of ``values`` over a window of about a
    twentieth of them (at least 5), of ``log(values)`` when ``log``; the first point is
    the first value.

    Example:
        >>> smoothed([1.0, 1.0, 1.0]).tolist()
        [1.0, 1.0, 1.0]
    """
    x = np.asarray(values, dtype=np.float64)
    if log:
        x = np.log(x)
    window = max(5, len(x) // 20)
    decay = 1.0 - 2.0 / (window + 1)
    out, mean, weight = np.empty_like(x), 0.0, 0.0
    for i, v in enumerate(x):
        mean, weight = decay * mean + (1 - decay) * v, decay * weight + (1 - decay)
        out[i] = mean / weight
    return np.exp(out) if log else out


def noisy(values: np.ndarray) -> bool:
    """Whether consecutive values jump about: their median step is over a tenth of the
    spread of the values (their 10th to 90th percentile), as batch costs do and a
    per-pass test cost does not."""
    if len(values) < 3:
        return False
    low, high = np.percentile(values, [10, 90])
    return bool(np.median(np.abs(np.diff(values))) > 0.1 * (high - low))


def log_scale(series: list[np.ndarray]) -> bool:
    """Whether the values of ``series`` call for a logarithmic axis (see the module)."""
    values = np.concatenate([s for s in series if len(s)] or [np.zeros(0)])
    if not len(values) or not np.all(np.isfinite(values)) or values.min() <= 0:
        return False
    return bool(values.max() / values.min() >= LOG_SPAN)


def draw(axes: Any, lines: list[tuple[str, list[Any], list[float]]]) -> None:
    """Draw ``lines`` (title, steps, values) on ``axes`` as the module says.

    Args:
        axes: a matplotlib ``Axes``.
        lines: the series with data, in legend order.
    """
    arrays = [(t, np.asarray(s, dtype=np.float64), np.asarray(v, np.float64)) for t, s, v in lines]
    log = log_scale([v for _, _, v in arrays])
    shown: list[np.ndarray] = []  # what the y limits must take in
    for i, (title, steps, values) in enumerate(arrays):
        color, short = f"C{i}", len(values) < SMOOTH_FROM
        if not short and noisy(np.log(values) if log else values):
            axes.plot(steps, values, color=color, alpha=FAINT, linewidth=0.8)
            mean = smoothed(values, log)
            axes.plot(steps, mean, color=color, linewidth=2.0, label=title)
            shown += [mean, np.percentile(values, [2, 98])]
        else:
            marker = {"marker": "o", "markersize": 4} if short else {}
            axes.plot(steps, values, color=color, linewidth=1.5, zorder=3, label=title, **marker)
            shown.append(values)
    if log:
        axes.set_yscale("log")
    _limit(axes, np.concatenate(shown) if shown else np.zeros(0), log)
    if arrays:
        axes.legend(
            loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=len(arrays), frameon=False
        )
    axes.grid(True, which="major", alpha=0.3)


def _limit(axes: Any, values: np.ndarray, log: bool) -> None:
    """Set the y limits to ``values``' range with a margin (in log space on a log axis)."""
    values = values[np.isfinite(values)]
    if not len(values):
        return
    low, high = values.min(), values.max()
    if log:
        low, high = np.log10(low), np.log10(high)
    margin = 0.05 * (high - low) or (0.5 if log else 0.5 * max(abs(high), 1.0))
    low, high = low - margin, high + margin
    axes.set_ylim(*((10**low, 10**high) if log else (low, high)))
