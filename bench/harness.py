"""Side-by-side measurement in one process: cold first pass, then interleaved timed passes.

For each model every side is built and runs one cold pass (compilations counted
and timed from network construction to the pass's end), then ``reps`` rounds run
one pass of every side each, the order rotating every round so drift and
neighbours' load hit all sides alike. Reported per side: median seconds per pass,
samples/s, the ratio to each plain JAX side (device batches; Python rows where it
runs): the median over rounds of the ratio within each round, which drift between
rounds cannot bias; and the cold-start and device-call figures.
"""

from __future__ import annotations

import contextlib
import gc
import resource
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.monitoring
import numpy as np

import paddle_lite as paddle
from bench import data
from bench.sides import JaxSide, LiteSide, RowJaxSide, TorchSide

TRACE = "/jax/core/compile/jaxpr_trace_duration"
LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"


@contextlib.contextmanager
def compile_events() -> Iterator[dict[str, float]]:
    """Count XLA lowerings and sum tracing + lowering + XLA compile seconds in the block."""
    seen = {"lowerings": 0, "seconds": 0.0}

    def listen(event: str, duration: float, **kwargs: Any) -> None:
        if event == LOWER:
            seen["lowerings"] += 1
        if event in (TRACE, LOWER, COMPILE):
            seen["seconds"] += duration

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)


def peak_memory_mb(side: Any) -> float | None:
    """The process's peak memory so far: device peak on GPUs, else max RSS (MB)."""
    if isinstance(side, TorchSide) and side.device == "cuda":
        return side.nets.torch.cuda.max_memory_allocated() / 2**20
    stats = jax.devices()[0].memory_stats() if jax.default_backend() != "cpu" else None
    if stats and "peak_bytes_in_use" in stats:
        return stats["peak_bytes_in_use"] / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def make_sides(model: Any, options: dict[str, Any]) -> list[Any]:
    """paddle_lite (samples; K steps per dispatch; columns), plain JAX on device batches,
    plain JAX fed Python rows (where its network counts errors), PyTorch."""
    sides = [LiteSide(model, "paddle_lite")]
    k = options.get("k", 8)
    if k > 1:
        sides.append(LiteSide(model, f"paddle_lite K={k}", k=k))
    if options.get("columns", True):
        sides.append(LiteSide(model, "paddle_lite columns", columns=True))
    precision = options.get("matmul_precision", "highest")
    sides.append(JaxSide(model, precision))
    if model.jax().scored is not None:
        sides.append(RowJaxSide(model, precision))
    if options.get("torch_nets") is not None and model.torch is not None:
        device = options.get("torch_device", "cpu")
        sides.append(TorchSide(model, options["torch_nets"], device))
        if model.images:
            sides.append(TorchSide(model, options["torch_nets"], device, channels_last=True))
    return sides


def pass_groups(model: Any, steps: int, seed: int = 0) -> list[list[Any]]:
    """The batches of one pass: ``steps`` batches of synthetic samples.

    A model with a ``window`` draws them as ``bucket_by_length`` would from a full
    sorting window (so a short pass pads as a real one does): the first ``steps`` of
    the window's bucketed batches. Read through ``paddle.batch`` instead, the same
    samples come in a random order.
    """
    rng = np.random.default_rng(seed)
    if not model.window:
        return data.batches(model.samples(steps * model.batch, rng), model.batch)
    pool = model.samples(model.window * model.batch, rng)
    reader = paddle.reader.bucket_by_length(lambda: iter(pool), model.batch, seed=seed)
    chosen = list(reader())[:steps]
    if model.bucketed:
        return chosen
    samples = [s for group in chosen for s in group]
    rng.shuffle(samples)
    return data.batches(samples, model.batch)


def _timed(side: Any) -> float:
    gc.collect()
    start = time.perf_counter()
    side.run()
    return time.perf_counter() - start


def interleaved(
    runs: dict[str, Callable[[], Any]], rounds: int, clock: Callable[[], float] = time.perf_counter
) -> dict[str, list[float]]:
    """Each run's time in each of ``rounds`` rounds; round ``r`` starts at run ``r`` and
    goes round the others, so machine noise hits them alike."""
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            start = clock()
            runs[name]()
            times[name].append(clock() - start)
    return times


def warm_up() -> None:
    """Start JAX's backend and compile one tiny gradient program, so the first side
    measured does not pay for the process's own start."""
    f = jax.jit(jax.grad(lambda w, x: jax.numpy.sum(jax.numpy.tanh(x @ w))))
    jax.block_until_ready(f(np.ones((4, 2), np.float32), np.ones((3, 4), np.float32)))


def _cold(side: Any, groups: list[list[Any]]) -> dict[str, Any]:
    """Build ``side`` (network, parameters, device batches), then run its first pass;
    each phase's seconds and compilations are recorded apart."""
    with compile_events() as built:
        start = time.perf_counter()
        side.setup(groups)
        setup_s = time.perf_counter() - start
    with compile_events() as first:
        start = time.perf_counter()
        side.run()
        first_s = time.perf_counter() - start
    return {
        "setup_s": setup_s,
        "setup_compilations": built["lowerings"],
        "first_pass_s": first_s,
        "compile_s": first["seconds"],
        "compilations": first["lowerings"],
        "peak_mb": peak_memory_mb(side),
    }


def measure(model: Any, steps: int, reps: int, options: dict[str, Any]) -> dict[str, Any]:
    """Every side of ``model`` measured side by side; returns the model's report entry."""
    groups = pass_groups(model, steps)
    sides = make_sides(model, options)
    rows = {side.name: _cold(side, groups) for side in sides}
    times: dict[str, list[float]] = {side.name: [] for side in sides}
    for r in range(reps):
        for side in sides[r % len(sides) :] + sides[: r % len(sides)]:
            times[side.name].append(_timed(side))
    samples = sum(len(g) for g in groups)
    for side in sides:
        rows[side.name].update(_summary(side, groups, times, options))
    for name, row in rows.items():
        row["vs_jax"] = _paired(times[JaxSide.name], times[name])
        row["vs_jax_of_medians"] = row["samples_per_s"] / rows[JaxSide.name]["samples_per_s"]
        if RowJaxSide.name in rows:
            row["vs_jax_rows"] = _paired(times[RowJaxSide.name], times[name])
    return {"steps": len(groups), "samples": samples, "reps": reps, "sides": rows}


def _paired(reference: list[float], mine: list[float]) -> float:
    """Speed relative to ``reference``: the median over rounds of its time / mine."""
    return statistics.median(ref / t for ref, t in zip(reference, mine, strict=True))


def _summary(
    side: Any, groups: list[list[Any]], times: dict[str, list[float]], options: dict[str, Any]
) -> dict[str, Any]:
    """Speed from the timed passes, then device calls, memory and padding of ``side``."""
    mine = times[side.name]
    median = statistics.median(mine)
    return {
        "times_s": mine,
        "median_s": median,
        "samples_per_s": sum(len(g) for g in groups) / median,
        "ms_per_step": 1e3 * median / len(groups),
        "dispatches_per_step": side.dispatches(),
        "xla_step_mb": _mb(side.step_bytes()) if options.get("memory", True) else None,
        "padding_waste": (
            data.padding_waste(groups, side.padding) if side.padding is not None else None
        ),
    }


def _mb(n: int | None) -> float | None:
    return None if n is None else n / 2**20
