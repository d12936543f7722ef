"""A resume that would be wrong is refused before anything changes; saving works from
every event; one trainer per checkpoint folder."""

import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training import checkpoints, folder_lock
from paddle_lite.errors import CheckpointError, CheckpointLockedError, ResumeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _network():
    paddle.layer.reset_names()
    x = L.data(name="x", type=DT.dense_vector(5))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=8, act=A.Relu(), layer_attr=paddle.attr.Extra(drop_rate=0.3))
    return L.classification_cost(input=L.fc(input=h, size=3, act=A.Softmax()), label=y)


ROWS = [
    (np.random.default_rng(i).normal(size=5).astype(np.float32), i % 3) for i in range(40)
]


def _trainer(optimizer=None):
    paddle.init(seed=4)
    cost = _network()
    params = paddle.parameters.create(cost)
    optimizer = optimizer or paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.05)
    return paddle.trainer.SGD(cost, params, optimizer), params


def _reader(size, rows=ROWS):
    return paddle.batch(lambda: iter(rows), size)


class _Stop(Exception):
    pass


def _stop_at(pass_id, batch_id):
    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and (
            event.pass_id,
            event.batch_id,
        ) == (pass_id, batch_id):
            raise _Stop

    return handler


@pytest.fixture
def checkpoint(tmp_path):
    """The folder of a checkpoint after 4 batches of 8 (32 samples) of pass 0."""
    trainer, params = _trainer()
    with pytest.raises(_Stop):
        trainer.train(
            _reader(8), 2, _stop_at(0, 4), checkpoint_dir=str(tmp_path / "ck"), checkpoint_every=2
        )
    return str(tmp_path / "ck")


def _same(a, b):
    return all(np.array_equal(a[n], b[n]) for n in b)


@pytest.mark.parametrize("size", [16, 5])
def test_another_batch_size_is_refused_and_changes_nothing(checkpoint, fault, size):
    fault.case(
        "checkpoints (resume)",
        f"a checkpoint after 4 batches of 8 (32 samples) resumed with batches of {size}",
        "ResumeError naming the samples and the batch size, before anything trains; with "
        "batches of 8 again the run resumes",
    )
    folder = checkpoint
    trainer, params = _trainer()
    assert trainer.load_checkpoint(folder)
    saved = params.values()
    with pytest.raises(ResumeError, match=r"32 samples in batches of 8.* hold \d+ samples") as err:
        trainer.train(_reader(size), 2, checkpoint_dir=folder)
    assert _same(params.values(), saved)
    seen = []

    def record(event):
        if isinstance(event, paddle.event.BeginIteration):
            seen.append(event.batch_id)

    trainer.train(_reader(8), 2, record, checkpoint_dir=folder)
    assert seen[:2] == [4, 0]  # resumed at batch 4 of pass 0, then pass 1
    fault.observed(err.value)


def test_a_reader_shorter_than_the_position_is_refused(checkpoint, fault):
    fault.case(
        "checkpoints (resume)",
        "a checkpoint after 4 batches of pass 0 resumed with a reader of 3 batches",
        "ResumeError: the reader ended first; nothing trained",
    )
    folder = checkpoint
    trainer, params = _trainer()
    trainer.load_checkpoint(folder)
    saved = params.values()
    with pytest.raises(ResumeError, match="the reader ended after 3 batches") as err:
        trainer.train(_reader(8, ROWS[:24]), 2, checkpoint_dir=folder)
    assert _same(params.values(), saved)
    fault.observed(err.value)


def test_another_optimizer_is_refused_at_load_with_the_parameters_untouched(checkpoint, fault):
    fault.case(
        "checkpoints (resume)",
        "load_checkpoint of a Momentum run into a trainer with Adam",
        "CheckpointError at load_checkpoint; the parameters and the trainer unchanged",
    )
    folder = checkpoint
    saved = paddle.parameters.Parameters.from_tar(
        os.path.join(checkpoints.latest(folder), "parameters.tar")
    ).values()
    trainer, params = _trainer(paddle.optimizer.Adam(learning_rate=0.01))
    before = params.values()
    with pytest.raises(CheckpointError, match="optimizer state does not fit") as err:
        trainer.load_checkpoint(folder)
    assert _same(params.values(), before) and not _same(before, saved)
    trainer.train(_reader(8), 1)  # trains from its own start, as if nothing was loaded
    fault.observed(err.value)


EVENTS = {
    "BeginPass": lambda e: isinstance(e, paddle.event.BeginPass) and e.pass_id == 1,
    "BeginIteration": lambda e: isinstance(e, paddle.event.BeginIteration)
    and (e.pass_id, e.batch_id) == (1, 2),
    "EndForwardBackward": lambda e: isinstance(e, paddle.event.EndForwardBackward)
    and (e.pass_id, e.batch_id) == (1, 2),
    "EndIteration": lambda e: isinstance(e, paddle.event.EndIteration)
    and (e.pass_id, e.batch_id) == (1, 2),
    "EndPass": lambda e: isinstance(e, paddle.event.EndPass) and e.pass_id == 0,
}


