"""Tests of the public surface of paddle_lite.dataset."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import paddle_lite.dataset as dataset

MODULES = [
    "cifar",
    "common",
    "conll05",
    "flowers",
    "imdb",
    "imikolov",
    "mnist",
    "movielens",
    "mq2007",
    "sentiment",
    "uci_housing",
    "voc2012",
    "voc_seg",
    "wmt14",
    "wmt16",
]
SRC = Path(dataset.__file__).resolve().parents[1] / "_src" / "dataset"


def test_package_all_is_sorted_and_complete():
    assert dataset.__all__ == sorted(dataset.__all__) == MODULES
    for name in MODULES:
        assert getattr(dataset, name).__name__ == f"paddle_lite.dataset.{name}"


@pytest.mark.parametrize("name", MODULES)
def test_module_all_is_sorted_and_resolves(name):
    module = importlib.import_module(f"paddle_lite.dataset.{name}")
    assert module.__all__ == sorted(module.__all__)
    for attr in module.__all__:
        assert getattr(module, attr) is not None


@pytest.mark.parametrize(
    ("name", "functions"),
    [
        ("mnist", ["train", "test"]),
        ("cifar", ["train10", "test10", "train100", "test100"]),
        ("imikolov", ["build_dict", "train", "test"]),
        ("imdb", ["word_dict", "build_dict", "train", "test"]),
        ("movielens", ["train", "test", "max_user_id", "movie_categories", "user_info"]),
        ("conll05", ["get_dict", "get_embedding", "test"]),
        ("wmt14", ["train", "test", "gen", "get_dict"]),
        ("wmt16", ["train", "test", "validation", "get_dict"]),
        ("uci_housing", ["train", "test"]),
        ("flowers", ["train", "test", "valid"]),
        ("mq2007", ["train", "test"]),
        ("voc2012", ["train", "test", "val"]),
        ("sentiment", ["get_word_dict", "train", "test"]),
    ],
)
def test_v2_functions_exist_with_fetch_and_convert(name, functions):
    module = getattr(dataset, name)
    for fn in [*functions, "fetch", "convert"]:
        assert callable(getattr(module, fn)), f"{name}.{fn}"


def test_imikolov_data_type_values():
    assert (dataset.imikolov.DataType.NGRAM, dataset.imikolov.DataType.SEQ) == (1, 2)


def test_dataset_sources_do_not_import_jax():
    for path in sorted(SRC.glob("*.py")):
        text = path.read_text()
        assert "import jax" not in text and "from jax" not in text, path.name


def test_import_creates_no_data_home(tmp_path):
    home = tmp_path / "never_created"
    env = {**os.environ, "PADDLE_LITE_DATA_HOME": str(home)}
    root = Path(dataset.__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    code = "import paddle_lite.dataset as d; print(d.common.DATA_HOME)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(home)
    assert not home.exists()
