"""Sample values v2's DataFeeder converted (py_paddle's DataProviderConverter scanners and
the SWIG vectors they filled), fed to paddle_lite's feeder, its trainer and ``infer``.

Each form is compared with the same values given as plain lists, the form every other
feeder test uses; the forms v2 read differently from the network (image-shaped samples
of another height and width) or could not read are typed errors naming the data layer.
"""

import array
import collections
import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.checks import feeder_for, image_inputs
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.values import Seq
from paddle_lite.errors import DataError, DataWarning

DT = paddle.data_type
RNG = np.random.default_rng(5)


def _dense_of(sparse, dim):
    """The dense rows a padded ``Sparse`` batch stands for (duplicates add up)."""
    rows = np.zeros(sparse.ids.shape[:-1] + (dim,))
    lead = np.indices(sparse.ids.shape)[:-1]
    np.add.at(rows, (*lead, sparse.ids), sparse.values)
    return rows


def _assert_same(got, want):
    """Two converted fields hold the same values (padding may differ in width)."""
    if isinstance(want, Seq):
        np.testing.assert_array_equal(got.lengths, want.lengths)
        _assert_same(got.data, want.data)
    elif hasattr(want, "ids"):
        np.testing.assert_array_equal(_dense_of(got, 16), _dense_of(want, 16))
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


# sparse items as numpy arrays ------------------------------------------------------
# SparseBinaryScanner extended its column list with the item: an int64 array's
# elements were Python 2 ints for SWIG's vector<int>. paddle_lite tested ``if not row``
# and raised numpy's "truth value of an array is ambiguous" ValueError.
SPARSE_ARRAYS = [
    ("sparse_binary_vector", [[1, 5, 5], [], [0, 15]], lambda ids: np.asarray(ids, np.int64)),
    (
        "sparse_float_vector",
        [[(1, 0.5), (7, -2.0)], [], [(15, 3.0)]],
        lambda pairs: np.asarray(pairs, np.float64).reshape(-1, 2),
    ),
]


@pytest.mark.parametrize("kind, rows, as_array", SPARSE_ARRAYS, ids=["binary", "float"])
def test_sparse_items_given_as_numpy_arrays(kind, rows, as_array):
    tp = getattr(DT, kind)(16)
    want = DataFeeder([("s", tp)])([(r,) for r in rows])["s"]
    got = DataFeeder([("s", tp)])([(as_array(r),) for r in rows])["s"]
    _assert_same(got, want)
    seq_tp = getattr(DT, kind + "_sequence")(16)
    want = DataFeeder([("s", seq_tp)])([(rows,), (rows[:1],)])["s"]
    got = DataFeeder([("s", seq_tp)])([([as_array(r) for r in rows],), ([as_array(rows[0])],)])
    _assert_same(got["s"], want)


DUPLICATES = {  # sparse items repeating an id, as lists and as numpy arrays
    "binary": (DT.sparse_binary_vector, [[1, 1, 4], [], [0, 4, 4, 4]], np.asarray),
    "float": (
        DT.sparse_float_vector,
        [[(1, 0.5), (1, 2.0), (3, -1.0)], [(2, 1.5)], [(0, 0.25), (0, 0.25)]],
        lambda pairs: np.asarray(pairs, np.float64).reshape(-1, 2),
    ),
}


def _multi_hot(rows, dim):
    """float64 rows of v2's CSR matrix times the identity: every entry added, so a repeated
    id counts as often as it appears (CpuMatrix::mul over a CpuSparseMatrix)."""
    dense = np.zeros((len(rows), dim))
    for r, row in enumerate(rows):
        for item in row:
            i, v = item if isinstance(item, tuple) else (item, 1.0)
            dense[r, i] += v
    return dense