@pytest.mark.parametrize("k", [1, 2])
def test_saving_from_each_event_resumes_exactly(tmp_path, fault, k):
    fault.case(
        "checkpoints (resume)",
        f"save_checkpoint in a BeginPass, BeginIteration, EndForwardBackward, EndIteration "
        f"and EndPass handler (steps_per_dispatch={k}); resume each in a new trainer",
        "each resumed run trains the batches after the saved state, none twice, and ends "
        "bit-identical",
    )
    trainer, params = _trainer()
    trainer.train(_reader(8), 3, steps_per_dispatch=k)
    want = params.values()
    for name, at in EVENTS.items():
        trainer, params = _trainer()
        saved_after = []

        def handler(event, at=at, trainer=trainer, folder=tmp_path / name, log=saved_after):
            if at(event):
                trainer.save_checkpoint(str(folder / "ck"))
                log.append(trainer._device.steps_run())

        trainer.train(_reader(8), 3, handler, steps_per_dispatch=k)
        trainer, params = _trainer()
        trainer.load_checkpoint(str(tmp_path / name / "ck"))
        steps = []

        def record(event, log=steps):
            if isinstance(event, paddle.event.EndIteration):
                log.append(event)

        folder = str(tmp_path / name)
        trainer.train(_reader(8), 3, record, checkpoint_dir=folder, steps_per_dispatch=k)
        assert len(steps) == 15 - saved_after[0], name  # 5 batches a pass, none twice
        assert _same(params.values(), want), name
    fault.observed("every resumed run trained the batches after its save once; bit-identical")


def _holder(folder):
    """A process that holds ``folder``'s lock until killed."""
    code = (
        "import sys, time\n"
        "from paddle_lite._src.training import folder_lock\n"
        "with folder_lock.holding(sys.argv[1], object(), 'train(checkpoint_dir=...)'):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_writer_gets_a_typed_error_and_the_files_stay(tmp_path, fault):
    fault.case(
        "checkpoints (one writer)",
        "train(checkpoint_dir=d) while another process trains into d; then that process dies",
        "CheckpointLockedError naming d and the other process; d unchanged; once it is gone "
        "its lock is taken over",
    )
    folder = tmp_path / "ck"
    trainer, params = _trainer()
    trainer.train(_reader(8), 1, checkpoint_dir=str(folder))
    before = {n: (folder / n).stat().st_mtime_ns for n in checkpoints.listed(str(folder))}
    other = _holder(folder)
    try:
        with pytest.raises(CheckpointLockedError, match=rf"process {other.pid} ") as err:
            trainer.train(_reader(8), 1, checkpoint_dir=str(folder))
        with pytest.raises(CheckpointLockedError):
            trainer.save_checkpoint(str(folder / "by-hand"))
    finally:
        other.kill()
        other.wait()
        other.stdout.close()
    after = {n: (folder / n).stat().st_mtime_ns for n in checkpoints.listed(str(folder))}
    assert after == before and str(folder) in str(err.value)
    trainer.train(_reader(8), 1, checkpoint_dir=str(folder))  # the dead holder's lock is free
    assert not (folder / folder_lock.NAME).exists()
    fault.observed(err.value)


def test_two_trainers_of_one_process_on_one_folder(tmp_path):
    folder = str(tmp_path / "ck")
    first, _ = _trainer()
    second, _ = _trainer()
    raised = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 1:
            with pytest.raises(CheckpointLockedError, match="another trainer of this process"):
                second.train(_reader(8), 1, checkpoint_dir=folder)
            first.save_checkpoint(os.path.join(folder, "by-hand"))  # its own: re-entrant
            raised.append(True)

    first.train(_reader(8), 1, handler, checkpoint_dir=folder)
    assert raised and checkpoints.is_checkpoint(os.path.join(folder, "by-hand"))
    second.train(_reader(8), 1, checkpoint_dir=folder)


def test_a_lock_file_left_without_a_holder_is_taken_over(tmp_path):
    folder = tmp_path / "ck"
    folder.mkdir()
    (folder / folder_lock.NAME).write_text('{"pid": 999999, "host": "gone"}')
    trainer, _ = _trainer()
    trainer.train(_reader(8), 1, checkpoint_dir=str(folder))
    assert checkpoints.listed(str(folder))


@pytest.mark.slow  # the same lock as the test above, through two whole training runs
def test_a_job_started_twice_on_one_folder(tmp_path, fault):
    fault.case(
        "checkpoints (one writer)",
        "the same training script started twice on one checkpoint folder",
        "the second exits with CheckpointLockedError naming the folder and the first "
        "process; the first finishes and its result equals an uninterrupted run",
    )
    script = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "checkpointed_training.py"
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    folder, log = tmp_path / "ck", tmp_path / "first.log"

    def start(name, *args):
        with open(tmp_path / f"{name}.err", "w") as err:
            return subprocess.Popen(
                [sys.executable, str(script), *map(str, args)],
                env=env, stdout=subprocess.DEVNULL, stderr=err, text=True,
            )  # fmt: skip

    reference = start("reference", tmp_path / "ref", tmp_path / "want.npz")
    first = start("first", folder, tmp_path / "first.npz", 0.3, log)
    while not (log.exists() and len(log.read_text().splitlines()) >= 3):
        assert first.poll() is None, (tmp_path / "first.err").read_text()
        time.sleep(0.02)
    second = start("second", folder, tmp_path / "second.npz")
    second.wait(timeout=300)
    err = (tmp_path / "second.err").read_text()
    assert second.returncode != 0 and "CheckpointLockedError" in err
    assert f"process {first.pid} " in err and str(folder) in err
    assert first.wait(timeout=300) == 0 and reference.wait(timeout=300) == 0
    with np.load(tmp_path / "first.npz") as got, np.load(tmp_path / "want.npz") as want:
        assert all(np.array_equal(got[n], want[n]) for n in want.files)
    fault.observed(err.strip().splitlines()[-1])
