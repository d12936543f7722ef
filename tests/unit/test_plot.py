"""Ploter: v2 test_ploter behaviour, PNG output, DISABLE_PLOT."""

import pytest

from paddle_lite._src.errors import PaddleLiteError
from paddle_lite._src.plot import Ploter


def test_append_and_reset():
    p = Ploter("train", "test")
    p.append("train", 0, 1.5)
    p.append("train", 1, 0.5)
    assert p.__plot_data__["train"].step == [0, 1]
    assert p.__plot_data__["train"].value == [1.5, 0.5]
    p.reset()
    assert p.__plot_data__["train"].step == [] and p.__plot_data__["train"].value == []
    with pytest.raises(PaddleLiteError, match="no title 'cost'"):
        p.append("cost", 0, 1.0)


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    p = Ploter("train")
    for step in range(5):
        p.append("train", step, 1.0 / (step + 1))
    out = tmp_path / "cost.png"
    p.plot(str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_path_without_extension_gets_png_as_matplotlib_gave_v2(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    p = Ploter("train")
    p.append("train", 0, 1.0)
    for given, written in (("train_test_cost", "train_test_cost.png"), ("dot.", "dot.png")):
        p.plot(str(tmp_path / given))
        assert (tmp_path / written).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert not (tmp_path / given).exists() and p.last_path == str(tmp_path / written)
    p.plot(str(tmp_path / "c.svg"))
    assert b"<svg" in (tmp_path / "c.svg").read_bytes()[:400]


def test_disable_plot_is_a_no_op(tmp_path, monkeypatch):
    monkeypatch.setenv("DISABLE_PLOT", "True")
    p = Ploter("train")
    p.append("train", 0, 1.0)
    p.plot(str(tmp_path / "none.png"))
    assert not (tmp_path / "none.png").exists()


def test_axes_are_labelled(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib.pyplot", reason="the plot extra is not installed")
    from matplotlib.figure import Figure

    seen = []
    real_savefig = Figure.savefig

    def savefig(figure, *args, **kwargs):
        axes = figure.gca()
        seen.append((axes.get_xlabel(), axes.get_ylabel(), axes.get_legend().get_texts()))
        return real_savefig(figure, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    p = Ploter("Train cost", "Test cost")
    p.append("Train cost", 0, 2.0)
    p.append("Test cost", 0, 3.0)
    p.plot(str(tmp_path / "a.png"))
    q = Ploter("train", "test error", xlabel="pass", ylabel="error rate")
    q.append("train", 0, 0.5)
    q.plot(str(tmp_path / "b.png"))
    assert seen[0][:2] == ("step", "cost")
    assert [t.get_text() for t in seen[0][2]] == ["Train cost", "Test cost"]
    assert seen[1][:2] == ("pass", "error rate")
    assert [t.get_text() for t in seen[1][2]] == ["train"]  # titles without data are left out
    assert Ploter("a", "b").__ylabel__ == "value"


def test_live_plots_every_nth_cost_and_passes_every_event_on(monkeypatch):
    import paddle_lite as paddle
    from paddle_lite._src import plot

    drawn = []  # the (steps, costs) of the line at each redraw

    def record(ploter, path=None):
        data = ploter.__plot_data__["Train cost"]
        drawn.append((list(data.step), list(data.value)))

    monkeypatch.setattr(plot.Ploter, "plot", record)

    seen = []
    handler = paddle.plot.live(seen.append, every=2, redraw=3)
    events = [paddle.event.BeginPass(0)]
    for batch in range(5):
        events.append(paddle.event.EndIteration(0, batch, cost=float(batch), evaluator=dict))
    events.append(paddle.event.EndPass(0, evaluator=dict))
    for event in events:
        handler(event)
    assert seen == events
    # redrawn after batches 0 and 3 and at the pass end; every 2nd batch's cost plotted
    assert drawn == [([0], [0.0]), ([0, 2], [0.0, 2.0]), ([0, 2, 4], [0.0, 2.0, 4.0])]