@pytest.mark.parametrize("kind", DUPLICATES)
@pytest.mark.parametrize("as_arrays", [False, True], ids=["lists", "arrays"])
def test_repeated_sparse_ids_add_up_in_fc_forward_and_gradient(kind, as_arrays):
    """v2's fc over a sparse input added each CSR entry's weight row (forward) and its
    output gradient to that row (backward, the transposed product), repeats included."""
    make, rows, as_array = DUPLICATES[kind]
    x = paddle.layer.data("x", make(5))
    out = paddle.layer.fc(input=x, size=3, act=paddle.activation.Linear())
    cost = paddle.layer.sum_cost(input=out)
    params = paddle.parameters.create(cost)
    w0 = params.get("___fc_layer_0__.w0").astype(np.float64)
    b0 = params.get("___fc_layer_0__.wbias").astype(np.float64)
    samples = [(as_array(r) if as_arrays else r,) for r in rows]
    dense = _multi_hot(rows, 5)
    got = paddle.infer(output_layer=out, parameters=params, input=samples)
    np.testing.assert_allclose(got, dense @ w0 + b0, rtol=1e-5, atol=1e-6)
    opt = paddle.optimizer.Momentum(momentum=0, learning_rate=0.1)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    trainer.train(paddle.batch(lambda: iter(samples), len(samples)), num_passes=1)
    grad_w = dense.sum(axis=0)[:, None] * np.ones((1, 3))  # of the summed linear outputs
    np.testing.assert_allclose(
        params.get("___fc_layer_0__.w0"), w0 - 0.1 * grad_w, rtol=1e-5, atol=1e-6
    )


def test_a_sparse_item_that_is_a_0d_array_names_the_sample():
    with pytest.raises(DataError, match=r"'s' \(field 0, sample 1\): expected a list of ids"):
        DataFeeder([("s", DT.sparse_binary_vector(4))])([([1],), (np.array(3),)])


# sequences as other iterables ------------------------------------------------------
# SequenceScanner iterated each sequence and took its len(): a range (a list in
# Python 2), an xrange, a deque, an array.array served; a map was a list in Python 2.
INTS = [3, 1, 4, 1, 5]
SEQUENCE_FORMS = {  # name: (type, the sequence as lists, a function making the form)
    "range": (DT.integer_value_sequence(16), [2, 3, 4, 5, 6], lambda: range(2, 7)),
    "deque": (DT.integer_value_sequence(16), INTS, lambda: collections.deque(INTS)),
    "array.array": (DT.integer_value_sequence(16), INTS, lambda: array.array("i", INTS)),
    "map": (DT.integer_value_sequence(16), INTS, lambda: map(int, "3 1 4 1 5".split())),
    "generator": (DT.integer_value_sequence(16), INTS, lambda: (i for i in INTS)),
    "dense steps": (DT.dense_vector_sequence(2), [[1, 2], [3, 4]], lambda: iter([[1, 2], [3, 4]])),
    "sparse steps": (
        DT.sparse_binary_vector_sequence(16),
        [[1, 2], []],
        lambda: iter([[1, 2], []]),
    ),
    "sub-sequences": (
        DT.integer_value_sub_sequence(16),
        [[1, 2], [3]],
        lambda: (range(1, 3), collections.deque([3])),
    ),
    "outer map": (
        DT.integer_value_sub_sequence(16),
        [[1, 2], [3]],
        lambda: map(list, [[1, 2], [3]]),
    ),
}


@pytest.mark.parametrize("what", SEQUENCE_FORMS)
def test_sequences_given_as_other_iterables(what):
    tp, as_list, form = SEQUENCE_FORMS[what]
    want = DataFeeder([("q", tp), ("y", DT.integer_value(2))])([(as_list, 0), ([], 1)])
    got = DataFeeder([("q", tp), ("y", DT.integer_value(2))])([(form(), 0), ([], 1)])
    _assert_same(got["q"], want["q"])


def test_sequences_given_as_sets_warn_and_strings_or_dicts_are_refused():
    tp = [("w", DT.integer_value_sequence(16))]
    with pytest.warns(DataWarning, match=r"'w' \(field 0\) received a sequence given as a set"):
        out = DataFeeder(tp)([({3},)])["w"]
    assert out.data[0, 0] == 3 and out.lengths.tolist() == [1]
    for bad in ("12", {1: 2}, 7):
        with pytest.raises(DataError, match=r"'w' \(field 0, sample 1\): expected a sequence"):
            DataFeeder(tp)([([1],), (bad,)])
    nested = [("p", DT.integer_value_sub_sequence(16))]
    with pytest.raises(DataError, match=r"sample 0\): .*sub-sequence 1 is a str"):
        DataFeeder(nested)([([[1], "2"],)])


