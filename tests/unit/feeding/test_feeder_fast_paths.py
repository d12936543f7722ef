"""The feeder's fast paths give the checked path's arrays bit for bit, and leave every
malformed sample to the checked path's typed errors."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding import dense_rows as feeder_items
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite.errors import DataError

DT = paddle.data_type
RNG = np.random.default_rng(11)


def _checked_path(monkeypatch, feeder, batch):
    """``feeder(batch)`` with the vector fast path switched off."""
    with monkeypatch.context() as m:
        m.setattr(feeder_items, "_vector_rows", lambda values, dim: None)
        return feeder(batch)


def _same_bits(fast, slow):
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    assert fast.tobytes() == slow.tobytes()


@pytest.mark.parametrize("n, dim", [(2, 13), (128, 784), (3, 1), (64, 100)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_vector_rows_are_the_checked_paths_bits(monkeypatch, n, dim, dtype):
    """Small (np.asarray) and large (aligned concatenation) batches, of any numeric dtype."""
    rows = (RNG.normal(size=(n, dim)) * 1000).astype(dtype)
    batch = [(r, i % 10) for i, r in enumerate(rows)]
    feeder = DataFeeder([("x", DT.dense_vector(dim)), ("y", DT.integer_value(10))])
    fast, slow = feeder(batch), _checked_path(monkeypatch, feeder, batch)
    _same_bits(fast["x"], slow["x"])
    _same_bits(fast["y"], slow["y"])
    np.testing.assert_array_equal(fast["x"], rows.astype(np.float64).astype(np.float32))
    if fast["x"].nbytes >= feeder_items.ALIGN_FROM:
        assert fast["x"].ctypes.data % 64 == 0


def test_vector_rows_of_one_block_and_of_separate_arrays_agree():
    """The mnist reader yields rows of one block; uci_housing separate copies."""
    block = RNG.random((128, 784), dtype=np.float32)
    feeder = DataFeeder([("x", DT.dense_vector(784))])
    views = feeder([(r,) for r in block])["x"]
    copies = feeder([(r.copy(),) for r in block])["x"]
    _same_bits(views, copies)
    np.testing.assert_array_equal(views, block)


def _bad_rows(dim):
    """(bad value, what the error says) for a dense_vector(dim) sample."""
    return [
        (np.zeros(dim - 1, np.float32), f"received {dim - 1} values, expected {dim}"),
        (np.zeros(dim + 1, np.float32), f"received {dim + 1} values, expected {dim}"),
        ([0.5] * (dim - 1) + [None], "received None among the values"),
        (None, f"received None; expected {dim} numbers"),
        (np.array(["x"] * dim), "non-numeric values"),
        (np.zeros((1, 1, 1, dim), np.float32), "at most 3 dimensions"),
    ]


@pytest.mark.parametrize("n, dim", [(2, 13), (64, 784)])
@pytest.mark.parametrize("case", range(6))
def test_a_malformed_sample_after_well_formed_ones_names_field_and_sample(n, dim, case):
    bad, message = _bad_rows(dim)[case]
    feeder = DataFeeder([("label", DT.integer_value(3)), ("image", DT.dense_vector(dim))])
    good = [(0, r) for r in RNG.random((n, dim), dtype=np.float32)]
    feeder(good)  # well-formed batches first: the fast path taken
    batch = list(good)
    batch[n - 1] = (1, bad)
    with pytest.raises(DataError, match=rf"data layer 'image' \(field 1, sample {n - 1}\)"):
        feeder(batch)
    with pytest.raises(DataError, match=message):
        feeder(batch)


def test_rows_whose_lengths_compensate_are_refused_at_any_size():
    """Sizes that add up to n x dim (783 and 785) must not pass the concatenation."""
    for n in (2, 64):
        batch = [(np.zeros(784, np.float32),) for _ in range(n)]
        batch[0], batch[1] = (np.zeros(785, np.float32),), (np.zeros(783, np.float32),)
        with pytest.raises(DataError, match=r"sample 0\): received 785 values, expected 784"):
            DataFeeder([("image", DT.dense_vector(784))])(batch)


def test_lists_tuples_and_arrays_mixed_give_the_arrays_values():
    """v2 took any mix of lists, tuples and arrays; the fast path leaves such batches to
    the checked path, with the same values."""
    rows = RNG.random((64, 784), dtype=np.float32)
    mixed = [
        (r if i % 3 == 0 else r.tolist() if i % 3 == 1 else tuple(r),) for i, r in enumerate(rows)
    ]
    out = DataFeeder([("image", DT.dense_vector(784))])(mixed)["image"]
    _same_bits(out, rows)


@pytest.mark.parametrize("bounded", [True, False])
def test_ids_range_check_names_the_first_sample_outside(bounded):
    dim = 10
    feeder = DataFeeder([("w", DT.integer_value(dim))], unbounded=() if bounded else ("w",))
    ids = [int(v) for v in RNG.integers(0, dim, 32)]
    out = feeder([(v,) for v in ids])["w"]
    assert out.dtype == np.int32 and out.tolist() == ids
    for i, bad in [(5, -1), (31, -(2**40)), (7, dim)]:
        batch = [(v,) for v in ids]
        batch[i] = (bad,)
        if bounded or bad < 0:
            with pytest.raises(DataError, match=rf"sample {i}\): id {bad} is outside \[0, {dim}\)"):
                feeder(batch)
        else:  # ids read as numbers: only negatives are refused
            assert feeder(batch)["w"][i] == bad


@pytest.mark.parametrize("n, dim", [(2, 13), (128, 784)])
def test_batches_of_numpy_vectors_take_the_fast_path(monkeypatch, n, dim):
    """What the book's readers yield never reaches the per-sample checks."""

    def checked_path(*args):
        raise AssertionError("the checked path was taken")

    monkeypatch.setattr(feeder_items, "_stacked_rows", checked_path)
    monkeypatch.setattr(feeder_items, "_rows_one_by_one", checked_path)
    rows = RNG.random((n, dim), dtype=np.float32)
    out = DataFeeder([("x", DT.dense_vector(dim))])([(r,) for r in rows])["x"]
    _same_bits(out, rows)
