"""The book's notebooks: in sync with each train.py, and chapters 1 and 2 run headless.

Running a notebook checks what a Jupyter user sees: the cell that trains ends with exactly
one image (the live cost curve, redrawn in place), no stray empty-figure output, and a
widget progress bar. Needs the ``notebook`` extra (nbclient, ipykernel, ipywidgets,
jupytext); chapter 2 uses the real MNIST test images when the shared data is there and
separable synthetic digits otherwise.
"""

import importlib.util
import os
import pathlib

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
CHAPTERS = sorted(p.parent.name for p in BOOK.glob("*/train.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def test_every_chapter_has_a_notebook():
    assert CHAPTERS == sorted(p.parent.name for p in BOOK.glob("*/train.py"))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_notebook_matches_train_py(chapter):
    import jupytext
    import nbformat

    want = jupytext.read(BOOK / chapter / "train.py")
    have = nbformat.read(BOOK / chapter / "train.ipynb", as_version=4)
    assert [(c.cell_type, c.source) for c in have.cells] == [
        (c.cell_type, c.source) for c in want.cells
    ], f"book/{chapter}/train.ipynb is stale: run jupytext --sync book/{chapter}/train.py"
    assert all(not c.get("outputs") for c in have.cells), "commit notebooks without outputs"
    assert have.metadata["kernelspec"]["name"] == "python3"


def _execute(chapter, overrides, tmp_path, monkeypatch):
    """Run ``book/<chapter>/train.ipynb`` in a fresh kernel with ``overrides`` injected
    after its parameters cell (as papermill does); return the executed notebook."""
    import nbclient
    import nbformat

    nb = nbformat.read(BOOK / chapter / "train.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(overrides))
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=600,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    return nb


def _outputs(cell, kind):
    return [o for o in cell.get("outputs", []) if kind in o.get("data", {})]


def _check_live_cell(nb):
    """The last cell trains: one image, no stray figure text, a widget bar, no warning."""
    cell = nb.cells[-1]
    images = _outputs(cell, "image/png")
    assert len(images) == 1, [o.get("output_type") for o in cell.outputs]
    assert images[0]["data"]["image/png"]  # base64 PNG of the last redraw
    texts = [o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs]
    assert not any("<Figure size" in t for t in texts), texts
    assert not any("TqdmWarning" in t or "IProgress" in t for t in texts), texts
    assert len(_outputs(cell, WIDGET)) == 1, "one widget progress bar per train() call"
    for other in nb.cells[:-1]:  # no other cell draws anything
        assert not _outputs(other, "image/png")
    return "".join(texts)


def test_chapter1_notebook_draws_one_live_curve(tmp_path, monkeypatch):
    nb = _execute("01.fit_a_line", "num_passes = 2", tmp_path, monkeypatch)
    text = _check_live_cell(nb)
    assert "Test 1, Cost" in text and text.count("label=") == 5
    assert not list(tmp_path.iterdir())  # nothing written into the notebook's folder unasked


SMALL_MNIST = """
import os
import random
import numpy as np
import paddle_lite as paddle
random.seed(0)  # the chapter shuffles with the global random, as v2 did
net, num_passes = "softmax", 2
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
    train_reader = lambda: iter(samples[:1024])
    test_reader = lambda: iter(samples[1024:])
"""


def test_chapter2_notebook_draws_one_live_curve(tmp_path, monkeypatch):
    code = SMALL_MNIST.format(shared=str(shared_datasets()))
    nb = _execute("02.recognize_digits", code, tmp_path, monkeypatch)
    text = _check_live_cell(nb)
    assert "Test with Pass 0" in text and "The classification accuracy is" in text
    accuracy = float(text.split("The classification accuracy is ")[1].split("%")[0])
    assert accuracy > 30.0  # 16 steps at the book's aggressive rate: well beyond chance (10%)
