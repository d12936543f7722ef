"""The book's notebooks: in sync with their programs, and chapters 1 and 2 run headless.

Running a notebook checks what a Jupyter user sees: the cell that trains ends with one
image (the live cost curve, redrawn in place), no stray empty-figure output, and a widget
progress bar whose saved text is its final state (the last pass, all its batches, and
History's cost); the later cells hold the results; nothing is written into the
notebook's folder or a temporary folder. Needs the ``notebook`` extra (nbclient,
ipykernel, ipywidgets, jupytext); chapter 2 uses the real MNIST test images when the
shared data is there and separable synthetic digits otherwise.
"""

import importlib.util
import os
import pathlib
import re

import pytest

try:
    from tests.unit._dataset_fixtures import shared_datasets
except ImportError:  # pragma: no cover - run from inside tests/
    from unit._dataset_fixtures import shared_datasets

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
NOTEBOOK_EXTRA = ("nbclient", "nbformat", "jupytext", "ipykernel", "ipywidgets")
MISSING = [m for m in NOTEBOOK_EXTRA if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"the notebook extra is not installed (missing {', '.join(MISSING)}): "
    "pip install -e '.[notebook]'",
)
NOTEBOOKS = sorted(str(p.relative_to(BOOK).with_suffix("")) for p in BOOK.glob("*/*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def test_every_program_has_a_notebook():
    programs = sorted(BOOK.glob("*/train.py")) + sorted(BOOK.glob("*/infer.py"))
    assert NOTEBOOKS == sorted(str(p.relative_to(BOOK).with_suffix("")) for p in programs)


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_matches_its_program(notebook):
    import jupytext
    import nbformat

    want = jupytext.read(BOOK / f"{notebook}.py")
    have = nbformat.read(BOOK / f"{notebook}.ipynb", as_version=4)
    assert [(c.cell_type, c.source) for c in have.cells] == [
        (c.cell_type, c.source) for c in want.cells
    ], f"book/{notebook}.ipynb is stale: run jupytext --sync book/{notebook}.py"
    assert all(not c.get("outputs") for c in have.cells), "commit notebooks without outputs"
    assert have.metadata["kernelspec"]["name"] == "python3"
    settings = [c for c in have.cells if "parameters" in c.metadata.get("tags", [])]
    assert have.cells.index(settings[0]) == 1  # the settings come first, after the title
    command_line = [c for c in have.cells if c.cell_type == "raw"]
    assert all("argparse" in c.source for c in command_line)  # the script's, not run here


def _execute(notebook, overrides, tmp_path, monkeypatch, last_cell=None):
    """Run ``book/<notebook>.ipynb`` in a fresh kernel, in the empty folder
    ``tmp_path/"cwd"``, with ``overrides`` injected after its parameters cell (as papermill
    does) and ``last_cell`` appended; return the executed notebook."""
    import nbclient
    import nbformat

    nb = nbformat.read(BOOK / f"{notebook}.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(overrides))
    if last_cell:
        nb.cells.append(nbformat.v4.new_code_cell(last_cell))
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    cwd, temp = tmp_path / "cwd", tmp_path / "tmp"  # the kernel's own temporary folder
    cwd.mkdir(exist_ok=True)
    temp.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(temp))
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    assert list(cwd.iterdir()) == []  # nothing written into the notebook's folder
    assert not [p.name for p in temp.iterdir() if "paddle" in p.name]  # nor left in /tmp
    return nb


def _outputs(cell, kind):
    return [o for o in cell.get("outputs", []) if kind in o.get("data", {})]


def _text(cell):
    return "".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs
    )


def _check_training_cell(nb, batches):
    """The cell that trains: one image, no stray figure text, one widget bar whose saved
    text is the last pass done, with History's cost (printed by the last cell)."""
    (cell,) = [c for c in nb.cells if "trainer.train(" in c.source]
    images = _outputs(cell, "image/png")
    assert len(images) == 1, [o.get("output_type") for o in cell.outputs]
    assert images[0]["data"]["image/png"]  # base64 PNG of the last redraw
    text = _text(cell)
    assert "<Figure size" not in text and "TqdmWarning" not in text and "IProgress" not in text
    (bar,) = _outputs(cell, WIDGET)
    shown = re.sub(r"\d\d:\d\d", "T", bar["data"]["text/plain"])
    cost = nb.cells[-1].outputs[0]["text"].strip()  # History's, as the bar shows it
    want = rf"pass 2/2: 100%\|#+\| {batches}/{batches} \[T<T, +[\d.]+batch/s, {re.escape(cost)}.*\]"
    assert re.fullmatch(want, shown), shown
    for other in nb.cells:  # no other cell draws anything
        assert other is cell or not _outputs(other, "image/png")
    return text


HISTORY_COST = "print(f'cost={history.cost[-1]:.6g}')"


def test_chapter1_notebooks_train_then_infer(tmp_path, monkeypatch):
    saved = tmp_path / "saved"
    settings = f"num_passes = 2\nsave_dir = {str(saved)!r}"
    nb = _execute("01.fit_a_line/train", settings, tmp_path, monkeypatch, HISTORY_COST)
    text = _check_training_cell(nb, 202)
    assert "Test 1, Cost" in text and str(saved / "fit_a_line.tar") in text
    results = _text(nb.cells[-2])  # the results cell, after training
    assert "Test cost after 2 passes" in results and results.count("label=") == 5
    assert sorted(p.name for p in saved.iterdir()) == ["fit_a_line.tar", "params_pass_0.tar"]
    nb = _execute("01.fit_a_line/infer", f"save_dir = {str(saved)!r}", tmp_path, monkeypatch)
    assert _text(nb.cells[-1]).count("Predicted price: $") == 102


SMALL_MNIST = """
import os
import random
import numpy as np
import paddle_lite as paddle
random.seed(0)  # the chapter shuffles with the global random, as v2 did
net, num_passes, save_dir = "softmax", 2, {saved!r}
shared = {shared!r}
if os.path.exists(os.path.join(shared, "mnist", "t10k-images-idx3-ubyte.gz")):
    os.environ["PADDLE_LITE_DATA_HOME"] = shared
    train_reader = paddle.reader.firstn(paddle.dataset.mnist.test(), 1024)
    test_reader = paddle.reader.firstn(paddle.dataset.mnist.test(), 256)
else:  # no MNIST files: separable synthetic digits of the same shape
    rng = np.random.default_rng(0)
    centers = rng.uniform(-0.8, 0.8, size=(10, 784))
    labels = rng.integers(0, 10, 1280)
    x = np.clip(centers[labels] + 0.1 * rng.normal(size=(1280, 784)), -1, 1)
    samples = list(zip(x.astype(np.float32), labels.tolist()))
    rows = paddle.reader.creator.np_array(np.arange(1280))  # readers with a len()
    train_reader = paddle.reader.map_readers(lambda i: samples[i], paddle.reader.firstn(rows, 1024))
    test_reader = lambda: iter(samples[1024:])
"""


def test_chapter2_notebook_draws_one_live_curve(tmp_path, monkeypatch):
    code = SMALL_MNIST.format(shared=str(shared_datasets()), saved=str(tmp_path / "saved"))
    nb = _execute("02.recognize_digits/train", code, tmp_path, monkeypatch, HISTORY_COST)
    text = _check_training_cell(nb, 8)
    assert "Test with Pass 0" in text
    results = _text(nb.cells[-2])
    assert "The classification accuracy is" in results
    accuracy = float(results.split("The classification accuracy is ")[1].split("%")[0])
    assert accuracy > 30.0  # 16 steps at the book's aggressive rate: well beyond chance (10%)
