"""The feeder over random ragged batches: every sample's values, checked against a
per-sample numpy reference, and every padded position zero.

The padding length is only required to cover the longest sample (the bucket ladder is a
speed policy that may change); the values and lengths must be exact.
"""

import collections
import warnings

import numpy as np
from _budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import paddle_lite as paddle
from paddle_lite._src.feeding.feeder import DataFeeder

DT = paddle.data_type
DIM, VOCAB = 3, 12
FLOATS = st.floats(-1e3, 1e3, width=32, allow_subnormal=False)
VECTOR = st.lists(FLOATS, min_size=DIM, max_size=DIM)
WORD = st.integers(0, VOCAB - 1)
TYPES = [
    ("dense", DT.dense_vector(DIM)),
    ("label", DT.integer_value(VOCAB)),
    ("frames", DT.dense_vector_sequence(DIM)),
    ("words", DT.integer_value_sequence(VOCAB)),
    ("paragraph", DT.integer_value_sub_sequence(VOCAB)),
    ("bag", DT.sparse_binary_vector(VOCAB)),
    ("weights", DT.sparse_float_vector(VOCAB)),
]
SAMPLE = st.tuples(
    VECTOR,
    WORD,
    st.lists(VECTOR, max_size=9),
    st.lists(WORD, max_size=17),
    st.lists(st.lists(WORD, max_size=6), max_size=5),
    st.lists(WORD, max_size=VOCAB, unique=True),
    st.lists(st.tuples(WORD, FLOATS), max_size=VOCAB, unique_by=lambda p: p[0]),
)


def _multi_hot(ids, values):
    """The dense rows a padded sparse batch stands for."""
    dense = np.zeros((ids.shape[0], VOCAB))
    rows = np.broadcast_to(np.arange(ids.shape[0])[:, None], ids.shape)
    np.add.at(dense, (rows, ids), values)
    return dense


def _check_sequence(seq, samples):
    lengths = [len(s) for s in samples]
    assert seq.lengths.tolist() == lengths
    assert seq.data.shape[1] >= max(lengths, default=1)
    for i, sample in enumerate(samples):
        want = np.asarray(sample, seq.data.dtype).reshape((len(sample),) + seq.data.shape[2:])
        np.testing.assert_array_equal(seq.data[i, : len(sample)], want)
        assert not np.any(seq.data[i, len(sample) :])


def _check_nested(seq, samples):
    assert seq.lengths.tolist() == [len(s) for s in samples]
    for i, sample in enumerate(samples):
        assert seq.sub_lengths[i, : len(sample)].tolist() == [len(sub) for sub in sample]
        assert not np.any(seq.sub_lengths[i, len(sample) :])
        for j, sub in enumerate(sample):
            assert seq.data[i, j, : len(sub)].tolist() == sub
            assert not np.any(seq.data[i, j, len(sub) :])
        assert not np.any(seq.data[i, len(sample) :])


@settings(max_examples=examples(60))
@given(st.lists(SAMPLE, min_size=1, max_size=8))
def test_every_field_matches_its_per_sample_reference(batch):
    feeds = DataFeeder(TYPES)(batch)
    column = dict(zip([name for name, _ in TYPES], zip(*batch, strict=True), strict=True))
    np.testing.assert_array_equal(feeds["dense"], np.asarray(column["dense"], np.float32))
    assert feeds["dense"].dtype == np.float32 and feeds["label"].dtype == np.int32
    assert feeds["label"].tolist() == list(column["label"])
    _check_sequence(feeds["frames"], column["frames"])
    _check_sequence(feeds["words"], column["words"])
    _check_nested(feeds["paragraph"], column["paragraph"])
    bag = feeds["bag"]
    want = np.zeros((len(batch), VOCAB))
    for i, ids in enumerate(column["bag"]):
        want[i, ids] = 1.0
    np.testing.assert_array_equal(_multi_hot(bag.ids, bag.values), want)
    weights = feeds["weights"]
    want = np.zeros((len(batch), VOCAB))
    for i, pairs in enumerate(column["weights"]):
        for k, v in pairs:
            want[i, k] = np.float32(v)
    np.testing.assert_array_equal(_multi_hot(weights.ids, weights.values), want)


@settings(max_examples=examples(40))
@given(st.lists(SAMPLE, min_size=1, max_size=6), st.data())
def test_the_order_of_samples_is_the_order_of_rows(batch, data):
    order = data.draw(st.permutations(range(len(batch))))
    feeds = DataFeeder(TYPES)(batch)
    shuffled = DataFeeder(TYPES)([batch[i] for i in order])
    np.testing.assert_array_equal(shuffled["dense"], feeds["dense"][order])
    assert shuffled["words"].lengths.tolist() == feeds["words"].lengths[order].tolist()


# The forms v2's DataFeeder converted for each value: an item's container, a sequence's
# container and each id's type, drawn per value; every batch converts as its plain lists.
_CONTAINERS = [list, tuple, np.asarray, iter, lambda v: map(lambda x: x, v)]
_SIZED = [list, tuple, np.asarray, collections.deque]
_IDS = [int, np.int64, np.int32, lambda v: np.array([v]), float]


def _id_form(draw, v):
    return draw(st.sampled_from(_IDS))(v)


def _ids_in(draw, ids):
    """A sequence of ids: an array of one dtype, or any container of ids of any form."""
    container = draw(st.sampled_from(_CONTAINERS))
    if container is np.asarray:
        return np.asarray(ids, draw(st.sampled_from([np.int64, np.int32, np.float64])))
    return container([_id_form(draw, v) for v in ids])


def _reform(draw, name, value):
    """``value`` (a field of ``TYPES``, as the strategy draws it) in a random v2 form."""
    pick = lambda forms: draw(st.sampled_from(forms))  # noqa: E731
    if name == "dense":
        return pick(_CONTAINERS)(value)
    if name == "label":
        return _id_form(draw, value)
    if name == "frames":
        return pick(_CONTAINERS)([pick(_SIZED)(step) for step in value])
    if name == "words":
        return _ids_in(draw, value)
    if name == "paragraph":
        return pick(_SIZED[:2])([_ids_in(draw, s) for s in value])
    if name == "bag":
        return pick([list, tuple, iter, lambda v: np.asarray(v, np.int64)])(value)
    pairs = [(_id_form(draw, k), v) for k, v in value]  # weights: (id, value) pairs
    return pick([list, tuple, iter])(pairs)


@settings(max_examples=examples(40))
@given(st.lists(SAMPLE, min_size=1, max_size=6), st.data())
def test_every_form_v2_converted_gives_the_plain_lists_values(batch, data):
    names = [name for name, _ in TYPES]
    want = DataFeeder(TYPES)(batch)
    reformed = [
        data.draw(st.sampled_from([tuple, list]))(
            _reform(data.draw, n, v) for n, v in zip(names, sample, strict=True)
        )
        for sample in batch
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = DataFeeder(TYPES)(reformed)
    np.testing.assert_array_equal(got["dense"], want["dense"])
    assert got["label"].tolist() == want["label"].tolist()
    for name in ("frames", "words", "paragraph"):
        assert got[name].lengths.tolist() == want[name].lengths.tolist()
        np.testing.assert_array_equal(got[name].data, want[name].data)
    for name in ("bag", "weights"):
        np.testing.assert_array_equal(
            _multi_hot(got[name].ids, got[name].values),
            _multi_hot(want[name].ids, want[name].values),
        )
