"""``python -m bench``: paddle_lite against plain JAX + optax (and PyTorch) on the book's models.

Examples::

    python -m bench --quick                      # CI smoke run with a loose guard
    python -m bench                              # full table into docs/benchmarks.md
    python -m bench --models mlp,lstm --reps 7 --steps 200 --json /tmp/b.json

On a GPU the book's full shapes are the default (``--full``); on a CPU some models
are shrunk, and the report says which and how. See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from typing import Any

QUICK_MODELS = ("tiny", "fit_a_line", "mlp", "ngram")
GUARD_MODEL, GUARD_RATIO = "mlp", 0.6


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="few steps, 3 reps, small models")
    p.add_argument(
        "--full",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the book's full shapes (default: on when JAX computes on a GPU)",
    )
    p.add_argument("--models", help="comma-separated keys (default: all; quick: a subset)")
    p.add_argument("--reps", type=int, help="timed repetitions per side (default 5, quick 3)")
    p.add_argument("--steps", type=int, help="batches per repetition (default: per model)")
    p.add_argument("--k", type=int, default=8, help="steps_per_dispatch of the extra row (1: none)")
    p.add_argument("--precision", choices=["float32", "tf32"], default="float32")
    p.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    p.add_argument("--torch", action="store_true", help="include PyTorch in a quick run")
    p.add_argument("--no-memory", action="store_true", help="skip XLA's memory analysis")
    p.add_argument("--json", help="JSON output (default: bench/results/<platform>[-<mode>].json)")
    p.add_argument("--markdown", help="markdown output (default: docs/benchmarks.md)")
    p.add_argument("--guard", type=float, help=f"fail if the {GUARD_MODEL} ratio is below this")
    p.add_argument("--render", metavar="JSON", help="only rewrite the markdown from a results file")
    p.add_argument(
        "--input-scaling",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure input at scale for 1, 2 and 4 processes (default: on but in --quick)",
    )
    return p.parse_args(argv)


def _torch(disabled: bool) -> tuple[Any, str | None]:
    """``(bench.torch_nets, None)`` when PyTorch imports, else ``(None, why not)``."""
    if disabled:
        return None, "PyTorch was not asked for (--no-torch, or --quick without --torch)."
    # In one process with XLA's thread pool on a busy machine, OpenMP's spinning
    # workers made a PyTorch MLP step 50x slower; passive waiting keeps both fair.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        from bench import torch_nets
    except ImportError:
        return None, (
            "PyTorch is not installed (pip install torch, or the extra `bench`): its rows, "
            "eager and channels_last, are left out."
        )
    return torch_nets, None


def run_suite(
    keys: list[str], mode: str, reps: int, steps: int | None, options: dict[str, Any]
) -> dict[str, Any]:
    """Measure each model of ``keys``; returns the report's ``models`` section."""
    from bench import harness, models

    registry = models.registry(mode)
    unknown = [k for k in keys if k not in registry]
    if unknown:
        raise SystemExit(f"unknown model(s) {unknown}; choose from {list(registry)}")
    harness.warm_up()
    out = {}
    for key in keys:
        model = registry[key]
        start = time.perf_counter()
        entry = harness.measure(model, steps or model.steps, reps, options)
        out[key] = {
            "title": model.title,
            "config": model.config,
            "shrunk": model.shrunk,
            "batch": model.batch,
            **entry,
        }
        row = entry["sides"]["paddle_lite"]
        rows = f", Python rows {row['vs_jax_rows']:.2f}" if "vs_jax_rows" in row else ""
        print(
            f"{key}: paddle_lite / plain JAX: device batches {row['vs_jax']:.2f}{rows} "
            f"({time.perf_counter() - start:.0f} s)"
        )
    return out


def _outputs(args: argparse.Namespace, mode: str, platform: str) -> tuple[str | None, str | None]:
    """Where the JSON and markdown go; a quick run writes only where it is told to."""
    if args.quick:
        return args.json, args.markdown
    name = platform if mode == "cpu" else f"{platform}-{mode}"  # cpu.json, gpu-full.json
    default_json = os.path.join("bench", "results", f"{name}.json")
    return args.json or default_json, args.markdown or os.path.join("docs", "benchmarks.md")


