"""Training over seekable readers: the same steps as reading in order; resume is a seek."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import TrainingWarning
from paddle_lite.reader import creator

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
X = np.random.default_rng(0).normal(size=(60, 5)).astype(np.float32)
Y = np.arange(60) % 3


def _trainer():
    paddle.layer.reset_names()
    paddle.init(seed=2)
    x = L.data(name="x", type=DT.dense_vector(5))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=8, act=A.Relu(), layer_attr=paddle.attr.Extra(drop_rate=0.2))
    cost = L.classification_cost(input=L.fc(input=h, size=3, act=A.Softmax()), label=y)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.05)
    return paddle.trainer.SGD(cost, params, optimizer), params


def _seekable(read=None, size=8, seed=3):
    """Batches of a shuffled seekable reader; ``read`` collects the sample ids read."""

    def sample(i):
        if read is not None:
            read.append(int(i))
        return X[i], int(Y[i])

    samples = paddle.reader.map_readers(sample, creator.np_array(np.arange(60)))
    return paddle.batch(paddle.reader.shuffle(samples, 100, seed=seed), size)


def _plain(size=8, seed=3):
    order = paddle.reader.shuffle(lambda: iter(range(60)), 100, seed=seed)
    return paddle.batch(paddle.reader.map_readers(lambda i: (X[i], int(Y[i])), order), size)


def _same(a, b):
    return all(np.array_equal(a[n], b[n]) for n in b)


@pytest.fixture(autouse=True)
def _defaults():
    yield
    paddle.init()


def test_a_seekable_reader_trains_as_the_same_reader_read_in_order():
    trainer, params = _trainer()
    trainer.train(_plain(), num_passes=3)
    want = params.values()
    trainer, params = _trainer()
    read = []
    trainer.train(_seekable(read), num_passes=3)
    assert _same(params.values(), want)
    assert len(read) == 180 and sorted(read[:60]) == list(range(60))  # each sample once a pass


class _Stop(Exception):
    pass


def _crash_at(pass_id, batch_id):
    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and (event.pass_id, event.batch_id) == (
            pass_id,
            batch_id,
        ):
            raise _Stop

    return handler


def test_a_resume_reads_nothing_before_the_checkpoints_sample(tmp_path):
    trainer, params = _trainer()
    trainer.train(_seekable(), num_passes=2)
    want = params.values()
    trainer, _ = _trainer()
    with pytest.raises(_Stop):
        trainer.train(_seekable(), 2, _crash_at(1, 5), checkpoint_dir=str(tmp_path),
                      checkpoint_every=5)  # fmt: skip
    trainer, params = _trainer()
    trainer.load_checkpoint(str(tmp_path))
    read = []
    trainer.train(_seekable(read), 2, checkpoint_dir=str(tmp_path))
    assert len(read) == 60 - 40  # pass 1 from sample 40: nothing before it is read
    assert _same(params.values(), want)


def test_a_resume_with_another_batch_size_goes_on_from_the_same_sample(tmp_path):
    trainer, _ = _trainer()
    with pytest.raises(_Stop):
        trainer.train(_seekable(size=8), 2, _crash_at(0, 3), checkpoint_dir=str(tmp_path),
                      checkpoint_every=3)  # fmt: skip
    trainer, _ = _trainer()
    trainer.load_checkpoint(str(tmp_path))
    read, batches = [], []

    def record(event):
        if isinstance(event, paddle.event.EndIteration):
            batches.append((event.pass_id, event.batch_id))

    with pytest.warns(TrainingWarning, match="batches of 8; this reader's are of 5.*sample 24"):
        history = trainer.train(_seekable(read, size=5), 2, record, checkpoint_dir=str(tmp_path))
    assert len(read) == (60 - 24) + 60  # the rest of pass 0, then all of pass 1
    first = [read[: 60 - 24]]
    order = list(_seekable(size=60)())[0]  # pass 0's order, the same permutation
    assert [int(np.flatnonzero((X == x).all(1))[0]) for x, _ in order[24:]] == first[0]
    assert batches[0] == (0, 3) and history[0].samples == 60  # counted from the checkpoint
