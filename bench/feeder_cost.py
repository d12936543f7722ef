"""Host cost of the feeder per batch, side by side for two source trees.

Each tree's ``paddle_lite`` is imported in its own worker process; the parent asks the
workers in turn (alternating which goes first), so machine noise hits both alike, and
reports the median microseconds per batch of each and their ratio. The batches are
the same in both workers (built from one seed, as the book's readers yield them):

- ``fit_a_line``: ``(float32[13], float32[1])`` arrays, batch 2 (uci_housing);
- ``mlp``: ``(float32[784] row of one image block, int label)``, batch 128 (mnist);
- ``ngram``: 5 Python int ids, batch 32 (imikolov).

Rows per shape:

- ``convert``: ``feeder.convert(batch)``;
- ``pipeline``: a pass through what ``trainer.train`` wraps around it on one CPU device
  (``checked`` + ``prefetch.device_batches``; in trees before those existed,
  ``prefetch.prefetch``), the step left out. The trees' feeds differ in one way this
  leaves out: since 7ccdd25 large ones are 64-byte aligned, which a CPU step adopts
  without the copy that the older unaligned arrays cost it.

Times are the worker thread's CPU time (``time.thread_time``: on a shared machine it
moves far less than wall-clock time, which ``--wall`` reports instead). ``--parts``
also times, in the first tree only, the pieces of that pipeline one by one.

Run: python bench/feeder_cost.py [--base /work/wt/base] [--rounds 15] [--shapes mlp,ngram]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np

HERE = pathlib.Path(__file__).resolve()
# shape -> (batch size, batches per round)
SHAPES = {"fit_a_line": (2, 2000), "mlp": (128, 100), "ngram": (32, 600)}


def samples(shape: str, n: int) -> list[tuple[Any, ...]]:
    """``n`` samples of ``shape``, as the book's dataset readers yield them."""
    rng = np.random.default_rng(0)
    if shape == "fit_a_line":
        rows = rng.normal(size=(n, 14)).astype(np.float32)
        return [(r[:-1].copy(), r[-1:].copy()) for r in rows]
    if shape == "mlp":
        block = rng.uniform(-1, 1, size=(n, 784)).astype(np.float32)
        labels = rng.integers(0, 10, n)
        return [(row, int(label)) for row, label in zip(block, labels, strict=True)]
    ids = np.minimum(rng.zipf(1.3, size=(n, 5)) - 1, 1999)
    return [tuple(int(v) for v in row) for row in ids]


def data_types(shape: str, paddle: Any) -> tuple[list[tuple[str, Any]], dict[str, int]]:
    dt = paddle.data_type
    if shape == "fit_a_line":
        types = [("x", dt.dense_vector(13)), ("y", dt.dense_vector(1))]
    elif shape == "mlp":
        types = [("pixel", dt.dense_vector(784)), ("label", dt.integer_value(10))]
    else:
        types = [(n, dt.integer_value(2000)) for n in ("w1", "w2", "w3", "w4", "w5")]
    return types, {name: i for i, (name, _) in enumerate(types)}


# worker side ---------------------------------------------------------------------------


def _pipeline(feeder: Any) -> Any:
    """A function running one pass of batches through the trainer's host path."""
    import importlib

    from paddle_lite._src.feeding.checks import checked

    try:  # the module's name has moved between the trees compared
        chunks = importlib.import_module("paddle_lite._src.training.chunks")
    except ImportError:
        chunks = importlib.import_module("paddle_lite._src.prefetch")
    if not hasattr(chunks, "device_batches"):  # the tree predates it: train() called prefetch()
        return lambda batches: sum(1 for _ in chunks.prefetch(iter(batches), feeder.convert))
    device_batches = chunks.device_batches

    def run(batches: list[Any]) -> int:
        reader, convert = checked(lambda: iter(batches), feeder.convert, "train() pass 0")
        return sum(1 for _ in device_batches(reader, convert, 1))

    return run


def _parts(feeder: Any, batches: list[Any]) -> dict[str, Any]:
    """The trainer's per-batch host path, piece by piece (each over all ``batches``)."""
    import importlib

    from paddle_lite._src.feeding import checks as input_checks

    try:
        prefetch = importlib.import_module("paddle_lite._src.training.chunks")
    except ImportError:
        prefetch = importlib.import_module("paddle_lite._src.prefetch")

    converted = [feeder.convert(b) for b in batches]
    numbered = input_checks.numbered(feeder.convert, "train() pass 0")
    sized = [(f, len(b)) for f, b in zip(converted, batches, strict=True)]
    return {
        "convert": lambda: _each(feeder.convert, batches),
        "numbered(convert)": lambda: _each(numbered, batches),
        "reader_batches": lambda: sum(
            1 for _ in input_checks.reader_batches(lambda: iter(batches), "train() pass 0")
        ),
        "_size(feeds)": lambda: _each(prefetch._size, converted),
        "chunks(k=1)": lambda: sum(1 for _ in prefetch.chunks(iter(sized), 1)),
        "signature(feeds)": lambda: _each(prefetch.signature, converted),
    }


