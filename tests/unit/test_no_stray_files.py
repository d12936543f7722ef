"""Nothing is written into the working directory unless the user gave a path: plots
without a path go to a temporary folder, the book's programs save under
~/.cache/paddle_lite/book/<chapter> by default and leave no temporary folder."""

import importlib.util
import os
import pathlib
import tempfile

import pytest

import paddle_lite as paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def empty_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISABLE_PLOT", raising=False)
    return tmp_path


def test_plot_without_a_path_draws_into_a_temporary_folder(empty_cwd, capsys):
    pytest.importorskip("matplotlib")
    ploter = paddle.plot.Ploter("Train cost")
    ploter.append("Train cost", 0, 2.0)
    ploter.plot()
    first = ploter.last_path
    assert first is not None and os.path.exists(first)
    assert not str(first).startswith(str(empty_cwd))
    assert f"drawing to {first}" in capsys.readouterr().err  # said once, where
    ploter.append("Train cost", 1, 1.0)
    ploter.plot()  # redraws the same file, silently
    assert ploter.last_path == first and capsys.readouterr().err == ""
    ploter.plot(str(empty_cwd / "asked.png"))  # a path given: written there
    assert sorted(p.name for p in empty_cwd.iterdir()) == ["asked.png"]
    ploter.plot()
    assert ploter.last_path == first


def test_live_in_a_terminal_writes_nothing_here(empty_cwd):
    pytest.importorskip("matplotlib")
    seen = []
    handler = paddle.plot.live(seen.append, every=1, redraw=1)
    handler(paddle.event.BeginPass(0, num_passes=1))
    handler(paddle.event.EndIteration(0, 0, cost=1.5))
    handler(paddle.event.EndPass(0))
    assert len(seen) == 3 and list(empty_cwd.iterdir()) == []


def test_book_chapter1_saves_under_the_cache_by_default(empty_cwd, tmp_path_factory, monkeypatch):
    home, temp = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # this process's temporary folder
    spec = importlib.util.spec_from_file_location("run_chapter", ROOT / "book/run_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.run_chapter("01.fit_a_line", num_passes=1, plot=False)
    assert list(empty_cwd.iterdir()) == []
    saved = home / ".cache" / "paddle_lite" / "book" / "01.fit_a_line"
    assert sorted(p.name for p in saved.iterdir()) == ["fit_a_line.tar", "params_pass_0.tar"]
    assert list(temp.iterdir()) == []
