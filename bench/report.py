"""The benchmark's report: a device line, JSON, and the markdown of ``docs/benchmarks.md``."""

from __future__ import annotations

import datetime
import html
import json
import os
import pathlib
import platform
from importlib import metadata
from typing import Any

import jax

COLUMNS = """\
- **model**: the network and its shapes (the configuration table gives them in full).
- **side**: what trains it. *paddle_lite*: `trainer.train` over a reader of Python
  samples, as a v2 program runs, one compiled step per batch. *paddle_lite K=8*: the same
  with `steps_per_dispatch=8` (eight batches per compiled call). *paddle_lite columns*:
  the reader yields numpy column batches instead of lists of samples. *plain JAX*: the
  same network written directly in JAX + optax, its batches already on the device.
  *plain JAX (Python rows)*: plain JAX fed from the same reader of Python samples.
  *PyTorch eager* (and *channels_last* for the convolution nets): the same network in
  PyTorch, run op by op.
- **samples/s**: samples (sequences for the LSTMs) trained per second, from the median
  over the timed repetitions of one pass of `steps` batches; each repetition runs every
  side once, in an order that rotates, in the same process.
- **× plain JAX (device batches)**: speed relative to plain JAX + optax with every batch
  already on the device as numpy columns collated before timing (no reader, no
  conversion, the cost only): within each repetition, that side's pass time divided by
  this side's, then the median over repetitions (pairing each side with the plain JAX
  pass run moments apart cancels the machine's drift between repetitions; the JSON also
  has the ratio of the median samples/s, `vs_jax_of_medians`). The JSON's `vs_jax`.
- **× plain JAX (Python rows)**: the same ratio against plain JAX fed as paddle_lite is:
  the same reader of Python samples, each batch's arrays built from its rows
  (`np.stack` / `np.asarray`), one donated jitted step returning the batch's cost and
  classification errors (left on the device, as paddle_lite leaves them until a handler
  reads them). The JSON's `vs_jax_rows`; – where that side does not run (chapter 8).
- **ms/step**: median milliseconds per batch.
- **spread**: (slowest − fastest) / median of the timed passes: the noise of this row.
- **first pass s**: wall time of the first (cold) pass, compilation included.
- **compile s**: seconds JAX spent tracing, lowering and compiling with XLA during that
  pass (the persistent compilation cache starts empty in each run).
- **compilations**: XLA programs lowered during that pass. Building the network and its
  parameters before it is timed apart (the JSON's `setup_s` and `setup_compilations`):
  JAX programs that several sides share, such as random initialisers of one shape, are
  compiled by the first side that needs them, so those figures depend on the order.
- **dispatches/step**: calls of paddle_lite's compiled programs per batch over one pass
  (the step, the K-step scan, and the pass-end catch-up of lazily decayed sparse rows
  where there are any; the pass totals start as host zeros); plain JAX
  is one jitted call per batch by construction; PyTorch eager launches one kernel per op.
- **padding waste**: fraction of the padded time steps that are padding, as each side
  pads its batches (paddle_lite and plain JAX: the feeder's length buckets; PyTorch:
  each batch's longest sequence, its LSTMs then stop at every sequence's own length).
- **XLA step MB**: arguments + outputs + temporaries − donated aliases of the compiled
  step program for the pass's largest batch (`compiled.memory_analysis()`).
- **peak MB**: the process's peak memory after this side's first pass, cumulative over
  the run (CPU: max resident set size of the whole process; GPU: JAX's device
  `peak_bytes_in_use`, PyTorch's `torch.cuda.max_memory_allocated`).
"""


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def device_info(torch_module: Any = None) -> dict[str, Any]:
    """Platform, device kind, library versions, CPU count, date, load."""
    device = jax.devices()[0]
    info = {
        "platform": jax.default_backend(),
        "device_kind": device.device_kind,
        "device_count": jax.device_count(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": _version("jaxlib"),
        "optax": _version("optax"),
        "numpy": _version("numpy"),
        "torch": None,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }
    if torch_module is not None:
        info["torch"] = torch_module.__version__
        info["torch_threads"] = torch_module.get_num_threads()
        info["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY")
    return info


def device_line(info: dict[str, Any]) -> str:
    """One line naming the machine and the software measured."""
    torch = "torch not measured"
    if info.get("torch"):
        torch = f"torch {info['torch']} ({info['torch_threads']} threads"
        torch += f", OMP_WAIT_POLICY={info['omp_wait_policy']})" if info["omp_wait_policy"] else ")"
    load = info.get("load_average")
    return (
        f"{info['platform']} ({info['device_kind']}, {info['device_count']} device(s)), "
        f"{info['cpu_count']} CPUs; jax {info['jax']}, jaxlib {info['jaxlib']}, "
        f"optax {info['optax']}, numpy {info['numpy']}, {torch}; Python {info['python']}; "
        f"{info['date']}" + ("" if load is None else f"; 1-min load average {load:.1f} at start")
    )


def write_json(result: dict[str, Any], path: str | os.PathLike) -> None:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}" if abs(value) >= 1 else f"{value:.{digits + 1}g}"


