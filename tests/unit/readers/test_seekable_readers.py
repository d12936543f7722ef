"""Seekable readers: the random-access side equals reading in order, pass by pass."""

import random

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.readers.seekable import Batches, open_pass_of
from paddle_lite.errors import ComposeNotAligned
from paddle_lite.reader import creator

R = paddle.reader


def _values(samples):
    """Samples as plain Python values (arrays as lists), for comparison."""
    def plain(x):
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, (tuple, list)):
            return type(x)(plain(v) for v in x)
        return x.item() if isinstance(x, np.generic) else x

    return [plain(s) for s in samples]


def _same_both_ways(make, passes=3):
    """``make()`` twice: one copy read in order, one by index, pass by pass, under the
    same global random states: the samples must be equal."""
    random.seed(11)
    read = make()
    in_order = [_values(read()) for _ in range(passes)]
    random.seed(11)
    seek = make()
    assert open_pass_of(seek) is not None, "not seekable"
    by_index = []
    for _ in range(passes):
        view = seek.open_pass()
        by_index.append(_values([view[j] for j in range(len(view))]))
    assert by_index == in_order
    return in_order


ARRAY = np.arange(40, dtype=np.float32).reshape(20, 2)


@pytest.mark.parametrize(
    "name, make",
    [
        ("np_array", lambda: creator.np_array(ARRAY)),
        ("map_readers", lambda: R.map_readers(lambda a, b: (a * 2, b), creator.np_array(ARRAY),
                                              creator.np_array(np.arange(20)))),  # fmt: skip
        ("compose", lambda: R.compose(creator.np_array(ARRAY), creator.np_array(np.arange(20)))),
        ("firstn", lambda: R.firstn(creator.np_array(ARRAY), 7)),
        ("chain", lambda: R.chain(creator.np_array(ARRAY[:5]), creator.np_array(ARRAY))),
        ("buffered", lambda: R.buffered(creator.np_array(ARRAY), 3)),
        ("shard", lambda: R.shard(creator.np_array(ARRAY), 3, 1)),
        ("shuffle seeded", lambda: R.shuffle(creator.np_array(ARRAY), 6, seed=4)),
        ("shuffle global random", lambda: R.shuffle(creator.np_array(ARRAY), 6)),
        ("shuffle whole", lambda: R.shuffle(creator.np_array(ARRAY), 100)),
        ("cache", lambda: R.cache(lambda: iter(range(9)))),
        ("dataset", lambda: paddle.dataset.uci_housing.train()),
    ],
)
def test_the_view_equals_reading_in_order(name, make):
    passes = _same_both_ways(make)
    assert passes[0]


def test_a_shuffle_over_a_seekable_reader_gives_the_windowed_order_of_the_plain_one():
    data = list(range(23))
    for seed in (None, 5):
        random.seed(3)
        plain = R.shuffle(lambda: iter(data), 7, seed=seed)
        want = [list(plain()) for _ in range(3)]
        random.seed(3)
        seekable = R.shuffle(creator.np_array(np.arange(23)), 7, seed=seed)
        assert [[int(x) for x in seekable()] for _ in range(3)] == want
        assert len({tuple(p) for p in want}) == 3  # the passes differ


def test_a_seeded_shuffle_restores_its_pass_count():
    reader = R.shuffle(creator.np_array(np.arange(30)), 10, seed=1)
    first = [list(map(int, reader())) for _ in range(3)]
    state_after_one = {"passes": 1}
    reader.restore(state_after_one)
    view = reader.open_pass()
    assert [int(view[j]) for j in range(len(view))] == first[1]


def test_batches_index_their_samples_and_start_anywhere():
    reader = paddle.batch(creator.np_array(np.arange(10)), 4)
    view = reader.open_pass()
    assert isinstance(view, Batches) and len(view) == 3 and reader.batch_size == 4
    assert [list(view.indices(b)) for b in range(3)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    later = view.from_sample(6)
    assert len(later) == 1 and _values(later[0]) == [6, 7, 8, 9]
    dropped = paddle.batch(creator.np_array(np.arange(10)), 4, drop_last=True).open_pass()
    assert len(dropped) == 2
    assert _values(reader()) == _values(view[b] for b in range(3))


def test_a_text_file_is_indexed_once_and_again_when_it_changes(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nbb\r\nccc\n\nlast")
    reader = creator.text_file(str(path))
    view = reader.open_pass()
    assert [view[j] for j in range(len(view))] == ["a", "bb\r", "ccc", "", "last"]
    assert list(reader()) == ["a", "bb\r", "ccc", "", "last"]
    path.write_text("x\ny\n")
    view = reader.open_pass()
    assert len(view) == 2 and view[1] == "y"


def test_compose_of_misaligned_seekable_readers_is_refused():
    reader = R.compose(creator.np_array(np.arange(3)), creator.np_array(np.arange(4)))
    with pytest.raises(ComposeNotAligned, match=r"readers \[0\] hold 3 samples"):
        list(reader())
    loose = R.compose(creator.np_array(np.arange(3)), creator.np_array(np.arange(4)),
                      check_alignment=False)  # fmt: skip
    assert len(loose.open_pass()) == 3


def test_readers_of_generators_stay_as_they_were():
    plain = R.shuffle(lambda: iter(range(5)), 2, seed=0)
    assert open_pass_of(plain) is None
    assert open_pass_of(paddle.batch(plain, 2)) is None
    assert open_pass_of(R.map_readers(abs, creator.np_array(np.arange(3)), plain)) is None
    assert sorted(plain()) == [0, 1, 2, 3, 4]
