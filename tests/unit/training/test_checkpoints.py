"""Checkpoints: exact resume (in process and after SIGKILL), their files, their checks."""

import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import CheckpointError, ParameterError

SCRIPT = pathlib.Path(__file__).parents[1] / "scripts" / "checkpointed_training.py"
sys.path.insert(0, str(SCRIPT.parent))
import checkpointed_training as run  # noqa: E402


class _Crash(Exception):
    pass


def _setup():
    paddle.layer.reset_names()
    paddle.init(seed=3)
    random.seed(7)
    cost = run.network()
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Adam(
        learning_rate=0.01, model_average=paddle.optimizer.ModelAverage(average_window=0.5)
    )
    data = run.samples()
    reader = paddle.batch(paddle.reader.shuffle(lambda: iter(data), buf_size=100), 8)
    return params, paddle.trainer.SGD(cost, params, optimizer), reader


def _values(params):
    return {n: params.get(n).copy() for n in params.keys()}


def _assert_same(got, want):
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.fixture(autouse=True)
def _default_settings():
    yield
    paddle.init()


def test_a_run_crashed_mid_pass_resumes_bit_identically(tmp_path, fault):
    fault.case(
        "checkpoints",
        "an exception in pass 1, batch 5 of a run checkpointing every 3 batches; resume",
        "the resumed run ends bit-identical to an uninterrupted one",
    )
    params, trainer, reader = _setup()
    trainer.train(reader, num_passes=3)
    want = _values(params)

    params, trainer, reader = _setup()

    def crash(event):
        if isinstance(event, paddle.event.EndIteration) and (event.pass_id, event.batch_id) == (
            1,
            5,
        ):
            raise _Crash

    with pytest.raises(_Crash):
        trainer.train(reader, 3, crash, checkpoint_dir=str(tmp_path), checkpoint_every=3)
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 3 and all(n.startswith("ckpt-") for n in names)  # the newest three

    params, trainer, reader = _setup()
    passes = []
    assert trainer.load_checkpoint(str(tmp_path))
    record = lambda e: passes.append(getattr(e, "pass_id", None))  # noqa: E731
    trainer.train(reader, 3, record, checkpoint_dir=str(tmp_path))  # the same run goes on
    assert passes[1] == 1  # it went on inside pass 1
    _assert_same(_values(params), want)
    fault.observed("resumed inside pass 1; every parameter bit-identical")


def test_save_and_load_between_train_calls(tmp_path):
    params, trainer, reader = _setup()
    trainer.train(reader, num_passes=1)
    trainer.save_checkpoint(str(tmp_path / "ck"))
    trainer.train(reader, num_passes=1)
    want = _values(params)
    alone = paddle.parameters.Parameters.from_tar(str(tmp_path / "ck" / "parameters.tar"))
    assert sorted(alone.keys()) == sorted(params.keys())

    params, trainer, reader = _setup()
    trainer.load_checkpoint(str(tmp_path / "ck"))
    trainer.train(reader, num_passes=1)  # one more pass, as the uninterrupted second call
    _assert_same(_values(params), want)


def test_another_topology_is_refused_naming_the_parameters(tmp_path, fault):
    params, trainer, reader = _setup()
    trainer.train(reader, num_passes=1)
    trainer.save_checkpoint(str(tmp_path / "ck"))
    paddle.layer.reset_names()
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(6))
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(3))
    cost = paddle.layer.classification_cost(
        input=paddle.layer.fc(input=x, size=3, act=paddle.activation.Softmax()), label=y
    )
    other = paddle.trainer.SGD(cost, paddle.parameters.create(cost), paddle.optimizer.Adam())
    fault.case("checkpoints", "loading a checkpoint into another topology", "ParameterError")
    with pytest.raises(ParameterError, match=r"another topology.*missing from it \[\]") as err:
        other.load_checkpoint(str(tmp_path / "ck"))
    fault.observed(err.value)
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        other.load_checkpoint(str(tmp_path / "empty"))
    assert other.load_checkpoint(str(tmp_path / "empty"), missing_ok=True) is False


