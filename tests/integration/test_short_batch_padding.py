"""The short last batch of a pass is padded to the batch size with rows of weight 0: it
runs the full batches' compiled step (one compile per signature), and costs, metrics,
batch-norm statistics and the optimizer's sample count are those of the real rows.

The reference is the same training unpadded (``RowPadding`` switched off), where the
short batch compiles a program of its own.
"""

import re

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.distributed.parallel import pad_rows
from paddle_lite._src.layers.detection.loss import MultiBoxLossKind
from paddle_lite._src.layers.norm import BatchNormKind
from paddle_lite._src.training.chunks import RowPadding, converted, device_batches
from paddle_lite._src.values import VALID

L, DT, A, EV = paddle.layer, paddle.data_type, paddle.activation, paddle.event
RTOL, ATOL = 1e-5, 1e-6
BATCH = 8


def _samples(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=64).astype(np.float32), int(rng.integers(4))) for _ in range(n)]


def _mlp(drop_rate=None):
    x = L.data(name="x", type=DT.dense_vector(64))
    y = L.data(name="y", type=DT.integer_value(4))
    extra = None if drop_rate is None else paddle.attr.Extra(drop_rate=drop_rate)
    h = L.fc(input=x, size=16, act=A.Relu(), name="h", layer_attr=extra)
    prob = L.fc(input=h, size=4, act=A.Softmax(), name="prob")
    return L.classification_cost(input=prob, label=y, name="cost")


def _bn_net():
    x = L.data(name="x", type=DT.dense_vector(64))
    y = L.data(name="y", type=DT.integer_value(4))
    conv = L.img_conv(
        input=x, num_channels=1, filter_size=3, num_filters=4, padding=1, act=A.Linear(), name="c"
    )
    bn = L.batch_norm(input=conv, act=A.Relu(), name="bn")
    h = L.fc(input=bn, size=16, act=A.Linear(), name="h")
    bn2 = L.batch_norm(input=h, act=A.Tanh(), name="bn2")
    prob = L.fc(input=bn2, size=4, act=A.Softmax(), name="prob")
    return L.classification_cost(input=prob, label=y, name="cost")


def _ssd_net():
    """A tiny SSD head: ``multibox_loss`` is one loss over the whole batch's matches."""
    img = L.data(name="img", type=DT.dense_vector(3 * 8 * 8), height=8, width=8)
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    conv = L.img_conv(input=img, filter_size=3, num_filters=4, stride=2, padding=1, name="c")
    linear = A.Linear()
    loc = L.img_conv(input=conv, filter_size=3, num_filters=16, padding=1, act=linear, name="l")
    conf = L.img_conv(input=conv, filter_size=3, num_filters=12, padding=1, act=linear, name="f")
    prior = L.priorbox(
        input=conv,
        image=img,
        aspect_ratio=[2.0],
        variance=[0.1, 0.1, 0.2, 0.2],
        min_size=[3],
        max_size=[6],
    )
    return L.multibox_loss(
        input_loc=loc, input_conf=conf, priorbox=prior, label=gt, num_classes=3, name="cost"
    )


def _ssd_samples(n):
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        lo = rng.uniform(0, 0.5, size=2)
        boxes = [[1 + i % 2, lo[0], lo[1], lo[0] + 0.4, lo[1] + 0.4, 0]]
        if i % 3 == 0:  # images with more objects weigh more in the batch's loss
            boxes.append([2, 0.5, 0.5, 0.9, 0.95, 0])
        out.append((rng.normal(size=192).astype(np.float32), boxes))
    return out


def _seq_bn_net():
    """batch_norm over a sequence: statistics over the valid steps of the real rows."""
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    y = L.data(name="y", type=DT.integer_value(4))
    h = L.fc(input=x, size=6, act=A.Linear(), name="h")
    bn = L.batch_norm(input=h, act=A.Tanh(), name="bn")
    last = L.last_seq(input=bn, name="last")
    prob = L.fc(input=last, size=4, act=A.Softmax(), name="prob")
    return L.classification_cost(input=prob, label=y, name="cost")