def _ratio(name: str, value: float | None) -> str:
    if value is None:
        return "–"
    return f"**{value:.2f}**" if name == "paddle_lite" else f"{value:.2f}"


def _speed_row(title: str, name: str, row: dict[str, Any]) -> str:
    spread = (max(row["times_s"]) - min(row["times_s"])) / row["median_s"]
    cells = [
        title,
        name,
        _num(row["samples_per_s"]),
        _ratio(name, row["vs_jax"]),
        _ratio(name, row.get("vs_jax_rows")),
        _num(row["ms_per_step"], 3),
        f"{100 * spread:.0f}%",
    ]
    return "| " + " | ".join(cells) + " |"


def _cost_row(title: str, name: str, row: dict[str, Any]) -> str:
    waste = row.get("padding_waste")
    cells = [
        title,
        name,
        _num(row["first_pass_s"]),
        _num(row["compile_s"]),
        _num(row["compilations"]),
        _num(row["dispatches_per_step"]),
        "–" if waste is None else f"{100 * waste:.0f}%",
        _num(row["xla_step_mb"]),
        _num(row["peak_mb"], 0),
    ]
    return "| " + " | ".join(cells) + " |"


SPEED_HEADER = (
    "| model | side | samples/s | × plain JAX (device batches) | × plain JAX (Python rows) "
    "| ms/step | spread |\n"
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
)
COST_HEADER = (
    "| model | side | first pass s | compile s | compilations | dispatches/step "
    "| padding waste | XLA step MB | peak MB |\n"
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)
CHART = "img/benchmarks.png"  # drawn by bench/chart.py, relative to docs/


def _table(result: dict[str, Any], header: str, row) -> list[str]:
    lines = [header]
    for model in result["models"].values():
        for i, (name, values) in enumerate(model["sides"].items()):
            lines.append(row(model["title"] if i == 0 else "", name, values))
    return lines


def markdown(result: dict[str, Any]) -> str:
    """The whole report as markdown."""
    opts = result["options"]
    lines = [
        "# Benchmarks",
        "",
        "Training speed of the book's models in paddle_lite, in the same networks written "
        "directly in JAX + optax, and in PyTorch, as `python -m bench` measures them on one "
        "machine. *Columns* below says what each column means; "
        "[Performance notes](performance.md) say what the numbers show.",
        "",
        f"Device: {device_line(result['device'])}.",
        "",
        f"Mode `{opts['mode']}` ({_mode_text(opts['mode'])}); {opts['reps']} interleaved "
        f"repetitions per side; precision `{opts['precision']}`; command `{opts['command']}`.",
        "",
        f"![Speed of each side relative to plain JAX, per model]({CHART})",
        "",
        "## Speed",
        "",
        *_table(result, SPEED_HEADER, _speed_row),
        "",
        "## First pass, compilation and memory",
        "",
        *_table(result, COST_HEADER, _cost_row),
    ]
    if "input_scaling" in result:
        from bench import input_scaling

        lines += ["", *input_scaling.markdown(result["input_scaling"])]
    lines += ["", "## Configurations", "", "| model | measured configuration | shrunk |"]
    lines.append("| --- | --- | --- |")
    for model in result["models"].values():
        shrunk = model["shrunk"] or "no: the book's shapes"
        steps = f"; {model['steps']} batches per repetition"
        config = html.escape(model["config"], quote=False)  # "<s>/<e>" is text, not a tag
        lines.append(f"| {model['title']} | {config}{steps} | {shrunk} |")
    lines += ["", "## Columns", "", COLUMNS.rstrip()]
    notes = result.get("notes", []) + _tiny_note(result)
    notes.append(
        "What these numbers say, and the measurements behind it: "
        "[Performance notes](performance.md)."
    )
    lines += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _tiny_note(result: dict[str, Any]) -> list[str]:
    """The tiny model's per-step time as a multiple of each plain JAX side's, from the
    paired ratios of the speed table: the training loop's own cost per step."""
    model = result["models"].get("tiny")
    if model is None:
        return []
    lite = model["sides"]["paddle_lite"]
    parts = [f"{1 / lite['vs_jax']:.2f}x plain JAX's on device batches"]
    if lite.get("vs_jax_rows") is not None:
        parts.append(f"{1 / lite['vs_jax_rows']:.2f}x plain JAX's fed Python rows")
    return [
        f"Tiny model (fc 16->1, batch 16): paddle_lite's `trainer.train` takes "
        f"{_num(lite['ms_per_step'], 3)} ms per step, "
        + " and ".join(parts)
        + " (the time multiple is 1 / the speed ratio): the cost of the training loop "
        "itself, with almost no arithmetic per step."
    ]


def _mode_text(mode: str) -> str:
    return {
        "full": "the book's shapes",
        "cpu": "the book's shapes except where the configuration table says shrunk",
        "quick": "a smoke run on shrunk models, not a measurement",
    }[mode]