def _python(log, *args):
    with open(log, "wb") as stderr:
        return subprocess.Popen(
            [sys.executable, str(SCRIPT), *map(str, args)],
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def test_sigkill_at_any_point_then_resume_ends_bit_identically(tmp_path, fault):
    fault.case(
        "checkpoints",
        "SIGKILL at a random moment of a run checkpointing every 2 batches (mid-step or "
        "mid-save); rerun the same script",
        "the rerun resumes from the newest complete checkpoint and ends bit-identical",
    )
    logs = {name: tmp_path / f"{name}.log" for name in ("reference", "victim", "resumed")}
    reference = _python(logs["reference"], tmp_path / "uninterrupted", tmp_path / "want.npz")
    folder = tmp_path / "killed"
    victim = _python(logs["victim"], folder, tmp_path / "never.npz", 0.05)
    rng = np.random.default_rng()
    deadline = time.time() + 120
    while not (folder.exists() and len(os.listdir(folder)) >= 1 + rng.integers(0, 3)):
        assert victim.poll() is None and time.time() < deadline, logs["victim"].read_text()
        time.sleep(0.02)
    time.sleep(rng.uniform(0, 0.2))  # anywhere: mid-step, mid-save
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    resumed = _python(logs["resumed"], folder, tmp_path / "got.npz")
    for name, proc in (("reference", reference), ("resumed", resumed)):
        assert proc.wait(timeout=300) == 0, logs[name].read_text()
    with np.load(tmp_path / "want.npz") as want, np.load(tmp_path / "got.npz") as got:
        _assert_same(dict(got), dict(want))
    fault.observed("killed, resumed; every parameter bit-identical to the uninterrupted run")


def test_a_checkpoint_tar_lacking_a_parameter_names_the_checkpoint(tmp_path, fault):
    import hashlib
    import io
    import json

    params, trainer, reader = _setup()
    trainer.train(reader, num_passes=1)
    folder = tmp_path / "ck"
    trainer.save_checkpoint(str(folder))
    full = paddle.parameters.Parameters.from_tar(str(folder / "parameters.tar"))
    part = paddle.parameters.Parameters()
    for name in full.names()[1:]:
        part.append_spec(full.spec(name), full.get(name))
    buf = io.BytesIO()
    part.to_tar(buf)
    (folder / "parameters.tar").write_bytes(buf.getvalue())
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["parameters.tar"] = {
        "size": len(buf.getvalue()),
        "sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    fault.case(
        "checkpoints",
        "a checkpoint whose parameters.tar lacks a member (manifest rewritten to match)",
        "CheckpointError naming the checkpoint and the parameter",
    )
    _, trainer, _ = _setup()
    with pytest.raises(
        CheckpointError, match=rf"ck'.*lacks the parameters \['{full.names()[0]}'\]"
    ) as err:
        trainer.load_checkpoint(str(folder))
    fault.observed(err.value)


def _begin_passes():
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.BeginPass):
            seen.append(event.pass_id)

    return seen, handler


def test_num_passes_is_the_passes_of_the_call(tmp_path, fault):
    from paddle_lite.errors import TrainingWarning

    fault.case(
        "checkpoints (num_passes)",
        "train(num_passes=...) before and after load_checkpoint, with and without the "
        "checkpoint_dir it was loaded from",
        "v2's rule: a call trains num_passes passes; the run the checkpoint came from "
        "continues to its end; a call that trains nothing warns",
    )
    params, trainer, reader = _setup()
    seen, handler = _begin_passes()
    trainer.train(reader, 2, handler)
    trainer.train(reader, 2, handler)
    assert seen == [0, 1, 0, 1]  # train(2); train(2) is 4 passes

    def crash(event):
        handler(event)
        if isinstance(event, paddle.event.EndIteration) and (event.pass_id, event.batch_id) == (
            1,
            3,
        ):
            raise _Crash

    params, trainer, reader = _setup()
    run = tmp_path / "run"
    with pytest.raises(_Crash):
        trainer.train(reader, 3, crash, checkpoint_dir=str(run), checkpoint_every=2)
    for same, want in ((True, [1, 2]), (False, [1, 2, 3])):
        copy = shutil.copytree(run, tmp_path / f"copy-{same}")
        params, trainer, reader = _setup()
        assert trainer.load_checkpoint(str(copy))
        seen, handler = _begin_passes()
        trainer.train(reader, 3, handler, checkpoint_dir=str(copy) if same else None)
        assert seen == want, same  # the same run continues; any other call: 3 passes
    params, trainer, reader = _setup()
    trainer.load_checkpoint(str(tmp_path / "copy-True"))  # the end of the continued run
    with pytest.warns(TrainingWarning, match=r"trains nothing.*stands at pass 3") as record:
        trainer.train(reader, 3, checkpoint_dir=str(tmp_path / "copy-True"))
    fault.observed(
        "train(2); train(2): passes [0, 1, 0, 1]; killed in pass 1 of 3, reloaded: the same "
        "run continues with passes [1, 2], another call of 3 passes trains [1, 2, 3]; "
        f"then {record[0].category.__name__}: {record[0].message}"
    )