def _seq_samples(n):
    """Lengths 1 to 5, every batch with a 5 (one length bucket, one signature)."""
    rng = np.random.default_rng(3)
    lengths = [5 if i % 4 == 0 else int(rng.integers(1, 5)) for i in range(n)]
    return [(rng.normal(size=(t, 4)).astype(np.float32), int(rng.integers(4))) for t in lengths]


NETS = {
    "mlp": _mlp,
    # the real rows draw the same dropout masks padded or not (partitionable threefry)
    "dropout": lambda: _mlp(drop_rate=0.3),
    "batch_norm": _bn_net,
    "multibox": _ssd_net,
    "seq_bn": _seq_bn_net,
}


def _optimizer():
    # "poly" makes every step's learning rate depend on the samples counted so far
    return paddle.optimizer.Momentum(
        learning_rate=0.05,
        momentum=0.9,
        learning_rate_schedule="poly",
        learning_rate_decay_a=0.01,
        learning_rate_decay_b=0.5,
    )


def _samples_counted(opt_state):
    found = [s.samples for s in jax.tree_util.tree_leaves(opt_state, is_leaf=_has_samples)]
    return [int(n) for n in found if not hasattr(n, "dtype") or n.ndim == 0]


def _has_samples(node):
    return hasattr(node, "samples") and hasattr(node, "slots")


class _Run:
    """One training run: per-batch costs, history, final values, compiles."""

    def __init__(self, net, samples, *, padded, monkeypatch, k=1, passes=2, test=None):
        with monkeypatch.context() as patch:
            if not padded:
                patch.setattr(RowPadding, "__call__", lambda self, feeds, size=None: feeds)
            self._train(net, samples, k, passes, test)

    def _train(self, net, samples, k, passes, test):
        cost = NETS[net]()
        params = paddle.parameters.create(cost)
        rng = np.random.default_rng(1)
        for name in params.names():
            shape = params.get_shape(name)
            params.set(name, rng.normal(scale=0.3, size=shape).astype(np.float32))
        trainer = paddle.trainer.SGD(cost, params, _optimizer())
        self.costs, self.compiles = [], []

        def handler(event):
            if isinstance(event, EV.EndIteration):
                self.costs.append(event.cost)
            if isinstance(event, EV.Compiling):
                self.compiles.append((event.pass_id, event.batch_id))

        reader = paddle.batch(lambda: iter(samples), BATCH)
        self.history = trainer.train(
            reader, num_passes=passes, event_handler=handler, steps_per_dispatch=k
        )
        self.params = {n: params.get(n).copy() for n in params.names()}
        program = trainer._device.program
        self.programs = sum(
            r._cache_size() for r in program.runs.values()
        )  # one per chunk signature (K included)
        self.samples = _samples_counted(trainer._device.opt_states[frozenset()])
        if test is not None:
            self.test = trainer.test(paddle.batch(lambda: iter(test), BATCH))
            self.test_programs = trainer._test_steps["float32"]._cache_size()


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("net", ["batch_norm", "dropout", "mlp"])
def test_padded_short_batch_trains_as_the_unpadded_run(net, monkeypatch):
    samples = _samples(4 * BATCH + 5)  # batches 8, 8, 8, 8 and a short 5
    padded = _Run(net, samples, padded=True, monkeypatch=monkeypatch)
    plain = _Run(net, samples, padded=False, monkeypatch=monkeypatch)
    assert plain.compiles == [(0, 0), (0, 4)]  # the short batch compiles its own step
    assert plain.programs == 2
    assert padded.compiles == [(0, 0)]  # one signature: one compile for both passes
    assert padded.programs == 1
    assert len(padded.costs) == len(plain.costs) == 10
    _close(padded.costs, plain.costs)
    _close(padded.history.cost, plain.history.cost)
    for got, want in zip(padded.history.metrics, plain.history.metrics, strict=True):
        assert got.keys() == want.keys() == {"classification_error_evaluator"}
        _close(list(got.values()), list(want.values()))
    assert padded.params.keys() == plain.params.keys()
    for name in plain.params:  # batch-norm moving mean / variance included
        _close(padded.params[name], plain.params[name])
    assert padded.samples == plain.samples == [2 * len(samples)]


