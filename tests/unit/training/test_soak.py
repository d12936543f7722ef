"""A long run of a small model: memory, live device buffers and the jit cache stay flat."""

import gc

import jax
import numpy as np

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_a_long_run_keeps_memory_buffers_and_compilations_flat():
    rng = np.random.default_rng(0)
    samples = [(rng.normal(size=16).astype(np.float32), int(rng.integers(4))) for _ in range(200)]
    x = L.data(name="x", type=DT.dense_vector(16))
    y = L.data(name="y", type=DT.integer_value(4))
    h = L.fc(input=x, size=32, act=A.Relu())
    cost = L.classification_cost(input=L.fc(input=h, size=4, act=A.Softmax()), label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Adam(learning_rate=1e-3))
    reader = paddle.batch(lambda: iter(samples), 16)
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndPass):
            costs.append(trainer.test(reader).cost)

    trainer.train(reader, num_passes=3, event_handler=handler)  # warm up every program
    program = next(iter(trainer._device.programs.values()))
    gc.collect()
    before = (
        _resident_bytes(),
        len(jax.live_arrays()),
        sum(r._cache_size() for r in program.runs.values()),
    )
    trainer.train(reader, num_passes=60, event_handler=handler)  # 780 steps, 60 tests
    gc.collect()
    after = (
        _resident_bytes(),
        len(jax.live_arrays()),
        sum(r._cache_size() for r in program.runs.values()),
    )
    assert after[1:] == before[1:]
    assert after[0] - before[0] < 20 * 2**20, f"resident memory grew {after[0] - before[0]} B"
    assert costs[-1] < costs[0]  # and it did train
