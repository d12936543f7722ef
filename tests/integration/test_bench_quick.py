"""The benchmark suite's harness runs end to end on one tiny model and reports sanely.

A smoke test of ``python -m bench --quick``'s machinery, not a timing assertion: the
report has every side and column, and its numbers are positive.
"""

import json

import pytest

from bench import report
from bench.__main__ import run_suite

SIDES = [
    "paddle_lite",
    "paddle_lite K=4",
    "paddle_lite columns",
    "plain JAX",
    "plain JAX (Python rows)",
]


@pytest.fixture(scope="module")
def result():
    options = {"k": 4, "columns": True, "torch_nets": None, "memory": True}
    models = run_suite(["fit_a_line"], "quick", reps=2, steps=8, options=options)
    info = report.device_info()
    options = {"mode": "quick", "reps": 2, "precision": "float32", "k": 4, "command": "test"}
    return {"device": info, "options": options, "models": models, "notes": []}


def test_every_side_reports_positive_numbers(result):
    entry = result["models"]["fit_a_line"]
    assert entry["steps"] == 8 and entry["samples"] == 16 and entry["reps"] == 2
    assert list(entry["sides"]) == SIDES
    for name, row in entry["sides"].items():
        assert len(row["times_s"]) == 2 and min(row["times_s"]) > 0, name
        keys = ("samples_per_s", "ms_per_step", "vs_jax", "vs_jax_rows", "first_pass_s")
        for key in (*keys, "peak_mb"):
            assert row[key] > 0, (name, key)
        assert row["compilations"] >= 1, name
        assert row["xla_step_mb"] > 0, name
        assert row["padding_waste"] is None  # not a sequence model
    sides = entry["sides"]
    assert sides["plain JAX"]["vs_jax"] == 1.0
    assert sides["plain JAX (Python rows)"]["vs_jax_rows"] == 1.0
    # one jitted call per batch, or per 4 stacked batches; nothing else
    assert sides["paddle_lite"]["dispatches_per_step"] == 1.0
    assert sides["paddle_lite K=4"]["dispatches_per_step"] == pytest.approx(2 / 8)


def test_markdown_and_json(result, tmp_path):
    text = report.markdown(result)
    assert text.startswith("# Benchmarks\n\n") and "\nDevice: " in text
    assert report.SPEED_HEADER.splitlines()[0] in text
    assert report.COST_HEADER.splitlines()[0] in text
    # a speed row, a cost row and a configuration row
    assert text.count("| ch. 1 fit a line |") == 3
    for name in SIDES:
        assert f"| {name} |" in text
    path = tmp_path / "out" / "bench.json"
    report.write_json(result, path)
    assert json.loads(path.read_text())["models"]["fit_a_line"]["batch"] == 2
