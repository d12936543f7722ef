"""Jupyter's "interrupt kernel" during a training cell, in a real kernel (jupyter_client).

Each round runs a cell that trains for a while, interrupts the kernel at a random moment
and then checks, in the kernel, that the cell ended with ``KeyboardInterrupt``, that the
parameters are those after a whole step (a second trainer, started from the same state,
trains as many steps and must hold the same values), that ``paddle.infer`` works, and that
training on compiles nothing.
"""

import json
import random
import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client", reason="the test extra installs it")
pytest.importorskip("ipykernel", reason="the test extra installs it")

SETUP = """
import hashlib, json
import jax, numpy as np
import paddle_lite as paddle
compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda name, d, **kw: compiles.append(name) if "backend_compile" in name else None)
paddle.init(seed=1)
x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(20))
y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(4))
h = paddle.layer.fc(input=x, size=64, act=paddle.activation.Relu())
predict = paddle.layer.fc(input=h, size=4, act=paddle.activation.Softmax())
cost = paddle.layer.classification_cost(input=predict, label=y)
params = paddle.parameters.create(cost)
trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(momentum=0.9))
rng = np.random.RandomState(0)
rows = list(zip(rng.randn(512, 20).astype("float32"), rng.randint(0, 4, 512).tolist()))
batches = [rows[i : i + 16] for i in range(0, 512, 16)]
reader = lambda: iter(batches)
def digest(p):
    return hashlib.sha256(b"".join(v.tobytes() for v in p.values().values())).hexdigest()
def costs(event):
    if isinstance(event, paddle.event.EndIteration):
        event.cost
trainer.save_checkpoint("start")
trainer.train(reader, num_passes=1, event_handler=costs)
"""
TRAIN = """
trainer.load_checkpoint("start")  # each round trains the batches in order from the start
trainer.train(reader, num_passes=200, event_handler=costs)
"""
CHECK = """
n = trainer._device.steps_run()
replay = paddle.parameters.create(cost)
fresh = paddle.trainer.SGD(cost, replay, paddle.optimizer.Momentum(momentum=0.9))
fresh.load_checkpoint("start")
fresh.train(lambda: iter((batches * (n // 32 + 1))[:n]), num_passes=1)
whole = digest(params) == digest(replay)
finite = all(np.isfinite(v).all() for v in params.values().values())
out = paddle.infer(output_layer=predict, parameters=params, input=[(rows[0][0],)])
before = len(compiles)
trainer.train(reader, num_passes=1, event_handler=costs)
print(json.dumps({"whole": whole, "finite": bool(finite), "infer": out.shape == (1, 4),
                  "compiled": len(compiles) - before}))
"""


def _run(kc, code, timeout=300):
    """Execute ``code``; ``(status, ename, stdout)`` of its reply."""
    msg_id = kc.execute(code)
    out = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    reply = kc.get_shell_msg(timeout=timeout)
    return reply["content"]["status"], reply["content"].get("ename"), "".join(out)


@pytest.mark.slow  # a kernel start and a few training runs: about 20 s
def test_interrupt_kernel_during_training(fault, tmp_path):
    fault.case(
        "interrupts (Ctrl-C)",
        "Jupyter 'interrupt kernel' at a random moment of a training cell, 4 times in one "
        "real kernel",
        "the cell ends with KeyboardInterrupt; the parameters are those of a whole step; "
        "infer works; training on compiles nothing",
    )
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(
        env={"JAX_PLATFORMS": "cpu"},
        cwd=str(tmp_path),
        extra_arguments=["--HistoryManager.enabled=False"],
    )
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        status, ename, _ = _run(kc, SETUP)
        assert status == "ok", ename
        rng = random.Random(3)
        for _ in range(4):
            msg_id = kc.execute(TRAIN)
            time.sleep(rng.uniform(0.05, 1.5))
            km.interrupt_kernel()
            while True:
                reply = kc.get_shell_msg(timeout=120)
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
            assert reply["content"]["ename"] == "KeyboardInterrupt"
            status, ename, out = _run(kc, CHECK)
            assert status == "ok", ename
            result = json.loads(out.strip().splitlines()[-1])
            assert result == {"whole": True, "finite": True, "infer": True, "compiled": 0}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    fault.observed("4 interrupts: KeyboardInterrupt each time; a whole step; infer; 0 compiles")
