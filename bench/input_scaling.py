"""Input at scale: what each process reads, and what a restart costs, for 1, 2 and 4 processes.

A record file of ``SAMPLES`` MNIST-sized samples (784 floats and a label) is written with
``write_recordio`` (so it has its index); the chapter-2 MLP trains on it under
``python -m paddle_lite.launch --nproc N`` through a seekable reader,
``paddle.batch(shuffle(map_readers(count, creator.recordio(path)), seed=1), 128)``. For
each N the report gives, per process and pass: the samples read and converted, the input
time per step (the pass's input pipeline alone: reading by index and converting, no
training), the job's samples/s over a timed pass after a warm-up one, and the time from a
restarted ``train()`` to its first step, resumed from a checkpoint early and late in the
pass (with the samples read before that step: a seek reads none of the pass before the
checkpoint). The index's cost per record is measured once: a rebuild from a scan of the
records, and a load of the written index.

Run: python bench/input_scaling.py [--processes 1,2,4] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

SAMPLES, BATCH = 4096, 128
EARLY, LATE = 4, 28  # the batches of the pass a restart resumes after


def _reader(paddle, path: str, counts: list[int]):
    from paddle_lite.reader import creator

    def sample(record):
        counts[0] += 1
        return record

    samples = paddle.reader.map_readers(sample, creator.recordio(path))
    return paddle.batch(paddle.reader.shuffle(samples, SAMPLES, seed=1), BATCH)


def _trainer(paddle):
    x = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    y = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    h = paddle.layer.fc(input=x, size=128, act=paddle.activation.Relu())
    h = paddle.layer.fc(input=h, size=64, act=paddle.activation.Relu())
    p = paddle.layer.fc(input=h, size=10, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=p, label=y)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.1 / 128.0)
    return paddle.trainer.SGD(cost, params, optimizer)


def child(path: str, mode: str, folder: str, out: str) -> None:
    """One process of a job: ``mode`` is ``pass`` (warm-up and timed pass, input alone),
    ``stop-<b>`` (train with checkpoints until batch b, then exit 3) or ``resume``."""
    import paddle_lite as paddle

    paddle.init(seed=1)
    counts = [0]
    reader, trainer = _reader(paddle, path, counts), _trainer(paddle)
    rank = int(os.environ.get("PADDLE_LITE_PROCESS_ID", "0"))
    result: dict = {}
    if mode == "pass":
        trainer.train(reader, num_passes=1)  # compile and warm up
        counts[0] = 0
        start = time.perf_counter()
        trainer.train(reader, num_passes=1)
        result.update(seconds=time.perf_counter() - start, read=counts[0])
        result["input_per_step"] = _input_alone(paddle, trainer, reader)
    elif mode.startswith("stop-"):
        stop = int(mode.split("-")[1])

        def handler(event):
            if isinstance(event, paddle.event.EndIteration) and event.batch_id == stop:
                raise SystemExit(3)  # the checkpoint after `stop` batches is written

        trainer.train(reader, 1, handler, checkpoint_dir=folder, checkpoint_every=stop)
    else:
        trainer.load_checkpoint(folder)
        seen: dict = {}

        def first(event):
            if isinstance(event, paddle.event.EndIteration) and not seen:
                seen.update(seconds=time.perf_counter() - start, read=counts[0])

        start = time.perf_counter()
        trainer.train(reader, 1, first, checkpoint_dir=folder)
        result.update(first_step=seen["seconds"], read_before=seen["read"])
    with open(f"{out}.{rank}.json", "w") as f:
        json.dump(result, f)


def _input_alone(paddle, trainer, reader) -> float:
    """Seconds per step of one pass's input pipeline (read by index, convert), no step."""
    from paddle_lite._src.feeding.checks import feeder_for
    from paddle_lite._src.training.chunks import RowPadding
    from paddle_lite._src.training.input import pass_input
    from paddle_lite._src.training.resume import Resume

    feeder = feeder_for(trainer.__topology__)
    start = time.perf_counter()
    steps = sum(1 for _ in pass_input(reader, feeder, RowPadding(), Resume(), 0))
    return (time.perf_counter() - start) / steps


