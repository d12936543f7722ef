"""Reader decorators: the v2 decorator_test behaviours plus error paths and cleanup."""

import gzip
import multiprocessing
import os
import random
import subprocess
import threading
import time

import numpy as np
import pytest

import paddle_lite as paddle
import paddle_lite.reader as reader_mod
from paddle_lite.errors import DataError
from paddle_lite.reader import (
    ComposeNotAligned,
    Fake,
    PipeReader,
    ReaderProcessError,
    buffered,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    multiprocess_reader,
    shuffle,
    xmap_readers,
)

FORK_OK = pytest.mark.filterwarnings(
    "ignore:.*fork.*:RuntimeWarning", "ignore:.*fork.*:DeprecationWarning"
)


def reader_0_to(n):
    def reader():
        yield from range(n)

    return reader


def new_threads(before):
    return [t for t in threading.enumerate() if t not in before and t.is_alive()]


def wait_for_new_threads_to_end(before, timeout=3.0):
    deadline = time.monotonic() + timeout
    while new_threads(before) and time.monotonic() < deadline:
        time.sleep(0.01)
    return new_threads(before)


def test_public_layout():
    assert reader_mod.__all__ == sorted(reader_mod.__all__)
    assert reader_mod.decorator.shuffle is shuffle
    assert reader_mod.creator.np_array.__name__ == "np_array"
    assert issubclass(ComposeNotAligned, ValueError)


def test_map_readers_in_order_and_stops_at_shortest():
    mapped = map_readers(lambda x, y: x * 10 + y, reader_0_to(10), reader_0_to(4))
    assert list(mapped()) == [0, 11, 22, 33]
    squares = map_readers(lambda x: x * x, reader_0_to(5))
    assert list(squares()) == [0, 1, 4, 9, 16]
    assert list(squares()) == [0, 1, 4, 9, 16]


def test_chain_concatenates():
    assert list(chain(reader_0_to(10), reader_0_to(10))()) == list(range(10)) * 2
    assert list(chain()()) == []


def test_compose_aligned_flattens_tuples():
    assert list(compose(reader_0_to(10), reader_0_to(10))()) == [(i, i) for i in range(10)]
    mixed = compose(lambda: [(1, 2)], lambda: [3], lambda: [(4, 5)])
    assert list(mixed()) == [(1, 2, 3, 4, 5)]


def test_compose_not_aligned():
    composed = compose(chain(reader_0_to(10), reader_0_to(10)), reader_0_to(10))
    seen = []
    with pytest.raises(ComposeNotAligned, match=r"readers \[1\] ended after 10 samples"):
        for sample in composed():
            seen.append(sample)
    assert seen == [(i, i) for i in range(10)]
    truncated = compose(
        chain(reader_0_to(10), reader_0_to(10)), reader_0_to(10), check_alignment=False
    )
    assert list(truncated()) == [(i, i) for i in range(10)]


def test_compose_none_is_a_sample_not_an_end():
    assert list(compose(lambda: [None, 1], lambda: [2, 3])()) == [(None, 2), (1, 3)]


@pytest.mark.parametrize("buf_size", [0, 1])
def test_shuffle_small_buffer_keeps_order(buf_size):
    assert list(shuffle(reader_0_to(10), buf_size)()) == list(range(10))


def test_shuffle_keeps_items_and_shuffles_within_windows():
    out = list(shuffle(reader_0_to(23), 5, seed=3)())
    assert sorted(out) == list(range(23))
    for start in range(0, 23, 5):
        assert sorted(out[start : start + 5]) == list(range(start, min(start + 5, 23)))


def test_shuffle_seed_reproduces_each_pass():
    first, second = shuffle(reader_0_to(50), 20, seed=7), shuffle(reader_0_to(50), 20, seed=7)
    passes_a = [list(first()) for _ in range(3)]
    passes_b = [list(second()) for _ in range(3)]
    assert passes_a == passes_b
    assert passes_a[0] != passes_a[1]
    expected = []
    rng = random.Random(7 + 1)
    for start in (0, 20, 40):
        window = list(range(start, min(start + 20, 50)))
        rng.shuffle(window)
        expected += window
    assert passes_a[1] == expected


def test_shuffle_without_seed_uses_global_random():
    random.seed(11)
    out = list(shuffle(reader_0_to(10), 100)())
    random.seed(11)
    expected = list(range(10))
    random.shuffle(expected)
    assert out == expected


def test_firstn():
    assert list(firstn(reader_0_to(10), 3)()) == [0, 1, 2]
    assert list(firstn(reader_0_to(2), 5)()) == [0, 1]
    assert list(firstn(reader_0_to(2), 0)()) == []


def test_cache_reads_once_and_replays():
    calls = []

    def source():
        calls.append(1)
        yield from [(1, "a"), (2, "b")]

    cached = cache(source)
    assert calls == []
    for _ in range(3):
        assert list(cached()) == [(1, "a"), (2, "b")]
    assert len(calls) == 1