# dense rows as iterators -----------------------------------------------------------
def test_dense_rows_given_as_iterators():
    """``map(float, line.split())`` was a list in Python 2: v2's DenseScanner read it."""
    rows = RNG.random((3, 4)).astype(np.float32)
    lines = [" ".join(repr(float(v)) for v in r) for r in rows]
    feeder = DataFeeder([("x", DT.dense_vector(4)), ("y", DT.integer_value(2))])
    want = feeder([(r.tolist(), 0) for r in rows])["x"]
    got = feeder([(map(float, line.split()), 0) for line in lines])["x"]
    _assert_same(got, want)
    got = feeder([((float(v) for v in r), 1) for r in rows])["x"]
    _assert_same(got, want)
    with pytest.raises(DataError, match=r"'x' \(field 0, sample 1\): received 3 values"):
        feeder([(iter(rows[0]), 0), (iter(rows[1][:3]), 0)])


# ids mixing numbers and one-element arrays -----------------------------------------
def test_ids_mixing_numbers_and_one_element_arrays():
    feeder = DataFeeder([("y", DT.integer_value(10))])
    batch = [(np.array([3]),), (4,), ([2],), (np.int64(7),), ((1,),), (True,)]
    out = feeder(batch)["y"]
    assert out.dtype == np.int32 and out.tolist() == [3, 4, 2, 7, 1, 1]
    seq = DataFeeder([("w", DT.integer_value_sequence(10))])([([np.array([3]), 4, 5],)])["w"]
    assert seq.data[0, :3].tolist() == [3, 4, 5]
    with pytest.raises(DataError, match=r"sample 2\): received array\(\[1, 2\]\)"):
        feeder([(np.array([3]),), (4,), (np.array([1, 2]),)])
    with pytest.raises(DataError, match=r"sample 1\): received 'a' \(str\); expected ints"):
        feeder([(np.array([3]),), ("a",)])
    with pytest.raises(DataError, match=r"sample 1\): id 12 is outside \[0, 10\)"):
        feeder([(np.array([3]),), (12,)])


# feeding by key --------------------------------------------------------------------
def _net():
    x = paddle.layer.data("x", DT.dense_vector(3))
    label = paddle.layer.data("label", DT.integer_value(2))
    prob = paddle.layer.fc(input=x, size=2, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=prob, label=label)
    return prob, cost


def _trained(cost, params, reader, feeding):
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=0.1)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    trainer.train(reader, num_passes=1, feeding=feeding)
    return {n: params.get(n).copy() for n in params.names()}


def test_feeding_by_key_reads_dict_samples():
    """v2 read ``sample[feeding[name]]``: ``feeding={"x": "pixels"}`` read dict samples."""
    prob, cost = _net()
    xs = RNG.random((4, 3)).astype(np.float32)
    tuples = [(x, i % 2) for i, x in enumerate(xs)]
    dicts = [{"pixels": x, "target": y, "id": i} for i, (x, y) in enumerate(tuples)]
    feeding = {"x": "pixels", "label": "target"}
    params = paddle.parameters.create(cost)
    start = {n: params.get(n).copy() for n in params.names()}
    by_index = _trained(cost, params, paddle.batch(lambda: iter(tuples), 2), None)
    for n, v in start.items():
        params.set(n, v)
    by_key = _trained(cost, params, paddle.batch(lambda: iter(dicts), 2), feeding)
    assert all(not np.array_equal(by_index[n], start[n]) for n in by_index)
    for n in by_index:
        np.testing.assert_array_equal(by_key[n], by_index[n])
    want = paddle.infer(output_layer=prob, parameters=params, input=[(x,) for x in xs])
    got = paddle.infer(output_layer=prob, parameters=params, input=dicts, feeding={"x": "pixels"})
    np.testing.assert_array_equal(got, want)


def test_dict_samples_without_feeding_name_their_keys():
    feeder = DataFeeder([("x", DT.dense_vector(2))])
    keys = r"reads field 0, but sample 0 is a dict with keys \['a', 'b'\]: map each data layer"
    with pytest.raises(DataError, match=keys):
        feeder([{"a": [1, 2], "b": 0}])
    with pytest.raises(DataError, match=r"layer 'x' reads field 'c', but sample 0 is a dict with"):
        DataFeeder([("x", DT.dense_vector(2))], {"x": "c"})([{"a": [1, 2]}])


# sparse floats given as two parallel lists -----------------------------------------
def test_parallel_lists_for_sparse_floats_are_named():
    """v2 read ``(ids, values)`` as pairs too (ids ``ids[0], values[0]``): wrong values or a
    crash; paddle_lite refuses it, naming the layout it expects."""
    feeder = DataFeeder([("f", DT.sparse_float_vector(8))])
    for row in (([1, 2, 3], [0.5, 0.25, 0.125]), ([1, 2], [0.5, 0.25]), ([1], [0.5])):
        with pytest.raises(DataError, match=r"'f' \(field 0, sample 0.*parallel lists"):
            feeder([(row,)])