@pytest.mark.parametrize("short", [1, 3])
def test_batch_norm_statistics_see_only_the_real_rows(short, monkeypatch):
    """The moving mean and variance after a pass that ends with a short batch: equal to
    the unpadded run's, and far from statistics over the padded rows too (padding
    repeats real rows: 3 real rows padded to 8 weigh them 3:3:2)."""
    samples = _samples(BATCH + short)
    padded = _Run("batch_norm", samples, padded=True, monkeypatch=monkeypatch, passes=1)
    plain = _Run("batch_norm", samples, padded=False, monkeypatch=monkeypatch, passes=1)
    with monkeypatch.context() as patch:  # statistics over all 8 rows, padding included
        patch.setattr(BatchNormKind, "uses_row_weights", False)
        unmasked = _Run("batch_norm", samples, padded=True, monkeypatch=monkeypatch, passes=1)
    for name in ("_bn.w1", "_bn.w2", "_bn2.w1", "_bn2.w2"):
        _close(padded.params[name], plain.params[name])
        if short > 1:
            assert np.abs(unmasked.params[name] - plain.params[name]).max() > 1e-4
    assert padded.programs == 1 and plain.programs == 2


def test_sequence_batch_norm_counts_the_steps_of_real_rows_only(monkeypatch):
    samples = _seq_samples(2 * BATCH + 3)
    padded = _Run("seq_bn", samples, padded=True, monkeypatch=monkeypatch)
    plain = _Run("seq_bn", samples, padded=False, monkeypatch=monkeypatch)
    assert (padded.programs, plain.programs) == (1, 2)
    _close(padded.costs, plain.costs)
    for name in plain.params:  # the moving mean and variance included
        _close(padded.params[name], plain.params[name])
    assert padded.samples == plain.samples == [2 * len(samples)]


def test_multibox_loss_counts_the_real_images_only(monkeypatch):
    samples = _ssd_samples(BATCH + 3)
    padded = _Run("multibox", samples, padded=True, monkeypatch=monkeypatch)
    plain = _Run("multibox", samples, padded=False, monkeypatch=monkeypatch)
    with monkeypatch.context() as patch:  # one loss over all 8 images, padding included
        patch.setattr(MultiBoxLossKind, "uses_row_weights", False)
        unmasked = _Run("multibox", samples, padded=True, monkeypatch=monkeypatch, passes=1)
    assert (padded.programs, plain.programs) == (1, 2)
    _close(padded.costs, plain.costs)
    assert abs(unmasked.costs[1] - plain.costs[1]) > 1e-3
    for name in plain.params:
        _close(padded.params[name], plain.params[name])


@pytest.mark.parametrize("net", ["batch_norm", "mlp"])
def test_padded_batch_joins_a_stack(net, monkeypatch):
    samples = _samples(5 * BATCH + 5)  # 6 batches: stacks (8, 8), (8, 8), (8, 5 padded)
    stacked = _Run(net, samples, padded=True, monkeypatch=monkeypatch, k=2)
    plain = _Run(net, samples, padded=False, monkeypatch=monkeypatch)
    assert stacked.compiles == [(0, 0)]
    assert stacked.programs == 1
    _close(stacked.costs, plain.costs)
    _close(stacked.history.cost, plain.history.cost)
    for name in plain.params:
        _close(stacked.params[name], plain.params[name])
    assert stacked.samples == plain.samples == [2 * len(samples)]


@pytest.mark.parametrize("net", ["batch_norm", "mlp"])
def test_test_pads_its_short_batch_and_compiles_once(net, monkeypatch):
    train, test = _samples(2 * BATCH), _samples(3 * BATCH + 3, seed=7)
    padded = _Run(net, train, padded=True, monkeypatch=monkeypatch, passes=1, test=test)
    plain = _Run(net, train, padded=False, monkeypatch=monkeypatch, passes=1, test=test)
    assert (padded.test_programs, plain.test_programs) == (1, 2)
    _close(padded.test.cost, plain.test.cost)
    assert padded.test.metrics.keys() == plain.test.metrics.keys()
    _close(list(padded.test.metrics.values()), list(plain.test.metrics.values()))


