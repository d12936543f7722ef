"""The benchmarks page's chart: each side's speed relative to plain JAX, per model.

``python bench/chart.py [results.json] [out.png]`` (defaults: ``bench/results/cpu.json``,
``docs/img/benchmarks.png``); ``python -m bench --render`` draws it too.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SIDES = ("paddle_lite", "paddle_lite K=8", "paddle_lite columns", "PyTorch eager")
OUT = "docs/img/benchmarks.png"


def draw(result: dict[str, Any], out: str = OUT) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(result["models"].values())
    fig, ax = plt.subplots(figsize=(8.0, 0.55 * len(models) + 2.2), dpi=120)
    height = 0.8 / len(SIDES)
    for k, side in enumerate(SIDES):
        ys, xs = [], []
        for i, model in enumerate(models):
            row = model["sides"].get(side)
            if row is not None:
                ys.append(i + (k - (len(SIDES) - 1) / 2) * height)
                xs.append(row["vs_jax"])
        ax.barh(ys, xs, height=height, label=side)
    ax.axvline(1.0, color="black", linewidth=1, label="plain JAX = 1")
    ax.set_yticks(range(len(models)), [m["title"] for m in models], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    speeds = [row["vs_jax"] for m in models for s, row in m["sides"].items() if s in SIDES]
    lo, hi = min(speeds + [1.0]), max(speeds + [1.0])
    ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10) if lo / 2 <= t <= hi * 2]
    ax.set_xticks(ticks, [f"{t:g}×" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("speed relative to plain JAX + optax (log scale; higher is faster)")
    ax.set_title("Training speed per model, relative to plain JAX", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.4, -0.1), ncol=3)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/cpu.json"
    with open(path) as f:
        draw(json.load(f), sys.argv[2] if len(sys.argv) > 2 else OUT)