# image-shaped dense samples --------------------------------------------------------
def _conv_net(height=None, width=None):
    img = paddle.layer.data("img", DT.dense_vector(3 * 4 * 4), height=height, width=width)
    conv = paddle.layer.img_conv(
        input=img, filter_size=3, num_filters=2, num_channels=3, padding=1, stride=1
    )
    return paddle.layer.fc(input=conv, size=2, act=paddle.activation.Softmax())


def test_image_samples_of_the_networks_shape_feed_as_flat_vectors():
    """DenseScanner flattened a (C, H, W) sample and set H and W as the frame size; when
    they are the image the network was built for, the flat values are the image."""
    out = _conv_net()
    topology = paddle.topology.Topology(out)
    assert image_inputs(topology) == {"img": ((3, 4, 4), out.inputs[0].name)}
    params = paddle.parameters.create(out)
    images = RNG.random((3, 3, 4, 4)).astype(np.float32)
    flat = paddle.infer(output_layer=out, parameters=params, input=[(i.ravel(),) for i in images])
    shaped = paddle.infer(output_layer=out, parameters=params, input=[(i,) for i in images])
    np.testing.assert_array_equal(shaped, flat)
    feeds = feeder_for(topology).convert({"img": images})  # a column of images too
    np.testing.assert_array_equal(feeds["img"], images.reshape(3, -1))


@pytest.mark.parametrize(
    "shape, hint",
    [((3, 2, 8), "height 2 and width 8"), ((4, 4, 3), "transpose them to \\(C, H, W\\)")],
)
def test_image_samples_of_another_height_and_width_are_refused(shape, hint):
    """v2's conv read the fed frame size in place of the square its config assumed
    (ConvBaseLayer::calOutputSize; DataLayer passed the frame on when the data layer had
    no height and width): paddle_lite's conv, built for 4 x 4, would read them otherwise."""
    out = _conv_net()
    params = paddle.parameters.create(out)
    samples = [(RNG.random(shape).astype(np.float32),) for _ in range(2)]
    with pytest.raises(DataError, match=r"'img' \(field 0, sample 0\): received a sample of") as e:
        paddle.infer(output_layer=out, parameters=params, input=samples)
    assert "(C, H, W) = (3, 4, 4)" in str(e.value)
    assert e.match(hint)
    feeder = feeder_for(paddle.topology.Topology(out))
    with pytest.raises(DataError, match=r"'img' \(field 0\): received a sample of shape"):
        feeder.convert({"img": np.stack([s[0] for s in samples])})


def test_declared_image_sizes_take_any_sample_shape():
    """A data layer's height and width override the fed frame size (v2's
    DataLayer::copyDataToOutput), so any shape of the right size is its flat values."""
    out = _conv_net(height=4, width=4)
    assert image_inputs(paddle.topology.Topology(out)) == {}
    params = paddle.parameters.create(out)
    images = RNG.random((2, 3, 4, 4)).astype(np.float32)
    flat = paddle.infer(output_layer=out, parameters=params, input=[(i.ravel(),) for i in images])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other = [(i.reshape(3, 2, 8),) for i in images]
        got = paddle.infer(output_layer=out, parameters=params, input=other)
    np.testing.assert_array_equal(got, flat)


def test_a_hand_built_feeder_checks_the_images_it_is_given():
    images = {"img": ((1, 2, 3), "conv")}
    feeder = DataFeeder([("img", DT.dense_vector(6))], images=images)
    np.testing.assert_array_equal(feeder([(np.arange(6.0).reshape(2, 3),)])["img"], [range(6)])
    with pytest.raises(DataError, match=r"layer 'conv' reads this data layer as"):
        feeder([(np.arange(6.0).reshape(3, 2),)])
    assert DataFeeder([("img", DT.dense_vector(6))])([(np.zeros((3, 2)),)])["img"].shape == (1, 6)