def _each(function: Any, items: list[Any]) -> None:
    """``function`` over ``items``, each result dropped at once (as a step would use it)."""
    for item in items:
        function(item)


def _timed(run: Any, n: int, clock: Any) -> float:
    start = clock()
    run()
    return 1e6 * (clock() - start) / n


def worker(tree: str) -> None:
    """Answer ``{"shape", "row"}`` requests on stdin with microseconds per batch."""
    sys.path.insert(0, tree)
    import paddle_lite as paddle
    from paddle_lite._src.feeding.feeder import DataFeeder

    assert pathlib.Path(paddle.__file__).is_relative_to(tree), paddle.__file__
    runs: dict[tuple[str, str], tuple[Any, int]] = {}
    for shape, (size, count) in SHAPES.items():
        pool = samples(shape, size * count)
        batches = [pool[i : i + size] for i in range(0, len(pool), size)]
        feeder = DataFeeder(*data_types(shape, paddle))
        pipeline = _pipeline(feeder)
        runs[shape, "convert"] = (lambda f=feeder, b=batches: _each(f.convert, b), count)
        runs[shape, "pipeline"] = (lambda p=pipeline, b=batches: p(b), count)
        if os.environ.get("FEEDER_COST_PARTS"):
            for name, run in _parts(feeder, batches).items():
                runs[shape, name] = (run, count)
    for run, _ in runs.values():  # warm every path (imports, jax backend, caches)
        run()
    print(json.dumps({"rows": sorted({row for _, row in runs})}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        run, count = runs[request["shape"], request["row"]]
        clock = time.perf_counter if request.get("wall") else time.thread_time
        print(json.dumps(_timed(run, count, clock)), flush=True)


# parent side ---------------------------------------------------------------------------


class Worker:
    def __init__(self, tree: str, parts: bool) -> None:
        env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
        env["PYTHONPATH"] = tree
        if parts:
            env["FEEDER_COST_PARTS"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE), "--worker", tree],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )
        self.rows = json.loads(self.proc.stdout.readline())["rows"]

    def time(self, shape: str, row: str, wall: bool) -> float:
        self.proc.stdin.write(json.dumps({"shape": shape, "row": row, "wall": wall}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main(trees: list[str], shapes: list[str], rounds: int, parts: bool, wall: bool) -> None:
    workers = [Worker(t, parts and i == 0) for i, t in enumerate(trees)]
    rows = [r for r in ("convert", "pipeline") if r in workers[0].rows]
    extra = [r for r in workers[0].rows if r not in rows]
    times: dict[tuple[str, str, int], list[float]] = {}
    for r in range(rounds):
        for shape in shapes:
            for row in rows:
                order = range(len(workers)) if r % 2 == 0 else reversed(range(len(workers)))
                for i in order:
                    times.setdefault((shape, row, i), []).append(workers[i].time(shape, row, wall))
            for row in extra:
                times.setdefault((shape, row, 0), []).append(workers[0].time(shape, row, wall))
    for w in workers:
        w.close()
    med = {key: statistics.median(v) for key, v in times.items()}
    clock = "wall-clock" if wall else "thread CPU time"
    print(f"trees: {' | '.join(trees)}")
    print(f"median of {rounds} interleaved rounds, {clock}, us per batch; ratios: first / other")
    for shape in shapes:
        for row in rows:
            cells = [f"{med[shape, row, i]:8.1f}" for i in range(len(workers))]
            ratio = "".join(
                f"  ratio {med[shape, row, 0] / med[shape, row, i]:.3f}"
                for i in range(1, len(workers))
            )
            print(f"{shape:10s} {row:18s} {' '.join(cells)}{ratio}")
        for row in extra:
            print(f"{shape:10s} {row:18s} {med[shape, row, 0]:8.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--base", action="append", default=[], help="another tree to compare")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--parts", action="store_true", help="time the pipeline's pieces")
    parser.add_argument("--wall", action="store_true", help="wall-clock, not thread CPU time")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
    else:
        trees = [str(HERE.parents[1]), *args.base]
        main(trees, args.shapes.split(","), args.rounds, args.parts, args.wall)
