"""paddle.batch: grouping, the last short batch, drop_last, re-iteration and argument errors."""

import numpy as np
import pytest

from paddle_lite.errors import DataError
from paddle_lite.minibatch import batch


def reader_0_to(n):
    def reader():
        yield from ((i, 2 * i) for i in range(n))

    return reader


def expected_batches(n, size, drop_last):
    samples = [(i, 2 * i) for i in range(n)]
    batches = [samples[start : start + size] for start in range(0, n, size)]
    if drop_last and batches and len(batches[-1]) < size:
        batches.pop()
    return batches


@pytest.mark.parametrize("n,size", [(10, 3), (9, 3), (2, 5), (0, 4), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_groups_samples(n, size, drop_last):
    batched = batch(reader_0_to(n), size, drop_last=drop_last)
    assert list(batched()) == expected_batches(n, size, drop_last)


def test_batch_keeps_short_last_batch_by_default():
    out = list(batch(reader_0_to(10), 4)())
    assert [len(b) for b in out] == [4, 4, 2]
    assert out[-1] == [(8, 16), (9, 18)]


def test_batch_is_reiterable_and_batches_are_lists():
    batched = batch(reader_0_to(5), 2)
    first, second = list(batched()), list(batched())
    assert first == second == expected_batches(5, 2, False)
    assert all(type(b) is list for b in first)


def test_batch_accepts_numpy_int_size():
    assert len(list(batch(reader_0_to(6), np.int64(3))())) == 2


def test_batch_rejects_bad_arguments():
    with pytest.raises(TypeError, match=r"batch: reader must be a reader.*received generator"):
        batch(reader_0_to(3)(), 2)
    with pytest.raises(TypeError, match=r"received list"):
        batch([1, 2, 3], 2)
    for size in (0, -3):
        with pytest.raises(DataError, match=f"batch_size must be >= 1; received {size}"):
            batch(reader_0_to(3), size)
    for size in (2.0, True, "4", None):
        with pytest.raises(TypeError, match="batch_size must be an int"):
            batch(reader_0_to(3), size)
