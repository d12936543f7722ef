"""bucket_by_length (every sample once, similar lengths per batch, seeded, less padding)
and shard."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.buckets import default_ladder
from paddle_lite.errors import ReaderTypeError

RNG = np.random.default_rng(0)
LENGTHS = np.minimum(RNG.lognormal(5.1, 0.6, 2000).astype(int) + 1, 2500).tolist()
SAMPLES = [(list(range(n)), i) for i, n in enumerate(LENGTHS)]


def _reader():
    return iter(SAMPLES)


def _padded_waste(batches):
    padded = sum(default_ladder(max(len(s[0]) for s in b)) * len(b) for b in batches)
    return 1 - sum(LENGTHS) / padded


def test_every_sample_once_in_batches_of_similar_length():
    reader = paddle.reader.bucket_by_length(_reader, batch_size=32, buf_size=20)
    batches = list(reader())
    assert sorted(s[1] for b in batches for s in b) == list(range(2000))
    assert sorted(len(b) for b in batches)[:2] == [16, 32]  # 2000 = 62 * 32 + 16

    def spread(batches):
        return np.median([max(len(s[0]) for s in b) / min(len(s[0]) for s in b) for b in batches])

    assert spread(batches) < 1.2 < 5 < spread(paddle.batch(_reader, 32)())


def test_the_order_is_seeded_and_changes_per_pass():
    reader = paddle.reader.bucket_by_length(_reader, batch_size=16, seed=5)
    first = [[s[1] for s in b] for b in reader()]
    second = [[s[1] for s in b] for b in reader()]
    again = paddle.reader.bucket_by_length(_reader, batch_size=16, seed=5)
    assert [[s[1] for s in b] for b in again()] == first
    assert first != second


def test_padding_drops_below_fifteen_percent_on_long_tailed_lengths():
    plain = list(paddle.batch(_reader, 32)())
    bucketed = list(paddle.reader.bucket_by_length(_reader, batch_size=32)())
    assert _padded_waste(bucketed) < 0.15 < 0.3 < _padded_waste(plain)


def test_drop_last_and_custom_length():
    reader = paddle.reader.bucket_by_length(
        lambda: iter(range(10)), 4, length=lambda s: -s, drop_last=True
    )
    batches = list(reader())
    assert sorted(len(b) for b in batches) == [4, 4]
    assert all(b == sorted(b, reverse=True) for b in batches)


def test_errors_name_the_argument():
    with pytest.raises(ReaderTypeError, match="bucket_by_length: reader"):
        paddle.reader.bucket_by_length(_reader(), 4)
    with pytest.raises(ReaderTypeError, match="length must be a function"):
        paddle.reader.bucket_by_length(_reader, 4, length=3)


def test_shards_are_disjoint_ordered_and_complete():
    parts = [list(paddle.reader.shard(lambda: iter(range(10)), 3, i)()) for i in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    with pytest.raises(ValueError, match="index must be below num_shards=3"):
        paddle.reader.shard(lambda: iter(()), 3, 3)
