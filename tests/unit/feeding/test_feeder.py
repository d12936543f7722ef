"""DataFeeder: the v2 test_data_feeder behaviours plus padding and errors."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite.errors import DataError

DT = paddle.data_type
RNG = np.random.default_rng(3)


def test_dense_from_arrays_lists_and_tuples_agree():
    rows = RNG.random((4, 784)).astype(np.float32)
    feeder = DataFeeder([("image", DT.dense_vector(784))])
    for batch in ([(r,) for r in rows], [(r.tolist(),) for r in rows], [(tuple(r),) for r in rows]):
        out = feeder(batch)["image"]
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, rows)


def test_dense_array_flattens_images():
    imgs = RNG.random((2, 3, 28, 28)).astype(np.float32)
    out = DataFeeder([("img", DT.dense_array(2352))])([(i,) for i in imgs])["img"]
    np.testing.assert_array_equal(out, imgs.reshape(2, -1))


def test_sparse_binary_and_float():
    ids = [[1, 5, 7], [], [0]]
    out = DataFeeder([("s", DT.sparse_binary_vector(8))])([(i,) for i in ids])["s"]
    dense = np.zeros((3, 8))
    for r, cols in enumerate(ids):
        dense[r, cols] = 1
    rebuilt = np.zeros((3, 8))
    np.add.at(rebuilt, (np.arange(3)[:, None].repeat(out.ids.shape[1], 1), out.ids), out.values)
    np.testing.assert_array_equal(rebuilt, dense)
    pairs = [[(1, 0.5), (3, -2.0)], [(2, 1.5)]]
    f = DataFeeder([("f", DT.sparse_float_vector(4))])([(p,) for p in pairs])["f"]
    np.testing.assert_array_equal(f.ids[:, :2], [[1, 3], [2, 0]])
    np.testing.assert_array_equal(f.values[:, :2], [[0.5, -2.0], [1.5, 0.0]])


def test_sparse_items_may_be_any_iterable_as_v2_extended_them():
    # v2's scanner extended its column list with the item: a map (a list in Python 2)
    # or a generator served; a number is a DataError naming the field and sample.
    feeder = DataFeeder([("s", DT.sparse_binary_vector(8))])
    out = feeder([(map(int, "1 5 7".split()),), ((i for i in (0, 2)),)])["s"]
    np.testing.assert_array_equal(out.ids[:, :3], [[1, 5, 7], [0, 2, 0]])
    np.testing.assert_array_equal(out.values[:, :3], [[1, 1, 1], [1, 1, 0]])
    pairs = DataFeeder([("f", DT.sparse_float_vector(4))])([(iter([(3, 0.5)]),)])["f"]
    assert pairs.ids[0, 0] == 3 and pairs.values[0, 0] == 0.5
    with pytest.raises(DataError, match=r"'s' \(field 0, sample 1\): expected a list of ids, "):
        feeder([([1],), (5,)])


def test_integer_and_integer_sequence():
    labels = [3, 0, 9]
    out = DataFeeder([("l", DT.integer_value(10))])([(v,) for v in labels])["l"]
    assert out.dtype == np.int32 and out.tolist() == labels
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    s = DataFeeder([("w", DT.integer_value_sequence(10))])([(q,) for q in seqs])["w"]
    assert s.lengths.tolist() == [3, 1, 5] and s.data.shape == (3, 8)  # bucket of 5: 8
    starts = np.concatenate([[0], np.cumsum(s.lengths)])
    assert starts.tolist() == [0, 3, 4, 9]
    flat = np.concatenate([s.data[i, :n] for i, n in enumerate(s.lengths)])
    assert flat.tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_bool_ids_are_ones_and_zeros_as_v2_took_them():
    # v2's design doc composes readers yielding True / False as labels; Python 2's bools
    # were ints for v2's DataFeeder (SWIG), so True fed id 1 and False id 0.
    out = DataFeeder([("l", DT.integer_value(2))])([(True,), (False,), (np.bool_(True),)])["l"]
    assert out.dtype == np.int32 and out.tolist() == [1, 0, 1]
    s = DataFeeder([("w", DT.integer_value_sequence(3))])([([True, False, 2],), ([False],)])["w"]
    assert s.lengths.tolist() == [3, 1] and s.data[0, :3].tolist() == [1, 0, 2]
    assert s.data[1, 0] == 0
    with pytest.raises(DataError, match=r"sample 1\): received 0.5 \(float\); expected ints"):
        DataFeeder([("l", DT.integer_value(2))])([(True,), (0.5,)])


def test_nested_sequence():
    batch = [([[1, 2], [3]],), ([[4, 5, 6]],)]
    s = DataFeeder([("w", DT.integer_value_sub_sequence(10))])(batch)["w"]
    assert s.lengths.tolist() == [2, 1]
    assert s.sub_lengths.tolist() == [[2, 1], [3, 0]]
    assert s.data.shape == (2, 2, 4)
    assert s.data[0, 0, :2].tolist() == [1, 2] and s.data[1, 0, :3].tolist() == [4, 5, 6]


def test_feeding_dict_reorders_and_allows_extra_and_shared_fields():
    types = [("a", DT.dense_vector(2)), ("b", DT.integer_value(5)), ("c", DT.integer_value(5))]
    batch = [([0.5, 1.5], "unused", 3), ([2.5, 3.5], "unused", 4)]
    out = DataFeeder(types, {"a": 0, "b": 2, "c": 2})(batch)
    np.testing.assert_array_equal(out["a"], [[0.5, 1.5], [2.5, 3.5]])
    assert out["b"].tolist() == out["c"].tolist() == [3, 4]
    listed = DataFeeder(types[:2], ["b", "a"])([(1, [0.0, 1.0])])
    assert listed["b"].tolist() == [1]


def test_feeding_errors():
    types = [("x", DT.dense_vector(3)), ("y", DT.integer_value(4))]
    with pytest.raises(TypeError, match="Feeding should be dict or sequence or None"):
        DataFeeder(types, feeding="x")
    with pytest.raises(DataError, match=r"no field for data layer\(s\) \['y'\]"):
        DataFeeder(types, {"x": 0})
    feeder = DataFeeder(types)
    with pytest.raises(
        DataError, match=r"data layer 'x' \(field 0, sample 1\): received 2 values, expected 3"
    ):
        feeder([([1, 2, 3], 0), ([1, 2], 0)])
    with pytest.raises(
        DataError, match=r"data layer 'y' \(field 1, sample 0\): id 4 is outside \[0, 4\)"
    ):
        feeder([([1, 2, 3], 4)])
    with pytest.raises(DataError, match="expected ints"):
        feeder([([1, 2, 3], 0.5)])
    with pytest.raises(DataError, match="reads field 1, but samples have \\[1\\] fields"):
        feeder([([1, 2, 3],)])
    with pytest.raises(TypeError, match="InputType"):
        DataFeeder([("x", 3)])


def test_sequences_pad_to_the_configured_bucket():
    seqs = [([1] * 20,), ([2] * 3,)]
    tp = [("w", DT.integer_value_sequence(10))]
    assert DataFeeder(tp)(seqs)["w"].data.shape == (2, 32)  # default: multiples of 16
    assert DataFeeder(tp, seq_buckets="pow2")(seqs)["w"].data.shape == (2, 32)
    assert DataFeeder(tp, seq_buckets=[10, 25, 50])(seqs)["w"].data.shape == (2, 25)
    assert DataFeeder(tp, seq_buckets=7)(seqs)["w"].data.shape == (2, 21)
    paddle.init(seq_buckets=[21])
    try:
        assert DataFeeder(tp)(seqs)["w"].data.shape == (2, 21)
    finally:
        paddle.init()


def test_columns_of_arrays_skip_per_sample_conversion():
    x = RNG.random((5, 6)).astype(np.float32)
    y = RNG.integers(0, 4, 5)
    types = [("x", DT.dense_vector(6)), ("y", DT.integer_value(4))]
    want = DataFeeder(types)(list(zip(x, y, strict=True)))
    for batch in ({"x": x, "y": y}, (x, y), {"y": y[:, None], "x": x.reshape(5, 2, 3)}):
        got = DataFeeder(types)(batch)
        np.testing.assert_array_equal(got["x"], want["x"])
        np.testing.assert_array_equal(got["y"], want["y"])
        assert got["x"].dtype == np.float32 and got["y"].dtype == np.int32
    out = DataFeeder(types)({"x": x, "y": y})
    x[:] = 0  # the reader reuses its buffer: the converted batch keeps its values
    assert out["x"].any()


def test_sequence_columns_are_given_per_sample():
    types = [("w", DT.integer_value_sequence(10)), ("y", DT.integer_value(2))]
    batch = {"w": [[1, 2, 3], [4]], "y": np.array([0, 1])}
    out = DataFeeder(types)(batch)
    assert out["w"].lengths.tolist() == [3, 1] and out["w"].data[0, :3].tolist() == [1, 2, 3]
    equal = DataFeeder(types)({"w": np.array([[1, 2], [3, 4]]), "y": np.array([0, 1])})
    assert equal["w"].lengths.tolist() == [2, 2]


def test_column_errors_name_the_layer():
    types = [("x", DT.dense_vector(6)), ("y", DT.integer_value(4))]
    feeder = DataFeeder(types)
    with pytest.raises(DataError, match=r"no column for data layer 'y'"):
        feeder({"x": np.zeros((2, 6))})
    with pytest.raises(DataError, match=r"data layer 'x' \(field 0\): received a column of shape"):
        feeder({"x": np.zeros((2, 5)), "y": np.zeros(2, int)})
    with pytest.raises(DataError, match=r"shape \(6,\), expected \[batch, 6\] \(a single sample"):
        feeder((np.zeros(6), np.array([1])))  # a sample where a batch belongs
    with pytest.raises(DataError, match=r"data layer 'y' \(field 1, sample 1\): id 7 is outside"):
        feeder({"x": np.zeros((2, 6)), "y": np.array([1, 7])})
    with pytest.raises(DataError, match=r"different lengths \[2, 3\]"):
        feeder({"x": np.zeros((2, 6)), "y": np.zeros(3, int)})


def test_dense_arrays_stack_into_aligned_float32_whatever_their_dtype():
    rows = RNG.random((64, 784))  # 200 KB of float32: large enough to be realigned
    feeder = DataFeeder([("image", DT.dense_vector(784))])
    for batch in ([(r,) for r in rows], [(r.reshape(28, 28),) for r in rows], {"image": rows}):
        out = feeder(batch)["image"]
        assert out.dtype == np.float32 and out.ctypes.data % 64 == 0
        np.testing.assert_array_equal(out, rows.astype(np.float32))


def test_arrays_of_other_shapes_whose_sizes_add_up_are_refused():
    """Rows (2, 392), (1, 392), (3, 392) hold 3 x 784 numbers but are not 3 images."""
    batch = [(np.zeros((n, 392), np.float32),) for n in (2, 1, 3)]
    with pytest.raises(DataError, match=r"sample 1\): received 392 values, expected 784"):
        DataFeeder([("image", DT.dense_vector(784))])(batch)


def test_a_large_batch_of_rows_with_compensating_sizes_is_refused():
    """784 x 64 numbers in all, but row 1 has 783 and row 2 has 785: the aligned stack
    (large batches) must not join them into misaligned images."""
    batch = [(np.zeros(784, np.float32),) for _ in range(64)]
    batch[1], batch[2] = (np.zeros(783, np.float32),), (np.zeros(785, np.float32),)
    with pytest.raises(DataError, match=r"sample 1\): received 783 values, expected 784"):
        DataFeeder([("image", DT.dense_vector(784))])(batch)


def test_bare_array_samples_get_a_hint_to_wrap_them():
    """A reader yielding ``image`` instead of ``(image,)``: the array's elements are read
    as fields, and the error says so."""
    feeder = DataFeeder([("image", DT.dense_vector(4)), ("label", DT.integer_value(3))])
    with pytest.raises(DataError, match=r"received 1 values, expected 4.*numpy arrays of shape"):
        feeder([np.zeros(4, np.float32)])
    with pytest.raises(DataError) as err:  # tuples: no hint
        feeder([(np.zeros(5, np.float32), 1)])
    assert "numpy arrays" not in str(err.value)


def test_samples_that_are_numbers_suggest_paddle_batch():
    """A reader of samples passed where batches are expected: its samples' numbers are
    taken for samples."""
    feeder = DataFeeder([("image", DT.dense_vector(4)), ("label", DT.integer_value(3))])
    with pytest.raises(DataError, match=r"sample 1, of type int.*paddle\.batch\(reader"):
        feeder((np.zeros(4, np.float32), 1))
