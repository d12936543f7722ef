"""The training loop's device traffic: one call per step, no implicit transfers, few
compilations, and several steps per call giving the very same parameters."""

import contextlib
import functools

import jax
import jax.monitoring
import numpy as np
import pytest
from unit._determinism import assert_same

import paddle_lite as paddle
import paddle_lite._src.training.loop as loop_mod
import paddle_lite._src.training.steps as steps_mod
from paddle_lite._src.training.chunks import device_batches
from paddle_lite._src.training.steps import OnNan
from paddle_lite._src.values import VALID
from paddle_lite.errors import ConfigError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(3)
SAMPLES = [(RNG.normal(size=12).astype(np.float32), int(RNG.integers(4))) for _ in range(100)]


def _reader():
    return iter(SAMPLES)


def _mlp(dropout=0.0):
    x = L.data(name="x", type=DT.dense_vector(12))
    y = L.data(name="y", type=DT.integer_value(4))
    extra = paddle.attr.Extra(drop_rate=dropout) if dropout else None
    h = L.fc(input=x, size=16, act=A.Relu(), layer_attr=extra)
    h = L.batch_norm(input=h, act=A.Relu())
    p = L.fc(input=h, size=4, act=A.Softmax())
    return L.classification_cost(input=p, label=y)


def _trainer(cost, **opt):
    params = paddle.parameters.create(cost, seed=1)
    optimizer = paddle.optimizer.Momentum(
        momentum=0.9, learning_rate=0.01, regularization=paddle.optimizer.L2Regularization(1e-3)
    )
    return params, paddle.trainer.SGD(cost, params, optimizer)


class _Counted:
    """A jitted function that counts its calls and keeps what they were given."""

    def __init__(self, fn):
        self.fn, self.calls, self.args = fn, 0, []

    def __call__(self, *args):
        self.calls += 1
        self.args.append(args)
        return self.fn(*args)


@contextlib.contextmanager
def _lowerings():
    """Count the XLA programs built (compiled or taken from the persistent cache)."""
    seen = []

    def listen(name, *args, **kwargs):
        if name == "/jax/core/compile/jaxpr_to_mlir_module_duration":
            seen.append(name)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)


@pytest.mark.parametrize("background", [True, False], ids=["device_put ahead", "numpy feeds"])
def test_one_device_call_per_step_and_no_implicit_transfer(background, monkeypatch):
    cost = _mlp()
    _, trainer = _trainer(cost)
    reader = paddle.batch(_reader, 10)
    trainer.train(reader, num_passes=1)  # compile
    program = trainer._device.programs[(frozenset(), "float32", OnNan.RAISE)]
    (tree,) = program.runs  # one state structure: the compiled run over its leaves
    run = program.runs[tree] = _Counted(program.runs[tree])
    monkeypatch.setattr(
        loop_mod, "device_batches", functools.partial(device_batches, background=background)
    )
    # Values read back are implicit transfers: any would raise. Feeds put on the device
    # ahead leave nothing to transfer implicitly (no Python scalar either); on a CPU the
    # batch's numpy arrays go to the step as they are, and nothing else does (a full
    # batch's row weights are on the device already, put there once).
    guard = "disallow" if background else "allow"
    with (
        jax.transfer_guard_device_to_host("disallow"),
        jax.transfer_guard_host_to_device(guard),
        _lowerings() as built,
    ):
        trainer.train(reader, num_passes=2)
    assert run.calls == 20
    assert built == []
    for leaves, feeds in run.args:
        assert all(isinstance(x, jax.Array) for x in leaves)
        (feeds,) = feeds
        assert isinstance(feeds.pop(VALID), jax.Array)
        kind = jax.Array if background else np.ndarray
        assert all(isinstance(x, kind) for x in jax.tree_util.tree_leaves(feeds))


def test_first_pass_compiles_one_program_per_signature_plus_a_few():
    cost = _mlp()
    _, trainer = _trainer(cost)
    with _lowerings() as built:
        trainer.train(paddle.batch(_reader, 32), num_passes=1)  # sizes 32, 32, 32, 4
    # two step signatures, the optimizer state's init and the pass totals' zeros
    assert len(built) <= 2 + 2