def test_fake_repeats_first_sample():
    calls = []

    def source():
        calls.append(1)
        yield from range(5, 10)

    fake = Fake()(source, 7)
    for _ in range(3):
        assert list(fake()) == [5] * 7
    assert len(calls) == 1
    with pytest.raises(DataError, match="no sample"):
        list(Fake()(lambda: [], 2)())


def test_decorators_reject_bad_arguments():
    gen = reader_0_to(3)()
    with pytest.raises(TypeError, match=r"shuffle: reader must be a reader.*received generator"):
        shuffle(gen, 10)
    with pytest.raises(TypeError, match=r"compose: readers\[1\]"):
        compose(reader_0_to(3), [1, 2])
    with pytest.raises(DataError, match="buf_size must be >= 0; received -1"):
        shuffle(reader_0_to(3), -1)
    with pytest.raises(TypeError, match="n must be an int"):
        firstn(reader_0_to(3), 2.5)
    with pytest.raises(TypeError, match="seed must be an int or None; received str"):
        shuffle(reader_0_to(3), 2, seed="7")
    with pytest.raises(TypeError, match="func must be callable"):
        map_readers(3, reader_0_to(3))


@pytest.mark.parametrize("size", range(20))
def test_buffered_keeps_order(size):
    assert list(buffered(reader_0_to(10), size)()) == list(range(10))


def test_buffered_prefetches_while_consumer_is_busy():
    def slow_reader():
        for i in range(10):
            time.sleep(0.03)
            yield i

    samples = buffered(slow_reader, 10)()
    assert next(samples) == 0
    time.sleep(0.6)
    start = time.monotonic()
    rest = list(samples)
    elapsed = time.monotonic() - start
    assert rest == list(range(1, 10))
    assert elapsed < 0.15, f"9 prefetched samples took {elapsed:.3f}s; serial reading is 0.27s"


def test_buffered_reraises_reader_error_after_good_samples():
    def failing():
        yield from range(3)
        raise KeyError("broken record")

    seen = []
    with pytest.raises(KeyError, match="broken record"):
        for sample in buffered(failing, 2)():
            seen.append(sample)
    assert seen == [0, 1, 2]


def test_buffered_thread_stops_when_consumer_leaves():
    before = set(threading.enumerate())
    samples = buffered(reader_0_to(10**6), 4)()
    assert [next(samples) for _ in range(3)] == [0, 1, 2]
    assert len(new_threads(before)) == 1
    samples.close()
    assert wait_for_new_threads_to_end(before) == []


@pytest.mark.parametrize("threads,buffer", [(1, 1), (2, 1), (3, 2), (4, 16), (8, 3), (16, 5)])
@pytest.mark.parametrize("order", [True, False])
def test_xmap_readers_order_and_reuse(threads, buffer, order):
    def jittery_plus_one(x):
        time.sleep(0.001 * (x % 3 == 0))
        return x + 1

    mapped = xmap_readers(jittery_plus_one, reader_0_to(40), threads, buffer, order=order)
    for _ in range(3):
        out = list(mapped())
        if order:
            assert out == list(range(1, 41))
        else:
            assert sorted(out) == list(range(1, 41))


def test_xmap_readers_reraises_mapper_and_reader_errors():
    def mapper(x):
        if x == 5:
            raise ZeroDivisionError("sample 5")
        return x

    with pytest.raises(ZeroDivisionError, match="sample 5"):
        list(xmap_readers(mapper, reader_0_to(20), 4, 2, order=True)())

    def failing():
        yield from range(4)
        raise OSError("disk gone")

    seen = []
    with pytest.raises(OSError, match="disk gone"):
        for sample in xmap_readers(lambda x: x * 2, failing, 3, 2, order=True)():
            seen.append(sample)
    assert seen == [0, 2, 4, 6]


def test_xmap_readers_threads_stop_when_consumer_leaves():
    before = set(threading.enumerate())
    samples = xmap_readers(lambda x: x, reader_0_to(10**6), 4, 2, order=True)()
    assert [next(samples) for _ in range(5)] == [0, 1, 2, 3, 4]
    assert len(new_threads(before)) == 5
    samples.close()
    assert wait_for_new_threads_to_end(before) == []
    with pytest.raises(TypeError, match="mapper must be callable"):
        xmap_readers(None, reader_0_to(3), 2, 2)
    with pytest.raises(DataError, match="process_num must be >= 1; received 0"):
        xmap_readers(abs, reader_0_to(3), 0, 2)


def _shard(start):
    def reader():
        for i in range(start, start + 50):
            yield i, np.full(3, i, dtype=np.float32)

    return reader


def _dies():
    yield 1
    os._exit(3)


def _raises():
    yield 1
    raise RuntimeError("child failed on purpose")


@FORK_OK
@pytest.mark.parametrize("use_pipe", [True, False])
def test_multiprocess_reader_merges_all_samples(use_pipe):
    merged = multiprocess_reader([_shard(0), _shard(1000)], use_pipe=use_pipe, queue_size=8)
    for _ in range(2):
        samples = list(merged())
        ids = [i for i, _ in samples]
        assert sorted(ids) == list(range(50)) + list(range(1000, 1050))
        assert [i for i in ids if i < 1000] == list(range(50))
        for i, vector in samples:
            np.testing.assert_array_equal(vector, np.full(3, i, dtype=np.float32))


