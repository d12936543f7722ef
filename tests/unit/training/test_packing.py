"""The training state's small leaves travel to the compiled step in one int32 vector:
every value comes back bit for bit, and training gives the very same parameters and
costs as with every leaf passed on its own."""

import jax
import jax.numpy as jnp
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.training import packing

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _leaves():
    rng = np.random.default_rng(0)
    return [
        rng.normal(size=(20, 20)).astype(np.float32),  # 400 elements: large, as it is
        np.array([np.nan, -0.0, np.inf, 1e-45], np.float32),  # bits a float cast would lose
        np.int32(-7),
        np.array([2**32 - 1, 5], np.uint32),  # a PRNG key's bits
        np.ones((3,), jnp.bfloat16),  # not 32-bit: as it is
        rng.normal(size=(1, 10)).astype(np.float32),
    ]


def _bits(x):
    x = np.asarray(x)
    return x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint32), x.dtype, x.shape


def test_packing_keeps_large_and_non_32_bit_leaves_apart():
    leaves = _leaves()
    p = packing.packing_of(None, leaves)
    assert [i for i, _, _ in p.small] == [1, 2, 3, 5]
    packed = packing.pack(p, leaves, host=True)
    assert [np.shape(x) for x in packed] == [(20, 20), (3,), (4 + 1 + 2 + 10,)]
    assert packed[-1].dtype == jnp.int32


def test_pack_then_unpack_is_bit_exact_on_the_host_traced_and_across():
    leaves = _leaves()
    p = packing.packing_of(None, leaves)
    on_host = packing.unpack(p, packing.pack(p, leaves, host=True), host=True)
    traced = jax.jit(lambda xs: packing.unpack(p, packing.pack(p, xs)))(leaves)
    host_then_traced = jax.jit(lambda xs: packing.unpack(p, xs))(packing.pack(p, leaves, host=True))
    traced_then_host = packing.unpack(p, jax.jit(lambda xs: packing.pack(p, xs))(leaves), host=True)
    assert isinstance(on_host[1], np.ndarray) and isinstance(
        packing.pack(p, leaves, True)[0], jax.Array
    )
    for got in (on_host, traced, host_then_traced, traced_then_host):
        for a, b in zip(got, leaves, strict=True):
            (ga, da, sa), (gb, db, sb) = _bits(a), _bits(b)
            assert (da, sa) == (db, sb)
            np.testing.assert_array_equal(ga, gb)


def test_a_state_without_small_leaves_travels_as_it_is():
    leaves = [np.zeros((300,), np.float32)]
    p = packing.packing_of(None, leaves)
    assert p.small == ()
    assert packing.pack(p, leaves) == leaves and packing.unpack(p, leaves) == leaves


def _train(monkeypatch, small):
    monkeypatch.setattr(packing, "SMALL", small)
    paddle.layer.reset_names()
    x = L.data(name="x", type=DT.dense_vector(6))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=5, act=A.Relu())
    h = L.batch_norm(input=h, act=A.Relu())
    cost = L.classification_cost(input=L.fc(input=h, size=3, act=A.Softmax()), label=y)
    params = paddle.parameters.create(cost, seed=2)
    opt = paddle.optimizer.Adam(
        learning_rate=0.01, regularization=paddle.optimizer.L2Regularization(1e-3)
    )
    trainer = paddle.trainer.SGD(cost, params, opt)
    rng = np.random.default_rng(1)
    data = [(rng.normal(size=6).astype(np.float32), int(rng.integers(3))) for _ in range(50)]
    costs, leaves = [], []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)
            if not leaves:
                leaves.append(len(trainer._device.held.leaves))

    lowered = []

    def listen(name, *args, fun_name="", **kwargs):
        if name == "/jax/core/compile/jaxpr_to_mlir_module_duration" and fun_name == "jit(run)":
            lowered.append(fun_name)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        trainer.train(paddle.batch(lambda: iter(data), 8), num_passes=2, event_handler=handler)
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert len(lowered) == 1  # one training program (the short batch padded), built once
    return {n: params.get(n) for n in params.names()}, costs, leaves[0]


def test_training_with_packed_leaves_is_bit_identical_to_unpacked(monkeypatch):
    packed, packed_costs, few = _train(monkeypatch, packing.SMALL)
    plain, plain_costs, many = _train(monkeypatch, 0)
    assert few < many  # the small leaves did travel packed
    assert packed_costs == plain_costs
    for name, value in plain.items():
        np.testing.assert_array_equal(packed[name], value, err_msg=name)


def test_state_read_during_training_reaches_compiled_functions_as_before(monkeypatch):
    """Values read from the packed state reach compiled functions as device arrays, as
    outside training (a numpy argument would add a second dispatch cache entry to the
    evaluation view and the test step; their cache sizes read 0 inside the full suite,
    so the leaves' types are checked)."""
    paddle.layer.reset_names()
    x = L.data(name="x", type=DT.dense_vector(4))
    y = L.data(name="y", type=DT.integer_value(2))
    cost = L.classification_cost(input=L.fc(input=x, size=2, act=A.Softmax()), label=y)
    params = paddle.parameters.create(cost, seed=1)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(momentum=0.9))
    rng = np.random.default_rng(0)
    data = [(rng.normal(size=4).astype(np.float32), int(rng.integers(2))) for _ in range(12)]
    reader = paddle.batch(lambda: iter(data), 4)
    during, kinds = [], set()

    def handler(event):
        if isinstance(event, paddle.event.EndPass):
            state = trainer._device.on_device_state()
            kinds.update(type(x) for x in jax.tree_util.tree_leaves(state))
            during.append(trainer.test(reader).cost)

    trainer.train(reader, num_passes=2, event_handler=handler)
    after = trainer.test(reader).cost
    assert during[-1] == after  # the same parameters, read in and out of training
    assert all(issubclass(kind, jax.Array) for kind in kinds)  # no numpy leaf
