"""Properties of the reader decorators over random sample lists and arguments."""

import collections
import itertools

from _budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import paddle_lite as paddle
from paddle_lite.reader import (
    buffered,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    shuffle,
    xmap_readers,
)

SAMPLES = st.lists(st.integers(-1000, 1000), max_size=60)
SMALL = settings(max_examples=examples(60))


def _reader(items):
    return lambda: iter(list(items))


@SMALL
@given(SAMPLES, st.integers(1, 9), st.booleans())
def test_batch_regroups_the_samples_in_order(items, size, drop_last):
    batches = list(paddle.batch(_reader(items), size, drop_last=drop_last)())
    assert all(len(b) == size for b in batches[:-1])
    kept = len(items) - (len(items) % size if drop_last else 0)
    assert list(itertools.chain.from_iterable(batches)) == items[:kept]
    assert all(batches) and (not batches or len(batches[-1]) <= size)


@SMALL
@given(SAMPLES, st.integers(0, 20), st.integers(0, 2**31))
def test_shuffle_permutes_within_windows_and_a_seed_replays(items, buf_size, seed):
    out = list(shuffle(_reader(items), buf_size, seed=seed)())
    window = max(buf_size, 1)
    for start in range(0, len(items), window):
        chunk = slice(start, start + window)
        assert collections.Counter(out[chunk]) == collections.Counter(items[chunk])
    if buf_size <= 1:
        assert out == items
    again = shuffle(_reader(items), buf_size, seed=seed)
    assert list(again()) == out  # the same first pass from the same seed


@SMALL
@given(st.lists(SAMPLES, max_size=4), st.integers(0, 70))
def test_chain_and_firstn(parts, n):
    chained = list(chain(*[_reader(p) for p in parts])())
    assert chained == [x for p in parts for x in p]
    assert list(firstn(_reader(chained), n)()) == chained[:n]


@SMALL
@given(st.integers(0, 30), st.integers(1, 3), st.data())
def test_compose_flattens_aligned_tuples_and_map_zips(length, width, data):
    columns = [
        data.draw(
            st.lists(st.tuples(st.integers(), st.integers()), min_size=length, max_size=length)
        )
        for _ in range(width)
    ]
    composed = list(compose(*[_reader(c) for c in columns])())
    assert composed == [tuple(x for col in row for x in col) for row in zip(*columns, strict=True)]
    summed = list(
        map_readers(lambda *xs: sum(a + b for a, b in xs), *[_reader(c) for c in columns])()
    )
    assert summed == [sum(a + b for a, b in row) for row in zip(*columns, strict=True)]


@settings(max_examples=examples(30))
@given(SAMPLES, st.integers(0, 5), st.integers(1, 4), st.booleans())
def test_threaded_decorators_keep_every_sample(items, size, threads, order):
    assert list(buffered(_reader(items), size)()) == items
    mapped = list(xmap_readers(lambda x: x * 3, _reader(items), threads, size, order=order)())
    want = [x * 3 for x in items]
    assert mapped == want if order else collections.Counter(mapped) == collections.Counter(want)


@SMALL
@given(SAMPLES)
def test_cache_replays_the_first_pass(items):
    calls = []

    def reader():
        calls.append(1)
        return iter(items)

    cached = cache(reader)
    assert list(cached()) == items and list(cached()) == items and len(calls) == 1
