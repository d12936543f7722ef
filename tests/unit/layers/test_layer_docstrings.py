"""Docstrings of the public layers and networks: one template, and runnable examples.

Every public layer function (``paddle.layer``, ``paddle.networks``) documents its
arguments (``Args:``), its output and output size (``Returns:``) and has an example
written as a doctest; the examples run here, against the inputs of ``example_inputs``
(the names the examples use, listed on the API reference's layer page).
"""

import doctest
import inspect
import pathlib
import re

import pytest

import paddle_lite as paddle
from paddle_lite._src.graph import reset_names


def example_inputs():
    """The layers the docstring examples take as inputs, built fresh for each example."""
    L, DT, A = paddle.layer, paddle.data_type, paddle.activation
    reset_names()
    ns = {"paddle": paddle}
    ns["x"] = L.data(name="x", type=DT.dense_vector(8))
    ns["y"] = L.data(name="y", type=DT.dense_vector(8))
    ns["w"] = L.data(name="w", type=DT.dense_vector(1))
    ns["lbl"] = L.data(name="lbl", type=DT.integer_value(10))
    ns["word"] = L.data(name="word", type=DT.integer_value_sequence(100))
    ns["tags"] = L.data(name="tags", type=DT.integer_value_sequence(10))
    ns["img"] = L.data(name="img", type=DT.dense_vector(64), height=8, width=8)
    ns["emb"] = L.embedding(input=ns["word"], size=16)
    ns["prob"] = L.fc(input=ns["x"], size=10, act=A.Softmax())
    ns["conv"] = L.img_conv(
        input=ns["img"], filter_size=3, num_filters=4, num_channels=1, padding=1
    )
    return ns


def test_the_layer_page_lists_the_example_inputs():
    """docs/api/layer.md shows the inputs the examples run with: same names, same layers."""
    page = pathlib.Path(__file__).resolve().parents[3] / "docs" / "api" / "layer.md"
    (block,) = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    reset_names()
    documented = {"paddle": paddle}
    exec(block, documented)
    documented.pop("__builtins__")
    given = example_inputs()
    assert documented.keys() == given.keys()
    for name in given.keys() - {"paddle"}:
        assert documented[name].spec == given[name].spec, name


def _public_layer_functions():
    out = []
    for modname in ("layer", "networks"):
        module = getattr(paddle, modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and obj.__module__.startswith("paddle_lite"):
                out.append((f"{modname}.{name}", obj))
    seen, unique = set(), []
    for name, fn in out:  # aliases (mse_cost, text_conv_pool ...) once
        if id(fn) not in seen:
            seen.add(id(fn))
            unique.append((name, fn))
    return unique


FUNCTIONS = _public_layer_functions()
HELPERS = {"layer.get_layer", "layer.parse_network", "layer.reset_names", "layer.name_scope"}


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_docstring_follows_the_template(name, fn):
    doc = inspect.getdoc(fn) or ""
    summary = doc.split("\n\n")[0]
    assert summary.strip(), f"{name}: no summary line"
    if name in HELPERS:
        return
    has_params = any(p.kind is not p.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())
    if has_params:
        assert "Args:" in doc, f"{name}: no Args section"
    assert "Returns:" in doc, f"{name}: no Returns section"
    assert ">>>" in doc, f"{name}: no doctest example"


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_docstring_example_runs(name, fn):
    if ">>>" not in (inspect.getdoc(fn) or ""):
        assert name in HELPERS, f"{name}: no doctest example"
        pytest.skip(f"{name} is a helper without an example")
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(fn, name, globs=example_inputs()):
        result = runner.run(test, out=lambda text: pytest.fail(text, pytrace=False))
        assert result.failed == 0