def _guard(args: argparse.Namespace, result: dict[str, Any], platform: str) -> int:
    limit = args.guard if args.guard is not None else (GUARD_RATIO if args.quick else None)
    row = result["models"].get(GUARD_MODEL, {}).get("sides", {}).get("paddle_lite")
    if limit is None or row is None or platform != "cpu":
        return 0
    if row["vs_jax"] < limit:
        print(f"FAIL: {GUARD_MODEL} paddle_lite / plain JAX = {row['vs_jax']:.2f} < {limit}")
        return 1
    print(f"guard: {GUARD_MODEL} paddle_lite / plain JAX = {row['vs_jax']:.2f} >= {limit}")
    return 0


def _start_jax(precision: str) -> str:
    """Configure JAX and paddle_lite before anything compiles; returns the platform."""
    import jax

    # A fresh persistent cache that nothing is written to: paddle_lite looks programs up
    # in it as in a user's run, and every compilation of this run is cold (one side's
    # program cannot hit another's identical one).
    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="bench-jax-cache-"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)
    import paddle_lite as paddle

    paddle.init(precision=precision)
    return jax.default_backend()


def _options(args: argparse.Namespace, platform: str, torch_nets: Any) -> dict[str, Any]:
    return {
        "k": args.k,
        "columns": not args.quick,
        "torch_nets": torch_nets,
        "torch_device": "cuda" if platform == "gpu" else "cpu",
        "matmul_precision": "highest" if args.precision == "float32" else "default",
        "memory": not (args.no_memory or args.quick),
    }


KEPT = "<!-- Written by hand from here on: python -m bench keeps it. -->"


def _kept_tail(md_path: str) -> str:
    """The hand-written part of an existing report (from the ``KEPT`` line on), or ''."""
    try:
        with open(md_path) as f:
            old = f.read()
    except OSError:
        return ""
    at = old.find(KEPT)
    return "" if at < 0 else "\n" + old[at:]


def _write(text: str, result: dict[str, Any], json_path: str | None, md_path: str | None) -> None:
    from bench import report

    if json_path:
        report.write_json(result, json_path)
    if md_path:
        os.makedirs(os.path.dirname(md_path) or ".", exist_ok=True)
        tail = _kept_tail(md_path)
        with open(md_path, "w") as f:
            f.write(text + tail)


def _render(json_path: str, md_path: str) -> int:
    """Rewrite ``md_path`` from the results in ``json_path`` (no measuring)."""
    import json

    from bench import report

    with open(json_path) as f:
        result = json.load(f)
    _write(report.markdown(result), result, None, md_path)
    print(f"wrote {md_path} from {json_path}")
    if os.path.basename(md_path) == "benchmarks.md":  # the page shows the chart
        from bench import chart

        chart.draw(result, os.path.join(os.path.dirname(md_path), report.CHART))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the suite as ``argv`` asks; returns the exit status (1: the guard failed)."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.render:
        return _render(args.render, args.markdown or os.path.join("docs", "benchmarks.md"))
    torch_nets, no_torch = _torch(args.no_torch or (args.quick and not args.torch))
    platform = _start_jax(args.precision)
    from bench import models, report

    full = args.full if args.full is not None else platform == "gpu"
    mode = "quick" if args.quick else ("full" if full else "cpu")
    keys = args.models.split(",") if args.models else None
    keys = keys or (list(QUICK_MODELS) if args.quick else list(models.registry(mode)))
    reps = args.reps or (3 if args.quick else 5)
    command = " ".join(["python -m bench"] + [shlex.quote(a) for a in argv])
    result = {
        "device": report.device_info(torch_nets.torch if torch_nets else None),
        "options": {
            "mode": mode,
            "reps": reps,
            "precision": args.precision,
            "k": args.k,
            "command": command,
        },
        "models": run_suite(keys, mode, reps, args.steps, _options(args, platform, torch_nets)),
        "notes": [no_torch] if no_torch else [],
    }
    if args.input_scaling if args.input_scaling is not None else not args.quick:
        from bench import input_scaling

        result["input_scaling"] = input_scaling.measure([1, 2, 4])
    text = report.markdown(result)
    print(text)
    _write(text, result, *_outputs(args, mode, platform))
    return _guard(args, result, platform)


if __name__ == "__main__":
    sys.exit(main())