def test_images_of_another_size_than_the_dim_say_the_size_is_fixed():
    """v2's dense_array took images whose size changed from batch to batch (its dim unused);
    a data layer here has one size, and the error says so."""
    feeder = DataFeeder([("img", DT.dense_array(3 * 4 * 4))])
    feeder([(np.zeros((3, 4, 4)),)])
    with pytest.raises(DataError, match=r"sample 1\): received 60 values, expected 48 \(a sampl"):
        feeder([(np.zeros((3, 4, 4)),), (np.zeros((3, 4, 5)),)])
    with pytest.raises(DataError, match=r"dense_array took images whose size changed"):
        feeder([(np.zeros((3, 4, 5)),)])


def test_a_hand_built_feeder_takes_a_generator_of_samples():
    """v2's DataFeeder.convert listed the samples it was given (reorder_data), so a
    generator served; a batch that is not a collection of samples is a DataError."""
    feeder = DataFeeder([("x", DT.dense_vector(2)), ("y", DT.integer_value(3))])
    samples = [([1.0, 2.0], 1), ([3.0, 4.0], 2)]
    got = feeder(s for s in samples)
    want = feeder(samples)
    _assert_same(got["x"], want["x"])
    _assert_same(got["y"], want["y"])
    with pytest.raises(DataError, match=r"received a batch of type int; a batch is a list"):
        feeder(5)


def test_training_on_sequences_given_as_maps_matches_lists():
    """A Python 2 reader ``yield map(word_dict.get, words), label`` yields maps under
    Python 3: one pass over them trains the parameters the lists train."""
    words = paddle.layer.data("words", DT.integer_value_sequence(8))
    label = paddle.layer.data("label", DT.integer_value(2))
    emb = paddle.layer.embedding(input=words, size=3)
    pooled = paddle.layer.pooling(input=emb, pooling_type=paddle.pooling.Avg())
    prob = paddle.layer.fc(input=pooled, size=2, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=prob, label=label)
    texts = [("a b c", 0), ("d", 1), ("e f a b", 1), ("c c", 0)]
    vocab = {w: i for i, w in enumerate("abcdefgh")}
    params = paddle.parameters.create(cost)
    start = {n: params.get(n).copy() for n in params.names()}
    lists = [([vocab[w] for w in t.split()], y) for t, y in texts]
    want = _trained(cost, params, paddle.batch(lambda: iter(lists), 2), None)
    for n, v in start.items():
        params.set(n, v)
    maps = lambda: ((map(vocab.get, t.split()), y) for t, y in texts)  # noqa: E731
    got = _trained(cost, params, paddle.batch(maps, 2), None)
    assert all(not np.array_equal(want[n], start[n]) for n in want)  # every one trained
    for n in want:
        np.testing.assert_array_equal(got[n], want[n])


def test_a_field_read_by_several_data_layers_gives_each_its_iterators_items():
    """Two data layers reading one field (v2's test feeds one field twice) each see every
    item of a sequence given as an iterator, at any depth."""
    types = [
        ("a", DT.integer_value_sequence(10)),
        ("b", DT.sparse_binary_vector(10)),
        ("c", DT.integer_value_sub_sequence(10)),
        ("d", DT.integer_value_sub_sequence(10)),
    ]
    feeding = {"a": 0, "b": 0, "c": 1, "d": 1}
    lists = [([1, 2, 3], [[1, 2], [3]]), ([4], [[5]])]
    want = DataFeeder(types, feeding)(lists)
    iterators = [
        (map(int, "1 2 3".split()), (map(int, s) for s in ["12", "3"])),
        (iter([4]), [iter([5])]),
    ]
    got = DataFeeder(types, feeding)(iterators)
    for name in "abcd":
        _assert_same(got[name], want[name])


def test_a_dense_0_1_vector_given_as_a_sparse_binary_item_warns():
    """v2 read ``[0, 1, 1, 0]`` for a sparse_binary_vector(4) as the ids 0, 1, 1, 0 (its
    scanner extended the column list with the item): so does paddle_lite, with a warning;
    items listing ids, however long, convert silently."""
    feeder = DataFeeder([("s", DT.sparse_binary_vector(4))])
    with pytest.warns(DataWarning, match=r"'s' \(field 0\) received a sparse_binary item of 4"):
        out = feeder([([2],), ([0, 1, 1, 0],)])["s"]
    np.testing.assert_array_equal(_dense_of(out, 4), [[0, 0, 1, 0], [2, 2, 0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(_dense_of(feeder([([3, 0, 2, 1],)])["s"], 4), [[1] * 4])
        DataFeeder([("s", DT.sparse_binary_vector(2))])([([0, 1],)])  # dim 2: ids 0 and 1
