"""The reader length protocol: every decorator that keeps a length gives the count a pass
really yields (counted by reading it), readers without one stay without, and a sized
reader keeps the reader state protocol."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.readers.length import SizedReader, length_of

R = paddle.reader


def _count(reader):
    return sum(1 for _ in reader())


def _rows(n):
    return R.creator.np_array(np.arange(n))


DECORATED = {
    "np_array": lambda: _rows(7),
    "np_array 0-d": lambda: R.creator.np_array(np.float32(3)),
    "batch": lambda: paddle.batch(_rows(7), 3),
    "batch exact": lambda: paddle.batch(_rows(6), 3),
    "batch drop_last": lambda: paddle.batch(_rows(7), 3, drop_last=True),
    "batch of 0": lambda: paddle.batch(_rows(0), 3),
    "shuffle": lambda: R.shuffle(_rows(7), 3),
    "shuffle seeded": lambda: R.shuffle(_rows(7), 3, seed=1),
    "buffered": lambda: R.buffered(_rows(7), 2),
    "cache": lambda: R.cache(_rows(7)),
    "xmap_readers": lambda: R.xmap_readers(lambda x: x * 2, _rows(7), 2, 4, order=True),
    "map_readers": lambda: R.map_readers(lambda a, b: a + b, _rows(7), _rows(5)),
    "map_readers one": lambda: R.map_readers(lambda a: a, _rows(4)),
    "compose": lambda: R.compose(_rows(5), _rows(5)),
    "chain": lambda: R.chain(_rows(2), _rows(5), _rows(0)),
    "firstn short": lambda: R.firstn(_rows(7), 3),
    "firstn long": lambda: R.firstn(_rows(7), 30),
    "Fake": lambda: R.Fake()(lambda: iter(range(100)), 6),
    "nested": lambda: paddle.batch(R.shuffle(R.firstn(R.chain(_rows(9), _rows(4)), 11), 4), 2),
}


@pytest.mark.parametrize("name", sorted(DECORATED))
def test_len_is_what_a_pass_yields(name):
    reader = DECORATED[name]()
    assert len(reader) == _count(reader) == _count(reader)  # and stays so pass after pass


def test_unsized_readers_stay_unsized():
    plain = lambda: iter(range(5))  # noqa: E731 - a reader of one's own, without len()
    for reader in (
        plain,
        paddle.batch(plain, 2),
        R.shuffle(plain, 2),
        R.chain(_rows(3), plain),
        R.firstn(plain, 3),  # at most 3, but maybe fewer: unknown
        R.bucket_by_length(_rows(6), 2),  # regroups a sized reader: its count is unknown
    ):
        assert length_of(reader) is None
        with pytest.raises(TypeError):
            len(reader)


def test_a_sized_reader_keeps_the_state_protocol_and_name():
    reader = paddle.batch(R.shuffle(_rows(10), 10, seed=3), 4)
    assert len(reader) == 3 and reader.__name__ == "batch_reader"
    state = reader.state()
    first = [b.copy() for b in map(np.array, reader())]
    reader.restore(state)
    again = [np.array(b) for b in reader()]
    assert all((a == b).all() for a, b in zip(first, again, strict=True))


def test_sized_reader_wraps_a_reader_with_a_lazy_length():
    asked = []
    reader = SizedReader(lambda: iter("abc"), lambda: asked.append(1) or 3)
    assert asked == [] and len(reader) == 3 and asked == [1] and list(reader()) == ["a", "b", "c"]
    empty = _rows(0)
    assert len(empty) == 0 and (empty or None) is empty  # true, as a reader function is


def test_uci_housing_readers_have_their_row_counts():
    train, test = paddle.dataset.uci_housing.train(), paddle.dataset.uci_housing.test()
    assert (len(train), len(test)) == (404, 102) == (_count(train), _count(test))
    assert len(paddle.batch(R.shuffle(train, 500), 2)) == 202  # chapter 1's reader


def test_the_trainer_reads_the_length_at_the_first_pass():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(1))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    cost = paddle.layer.square_error_cost(input=paddle.layer.fc(input=x, size=1), label=y)
    trainer = paddle.trainer.SGD(cost, paddle.parameters.create(cost), paddle.optimizer.Momentum())
    samples = R.map_readers(lambda v: (np.float32([v]), np.float32([2 * v])), _rows(10))
    seen = []
    trainer.train(
        paddle.batch(samples, 4),
        num_passes=2,
        event_handler=lambda e: isinstance(e, paddle.event.BeginPass) and seen.append(e.batches),
    )
    assert seen == [3, 3]