@FORK_OK
@pytest.mark.parametrize("use_pipe", [True, False])
def test_multiprocess_reader_reports_child_failures(use_pipe):
    failing = multiprocess_reader([_shard(0), _raises], use_pipe=use_pipe)
    with pytest.raises(ReaderProcessError, match=r"readers\[1\](.|\n)*child failed on purpose"):
        list(failing())
    dying = multiprocess_reader([_dies], use_pipe=use_pipe)
    with pytest.raises(ReaderProcessError, match=r"readers\[0\] exited with code 3"):
        list(dying())


def _endless():
    yield from iter(int, 1)


@FORK_OK
@pytest.mark.parametrize("use_pipe", [True, False])
def test_multiprocess_reader_stops_children_when_consumer_leaves(use_pipe):
    samples = multiprocess_reader([_endless, _endless], use_pipe=use_pipe, queue_size=4)()
    assert [next(samples) for _ in range(5)] == [0] * 5
    samples.close()
    assert multiprocessing.active_children() == []


def test_multiprocess_reader_rejects_bad_arguments():
    with pytest.raises(TypeError, match="non-empty list of readers"):
        multiprocess_reader(_shard(0))
    with pytest.raises(TypeError, match=r"readers\[1\]"):
        multiprocess_reader([_shard(0), 5])


@pytest.fixture
def text_lines(tmp_path):
    lines = [f"{2 * i} {2 * i + 1}" for i in range(200)] + ["héllo wörld ✓"]
    path = tmp_path / "lines.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


def test_pipe_reader_yields_lines(text_lines):
    path, lines = text_lines
    assert list(PipeReader(f"cat {path}", bufsize=128).get_line()) == lines
    assert list(PipeReader(f"cat '{path}'", bufsize=1).get_line()) == lines
    chunks = list(PipeReader(f"cat {path}", bufsize=64).get_line(cut_lines=False))
    assert "".join(chunks) == "\n".join(lines) + "\n"
    assert list(PipeReader(f"cat {path}").get_line(line_break=" "))[:2] == ["0", "1\n2"]


def test_pipe_reader_gzip(tmp_path, text_lines):
    _, lines = text_lines
    path = tmp_path / "lines.gz"
    first, second = "\n".join(lines[:100]) + "\n", "\n".join(lines[100:])
    path.write_bytes(gzip.compress(first.encode()) + gzip.compress(second.encode()))
    assert list(PipeReader(f"cat {path}", bufsize=100, file_type="gzip").get_line()) == lines
    path.write_bytes(gzip.compress(first.encode())[:-12])
    with pytest.raises(DataError, match="gzip stream ended"):
        list(PipeReader(f"cat {path}", file_type="gzip").get_line())


def test_pipe_reader_errors_and_cleanup(tmp_path):
    with pytest.raises(TypeError, match="command must be a str"):
        PipeReader(["cat", "x"])
    with pytest.raises(TypeError, match="file_type must be 'plain' or 'gzip'; received 'bz2'"):
        PipeReader("cat x", file_type="bz2")
    with pytest.raises(FileNotFoundError, match="not on PATH"):
        PipeReader("no-such-program-xyz file")
    with pytest.raises(subprocess.CalledProcessError):
        list(PipeReader(f"cat {tmp_path / 'missing.txt'}").get_line())
    lines = PipeReader("yes abc").get_line()
    assert [next(lines) for _ in range(3)] == ["abc"] * 3
    lines.close()


def test_a_reader_returning_a_reader_reads_that_readers_samples_with_a_warning():
    # early-2017 v2 datasets' train() returned the samples' generator, so programs wrote
    # shuffle(lambda: imdb.train(word_dict), ...); with train() returning the reader, that
    # lambda returns a reader
    def dataset_train():
        return lambda: iter([(1,), (2,), (3,)])

    with pytest.warns(paddle.errors.DataWarning, match=r"returned a reader .* rather than"):
        batches = list(paddle.batch(lambda: dataset_train(), 2)())
    assert batches == [[(1,), (2,)], [(3,)]]
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(1))
    out = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    cost = paddle.layer.sum_cost(input=out)
    trainer = paddle.trainer.SGD(
        cost, paddle.parameters.create(cost), paddle.optimizer.Momentum(learning_rate=0.1)
    )
    rows = [(np.array([1.0], np.float32),), (np.array([2.0], np.float32),)]
    with pytest.warns(paddle.errors.DataWarning, match=r"returned a reader"):
        result = trainer.test(lambda: paddle.batch(lambda: iter(rows), 2))
    w = trainer._parameters.get("___fc_layer_0__.w0")[0, 0]
    b = trainer._parameters.get("___fc_layer_0__.wbias")[0, 0]
    assert result.cost == pytest.approx((3 * w + 2 * b) / 2, rel=1e-6)