def _conv_net():
    """A convolution over 4 channels (XLA's: over at most 3 it would be a matrix product,
    ``conv._patches_conv``), a pool and fc."""
    image = L.data(name="x", type=DT.dense_vector(64), height=4, width=4)
    y = L.data(name="y", type=DT.integer_value(4))
    conv = L.img_conv(input=image, filter_size=3, num_filters=4, num_channels=4, padding=1)
    pool = L.img_pool(input=conv, pool_size=2, stride=2)
    p = L.fc(input=pool, size=4, act=A.Softmax())
    return L.classification_cost(input=p, label=y)


IMAGES = [(RNG.normal(size=64).astype(np.float32), int(RNG.integers(4))) for _ in range(60)]


def _run(k, cost_fn, passes=2, batch=8, reader=_reader):
    cost = cost_fn()
    params, trainer = _trainer(cost)
    costs, metrics = [], []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)
        if isinstance(event, paddle.event.EndPass):
            metrics.append(event.metrics)

    trainer.train(
        paddle.batch(reader, batch), num_passes=passes, event_handler=handler, steps_per_dispatch=k
    )
    return {n: params.get(n) for n in params.keys()}, costs, metrics


@pytest.mark.parametrize("k", [3, 4])
def test_steps_per_dispatch_gives_bit_identical_training(k):
    want, want_costs, want_metrics = _run(1, lambda: _mlp(dropout=0.3))
    paddle.layer.reset_names()
    got, got_costs, got_metrics = _run(k, lambda: _mlp(dropout=0.3))
    assert want.keys() == got.keys()
    for name in want:
        assert_same(got[name], want[name], err_msg=name)
    assert len(got_costs) == 2 * 13
    assert_same(got_costs, want_costs)
    assert [m.keys() for m in got_metrics] == [m.keys() for m in want_metrics]
    for got_m, want_m in zip(got_metrics, want_metrics, strict=True):
        assert_same(list(got_m.values()), list(want_m.values()))


def test_steps_per_dispatch_of_a_convolution_net_gives_bit_identical_training(monkeypatch):
    """On a CPU a convolving step's K-step scan is unrolled (see ``steps._unrolled``);
    it still trains bit for bit as K = 1 does."""
    want, want_costs, _ = _run(1, _conv_net, reader=lambda: iter(IMAGES))
    paddle.layer.reset_names()
    unrolled, decide = [], steps_mod._unrolled
    monkeypatch.setattr(
        steps_mod, "_unrolled", lambda *a: unrolled.append(decide(*a)) or unrolled[-1]
    )
    got, got_costs, _ = _run(3, _conv_net, reader=lambda: iter(IMAGES))
    assert unrolled and set(unrolled) == {jax.default_backend() == "cpu"}
    for name in want:
        assert_same(got[name], want[name], err_msg=name)
    assert len(got_costs) == 2 * 8
    assert_same(got_costs, want_costs)


def test_the_k_step_scan_is_unrolled_on_a_cpu_only_when_a_step_convolves():
    def step(state, feeds):
        return state + feeds.sum(), None

    def conv_step(state, feeds):  # the convolution nested in a branch
        def convolved():
            return jax.lax.conv_general_dilated(feeds, feeds[:1], (1, 1), "SAME").sum()

        return state + jax.lax.cond(state > 0, convolved, lambda: 0.0), None

    feeds, state = np.ones((2, 1, 4, 4), np.float32), np.float32(0)
    cpu = jax.default_backend() == "cpu"
    assert steps_mod._unrolled(conv_step, state, feeds) is cpu
    assert steps_mod._unrolled(step, state, feeds) is False


def test_steps_per_dispatch_keeps_the_v2_event_order():
    cost = _mlp()
    _, trainer = _trainer(cost)
    names = []
    trainer.train(
        paddle.batch(_reader, 30),
        event_handler=lambda e: names.append((type(e).__name__, getattr(e, "batch_id", None))),
        steps_per_dispatch=2,
    )
    per_batch = ["BeginIteration", "EndForwardBackward", "EndIteration"]
    want = [("BeginTraining", None), ("BeginPass", None)]
    want += [(n, b) for b in range(4) for n in per_batch]
    want += [("EndPass", None), ("EndTraining", None)]
    compiles = [b for n, b in names if n == "Compiling"]
    # batches 30, 30, 30, 10: the 10 is padded to 30 and joins the second stack of 2
    assert compiles == [0]
    names = [x for x in names if x[0] != "Compiling"]
    assert names == want


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_steps_per_dispatch_must_be_a_positive_int(k):
    _, trainer = _trainer(_mlp())
    with pytest.raises(ConfigError, match="steps_per_dispatch"):
        trainer.train(paddle.batch(_reader, 10), steps_per_dispatch=k)
