"""Ploter: v2 test_ploter behaviour, PNG output, DISABLE_PLOT."""

import numpy as np
import pytest

from paddle_lite._src.display import draw as plot_draw
from paddle_lite._src.display.plot import Ploter
from paddle_lite.errors import PaddleLiteError


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
    from paddle_lite._src.display import plot

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


def _chapter1_like(seed=0):
    """Batch costs of chapter 1 (every 10th of 6000, falling from ~600 to ~15 with the
    spread of batches of 2) and a test cost per pass falling from 53 to 13."""
    rng = np.random.default_rng(seed)
    steps = np.arange(0, 6000, 10)
    train = (600 * np.exp(-steps / 300) + 15) * rng.lognormal(0, 1.0, len(steps))
    passes = np.arange(200, 6001, 200)
    test = 40 * np.exp(-passes / 400) + 13
    return steps, train, passes, test


def test_smoothed_is_the_debiased_moving_average():
    rng = np.random.default_rng(1)
    x = rng.lognormal(0, 1, 200)
    window = 200 // 20
    d = 1 - 2 / (window + 1)
    for log, xs in ((False, x), (True, np.log(x))):
        want = []
        for t in range(len(xs)):  # each point: the weighted mean of all before it
            w = (1 - d) * d ** np.arange(t, -1, -1, dtype=np.float64)
            want.append(np.sum(w * xs[: t + 1]) / np.sum(w))
        want = np.exp(want) if log else np.array(want)
        np.testing.assert_allclose(plot_draw.smoothed(x, log=log), want, rtol=1e-12)


def test_log_axis_only_for_positive_values_over_two_decades():
    assert plot_draw.log_scale([np.array([600.0, 20.0]), np.array([5.0])])  # 120x
    assert not plot_draw.log_scale([np.array([2.3, 0.12])])  # 19x: chapter 2's range
    assert not plot_draw.log_scale([np.array([600.0, 0.0])])  # a zero cost
    assert not plot_draw.log_scale([np.array([600.0, -1.0])])
    assert not plot_draw.log_scale([np.array([])])


def test_only_jumpy_series_are_smoothed():
    rng = np.random.default_rng(2)
    assert plot_draw.noisy(rng.normal(size=100))
    assert not plot_draw.noisy(40 * np.exp(-np.arange(100) / 30) + 13)  # a test cost


def _drawn(lines):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.8))
    axes = figure.add_subplot()
    plot_draw.draw(axes, lines)
    figure.canvas.draw()
    return figure, axes


def test_chapter1_curves_are_readable():
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    steps, train, passes, test = _chapter1_like()
    figure, axes = _drawn([("Train cost", steps, train), ("Test cost", passes, test)])
    assert axes.get_yscale() == "log"
    low, high = axes.get_ylim()
    assert low <= test.min() and test.max() <= high
    # the test curve spans a fair part of the axes' height (on the linear axis it was ~4%)
    span = np.log10(test.max() / test.min()) / np.log10(high / low)
    assert span > 0.12
    # the legend sits above the axes: it covers no data
    legend = axes.get_legend().get_window_extent()
    assert legend.y0 >= axes.get_window_extent().y1
    # train: the faint raw line, then its running mean (labelled); test: markers
    raw, mean, test_line = axes.get_lines()
    assert raw.get_alpha() == plot_draw.FAINT and raw.get_label().startswith("_")
    assert mean.get_label() == "Train cost" and test_line.get_marker() == "o"


def test_the_png_shows_the_test_curve_off_the_bottom(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    import matplotlib.image

    steps, train, passes, test = _chapter1_like()
    p = Ploter("Train cost", "Test cost")
    for s, v in zip(steps, train, strict=True):
        p.append("Train cost", s, v)
    for s, v in zip(passes, test, strict=True):
        p.append("Test cost", s, v)
    p.plot(str(tmp_path / "curve.png"))
    pixels = matplotlib.image.imread(str(tmp_path / "curve.png"))[..., :3]
    top, bottom = _spines(pixels)
    orange = np.all(np.abs(pixels - np.array([1.0, 0.498, 0.055])) < 0.08, axis=-1)  # C1
    rows = np.nonzero(orange.any(axis=1))[0]
    assert rows.min() < top  # the legend's orange sample sits above the axes
    curve = rows[(rows > top) & (rows < bottom)]
    height = (bottom - np.median(curve)) / (bottom - top)  # 0 at the bottom spine, 1 at the top
    assert height > 0.2  # on the linear axis the test curve lay at 2-6% of the height


def _spines(pixels):
    """The rows of the axes' top and bottom spines: the rows more than half dark."""
    dark = np.all(pixels < 0.25, axis=-1).mean(axis=1) > 0.5
    rows = np.nonzero(dark)[0]
    return rows.min(), rows.max()