def _launch(nproc: int, *args: str, code: int = 0) -> None:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    command = [sys.executable, "-m", "paddle_lite.launch", "--nproc", str(nproc), __file__]
    done = subprocess.run([*command, "--child", *args], env=env, capture_output=True)
    if done.returncode != code:
        raise RuntimeError(f"{args}: exit {done.returncode}\n{done.stdout.decode()[-3000:]}")


def _results(out: str, nproc: int) -> list[dict]:
    return [json.load(open(f"{out}.{r}.json")) for r in range(nproc)]


def _index_costs(path: str) -> dict:
    from paddle_lite._src.readers import record_index

    os.remove(path + record_index.SUFFIX)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the missing index's DataWarning
        record_index.records_view(path)  # a scan, and the index written again
    scan = (time.perf_counter() - start) / SAMPLES
    start = time.perf_counter()
    record_index.records_view(path)
    return {"scan_per_record_s": scan, "load_per_record_s": (time.perf_counter() - start) / SAMPLES}


def measure(processes: list[int]) -> dict:
    """The figures of the module docstring, for each count in ``processes``."""
    from paddle_lite.reader import creator

    work = tempfile.mkdtemp(prefix="input-scaling-")
    path = os.path.join(work, "mnist.rec")
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (SAMPLES, 784)).astype(np.float32)
    y = rng.integers(0, 10, SAMPLES).tolist()
    creator.write_recordio(path, lambda: iter(zip(x, y, strict=True)))
    rows = []
    for n in processes:
        out = os.path.join(work, f"pass{n}")
        _launch(n, path, "pass", "-", out)
        passes = _results(out, n)
        row = {
            "processes": n,
            "read_per_process": [p["read"] for p in passes],
            "input_per_step_s": max(p["input_per_step"] for p in passes),
            "samples_per_s": SAMPLES / max(p["seconds"] for p in passes),
        }
        for name, at in (("early", EARLY), ("late", LATE)):
            folder = os.path.join(work, f"ck{n}{name}")
            _launch(n, path, f"stop-{at}", folder, os.path.join(work, "stop"), code=3)
            _launch(n, path, "resume", folder, out + name)
            resumed = _results(out + name, n)
            row[f"restart_{name}_s"] = max(r["first_step"] for r in resumed)
            row[f"read_before_{name}"] = max(r["read_before"] for r in resumed)
        rows.append(row)
    return {"samples": SAMPLES, "batch": BATCH, "early": EARLY, "late": LATE,
            "rows": rows, "index": _index_costs(path)}  # fmt: skip


def markdown(result: dict) -> list[str]:
    """The report's section for ``result`` (``measure``'s)."""
    index = result["index"]
    lines = [
        "## Input at scale",
        "",
        f"The chapter-2 MLP on {result['samples']:,} samples of a record file, batches of "
        f"{result['batch']}, through a seekable reader (`bench/input_scaling.py`). *Read per "
        "process*: samples each process read and converted in a pass. *Input per step*: the "
        "pass's input pipeline alone (reading by index and converting). *Restart*: from a "
        "restarted `train()` to its first step, resumed after batch "
        f"{result['early']} and after batch {result['late']} of the pass, with the samples a "
        "process read before that step. Processes share this machine's two cores.",
        "",
        "| processes | read per process | input per step | samples/s | restart (early) | "
        "restart (late) |",
        "| ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['processes']} | {', '.join(map(str, row['read_per_process']))} | "
            f"{row['input_per_step_s'] * 1e3:.2f} ms | {row['samples_per_s']:,.0f} | "
            f"{row['restart_early_s']:.2f} s, {row['read_before_early']} read | "
            f"{row['restart_late_s']:.2f} s, {row['read_before_late']} read |"
        )
    lines += [
        "",
        f"The record file's index: a rebuild from a scan costs "
        f"{index['scan_per_record_s'] * 1e6:.1f} µs a record, a load of the written index "
        f"{index['load_per_record_s'] * 1e9:.0f} ns a record.",
        "",
    ]
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:6])
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--json", help="add the figures to this results file (bench/results)")
    args = parser.parse_args()
    figures = measure([int(n) for n in args.processes.split(",")])
    print("\n".join(markdown(figures)))
    if args.json:
        with open(args.json) as f:
            saved = json.load(f)
        saved["input_scaling"] = figures
        with open(args.json, "w") as f:
            json.dump(saved, f, indent=1)