@pytest.mark.parametrize("net", ["batch_norm", "mlp"])
def test_a_reader_whose_only_batch_is_short_is_not_padded(net, monkeypatch):
    samples = _samples(5)
    padded = _Run(net, samples, padded=True, monkeypatch=monkeypatch)
    plain = _Run(net, samples, padded=False, monkeypatch=monkeypatch)
    assert padded.programs == plain.programs == 1
    for name in plain.params:
        if net == "mlp":  # the weights multiply costs by exactly 1: the same bits
            assert padded.costs == plain.costs
            np.testing.assert_array_equal(padded.params[name], plain.params[name])
        else:  # batch norm's weighted moments are one contraction: a few float32 ulps
            _close(padded.costs, plain.costs)
            _close(padded.params[name], plain.params[name])


def test_row_padding_pads_to_the_largest_batch_so_far():
    pad = RowPadding()
    sizes = []
    for n in (3, 8, 5, 8, 2):
        feeds = pad({"x": np.arange(n, dtype=np.float32)[:, None]})
        sizes.append((len(feeds["x"]), int(feeds[VALID].sum())))
        np.testing.assert_array_equal(feeds[VALID][:n], 1.0)
        np.testing.assert_array_equal(feeds[VALID][n:], 0.0)
        np.testing.assert_array_equal(feeds["x"][:n, 0], np.arange(n))
    assert sizes == [(3, 3), (8, 8), (8, 5), (8, 8), (8, 2)]


def test_device_padding_keeps_the_batch_padding_weights():
    """A batch padded by the loop and again for the devices keeps both paddings' zeros."""
    feeds = {"x": np.arange(6, dtype=np.float32), VALID: np.array([1, 1, 1, 1, 0, 0], "f4")}
    out = pad_rows(feeds, 8)
    np.testing.assert_array_equal(out[VALID], [1, 1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(out["x"], [0, 1, 2, 3, 4, 5, 0, 1])


def test_printers_print_the_real_rows_only(capsys):
    x = L.data(name="x", type=DT.dense_vector(2))
    y = L.data(name="y", type=DT.integer_value(2))
    h = L.fc(input=x, size=3, act=A.Tanh(), name="h")
    prob = L.fc(input=h, size=2, act=A.Softmax(), name="prob")
    cost = L.classification_cost(input=prob, label=y, name="cost")
    L.printer(input=x, format="x=%s")
    paddle.evaluator.gradient_printer(input=h)
    trainer = paddle.trainer.SGD(cost, paddle.parameters.create(cost), _optimizer())
    xs = np.arange(12, dtype=np.float32).reshape(6, 2)
    samples = [(row, i % 2) for i, row in enumerate(xs)]
    trainer.train(paddle.batch(lambda: iter(samples), 4))  # batches 4 and 2 (padded to 4)
    jax.effects_barrier()
    out = capsys.readouterr().out
    printed = [block.split("]]")[0] for block in out.split("x=")[1:]]
    values = [np.array(re.findall(r"-?\d+\.?\d*", block), float) for block in printed]
    np.testing.assert_array_equal(np.concatenate(values), xs.ravel())
    grads = [block.split("]]")[0] for block in out.split("grad matrix:\n")[1:]]
    assert [block.count("\n") + 1 for block in grads] == [4, 2]


def test_device_batches_pad_and_keep_the_real_sizes():
    batches = [np.full((n, 1), n, np.float32) for n in (4, 4, 3)]
    pairs = converted(batches, lambda b: {"x": b}, RowPadding())
    chunks = list(device_batches(pairs, k=2, background=False))
    assert [c.sizes for c in chunks] == [(4, 4), (3,)]
    (short,) = chunks[1].feeds
    np.testing.assert_array_equal(short["x"][:, 0], [3, 3, 3, 3])
    np.testing.assert_array_equal(short[VALID], [1, 1, 1, 0])
    np.testing.assert_array_equal([f[VALID] for f in chunks[0].feeds], np.ones((2, 4)))
