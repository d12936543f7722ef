"""A layer that pairs the rows of its sequence inputs (addto, concat, mixed, a cost and its
label) refuses sequences of other lengths, sample by sample, naming the layer, the inputs
and the sample; v2 paired the batch's rows, stopping where their counts differed and
pairing rows of different samples where only the totals agreed."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.lengths import Source, length_checks
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.specs import Spec
from paddle_lite._src.topology import Topology
from paddle_lite.errors import DataError

L, D = paddle.layer, paddle.data_type
H = 2


def _pair(combine):
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    out = combine(a, b)
    return out, paddle.parameters.create(out)


COMBINE = {
    "addto": lambda a, b: L.addto(input=[a, b], name="out"),
    "concat": lambda a, b: L.concat(input=[a, b], name="out"),
    "mixed": lambda a, b: L.mixed(
        size=H, input=[L.identity_projection(a), L.identity_projection(b)], name="out"
    ),
}
NUMPY = {
    "addto": lambda x, y: x + y,
    "concat": lambda x, y: np.concatenate([x, y], axis=1),
    "mixed": lambda x, y: x + y,
}


def _infer(out, params, samples):
    return paddle.infer(output_layer=out, parameters=params, input=samples)


@pytest.mark.parametrize("kind", sorted(COMBINE))
def test_equal_lengths_pair_the_rows_of_each_sample(kind):
    out, params = _pair(COMBINE[kind])
    rng = np.random.default_rng(1)
    samples = [
        (rng.normal(size=(n, H)).astype("float32"), rng.normal(size=(n, H)).astype("float32"))
        for n in (2, 3, 1)
    ]
    want = np.concatenate([NUMPY[kind](np.float64(x), np.float64(y)) for x, y in samples])
    np.testing.assert_allclose(_infer(out, params, samples), want, rtol=1e-6)


@pytest.mark.parametrize("kind", sorted(COMBINE))
@pytest.mark.parametrize(("la", "lb"), [(2, 3), (3, 1)])
def test_other_lengths_raise_a_data_error_naming_layer_inputs_and_sample(kind, la, lb):
    out, params = _pair(COMBINE[kind])
    ones = lambda n: np.ones((n, H), "float32")  # noqa: E731
    with pytest.raises(DataError) as err:
        _infer(out, params, [(ones(2), ones(2)), (ones(la), ones(lb))])
    text = str(err.value)
    assert f"{kind} 'out': input 1 'b' (data layer 'b') has mismatched sequence lengths" in text
    assert f"sample 1 has {lb}, but input 0 'a' (data layer 'a') has {la}" in text


def test_equal_totals_split_otherwise_are_refused_too():
    # v2 would have added row 2 of sample 0 of 'b' to row 0 of sample 1 of 'a'
    out, params = _pair(COMBINE["addto"])
    ones = lambda n: np.ones((n, H), "float32")  # noqa: E731
    with pytest.raises(DataError, match="sample 0 has 3, but input 0 'a'"):
        _infer(out, params, [(ones(2), ones(3)), (ones(3), ones(2))])


def _tagger():
    words = L.data(name="words", type=D.integer_value_sequence(10))
    tags = L.data(name="tags", type=D.integer_value_sequence(3))
    emb = L.embedding(input=words, size=4)
    prob = L.fc(input=emb, size=3, act=paddle.activation.Softmax(), name="prob")
    return prob, L.classification_cost(input=prob, label=tags, name="cost")


def test_a_label_sequence_of_another_length_stops_train_and_test():
    _, cost = _tagger()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))
    good = [([1, 2, 3], [0, 1, 2]), ([4, 5], [2, 2])]
    bad = [([1, 2, 3], [0, 1, 2]), ([4, 5], [2, 2, 1])]
    before = params.get("_prob.w0")
    message = r"multi_class_cross_entropy 'cost': input 1 'tags' \(data layer 'tags'\)"
    with pytest.raises(DataError, match=r"train\(\) pass 0, batch 1: " + message):
        trainer.train(paddle.batch(lambda: iter(good + bad), 2), num_passes=1)
    with pytest.raises(DataError, match=message + ".*sample 1 has 3, but input 0 'prob'"):
        trainer.test(paddle.batch(lambda: iter(bad), 2))
    # the good first batch trained; the bad one changed nothing more
    assert not np.array_equal(params.get("_prob.w0"), before)
    assert trainer.test(paddle.batch(lambda: iter(good), 2)).cost > 0


def test_infer_of_the_prediction_reads_no_label():
    prob, _ = _tagger()
    params = paddle.parameters.create(prob)
    got = paddle.infer(output_layer=prob, parameters=params, input=[([1, 2, 3],), ([4],)])
    assert got.shape == (4, 3)


def test_nested_inputs_compare_their_sub_sequence_lengths():
    a = L.data(name="na", type=D.dense_vector_sub_sequence(H))
    b = L.data(name="nb", type=D.dense_vector_sub_sequence(H))
    out = L.addto(input=[a, b], name="out")
    params = paddle.parameters.create(out)
    checks = length_checks(Topology(out).nodes)
    assert [[s for _, _, s in c.inputs] for c in checks] == [
        [Source("na", 0), Source("nb", 0)],
        [Source("na", 1), Source("nb", 1)],
    ]
    row = [1.0, 2.0]
    x = [[row, row], [row]]
    np.testing.assert_allclose(_infer(out, params, [(x, x)]), 2 * np.array([row] * 3))
    with pytest.raises(DataError, match=r"mismatched sub-sequence lengths: sample 0 has \[1, 2\]"):
        _infer(out, params, [(x, [[row], [row, row]])])
    with pytest.raises(DataError, match="mismatched sequence lengths: sample 0 has 1, but"):
        _infer(out, params, [(x, [[row, row, row]])])


def test_inputs_of_one_data_layer_need_no_check():
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    out = L.addto(input=[a, L.fc(input=a, size=H)])
    assert length_checks(Topology(out).nodes) == ()


def test_aligned_inputs_are_the_deepest_sequences_of_a_kind_that_pairs_rows():
    seq, flat = Spec(3, seq_level=1), Spec(1)
    def aligned(kind, *inputs):
        return get_kind(kind).host.aligned_inputs(inputs, {})

    assert aligned("multi_class_cross_entropy", seq, seq) == (0, 1)
    assert aligned("scaling", flat, seq) == (1,)
    assert aligned("addto", flat, flat) == ()
    assert aligned("seqconcat", seq, seq) == ()


def test_a_cost_over_a_resized_input_names_the_row_counts():
    x = L.data(name="x", type=D.dense_vector(8))
    y = L.data(name="y", type=D.dense_vector(4))
    cost = L.square_error_cost(input=L.resize(input=x, size=4, name="r"), label=y, name="cost")
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))
    rows = [(np.ones(8, "float32"), np.ones(4, "float32"))] * 2
    with pytest.raises(paddle.errors.LayerConfigError, match=r"\{'r': 4, 'y': 2\} rows"):
        trainer.train(paddle.batch(lambda: iter(rows), 2), num_passes=1)


@pytest.mark.parametrize(("la", "lb"), [(1, 3), (2, 7), (5, 5), (9, 17)])
def test_a_seq_concat_beside_a_sequence_of_equal_lengths_pairs_rows(la, lb):
    # the concatenation's lengths are computed on the device and padded to another
    # width than the data layer's; the rows still pair up (a JAX TypeError before)
    a, b, c = (L.data(name=n, type=D.dense_vector_sequence(H)) for n in ("sa", "sb", "sc"))
    out = L.addto(input=[L.seq_concat(a=a, b=b), c])
    params = paddle.parameters.create(out)
    rng = np.random.default_rng(la * 31 + lb)
    x, y, z = (rng.normal(size=(n, H)).astype("float32") for n in (la, lb, la + lb))
    got = _infer(out, params, [(x, y, z), (x[:1], y[:1], z[:2])])
    first = np.concatenate([x, y]) + z
    second = np.concatenate([x[:1], y[:1]]) + z[:2]
    np.testing.assert_allclose(got, np.concatenate([first, second]), rtol=1e-6)


def _concat_beside(name="out"):
    a, b, c = (L.data(name=n, type=D.dense_vector_sequence(H)) for n in ("sa", "sb", "sc"))
    return L.addto(input=[L.seq_concat(a=a, b=b, name="cat"), c], name=name)


def test_a_seq_concat_beside_a_sequence_of_other_lengths_gives_nan_rows_for_that_sample():
    # the host cannot see lengths computed on the device; the layer marks the sample NaN
    # instead of pairing its rows with zeros or with another sample's
    out = _concat_beside()
    params = paddle.parameters.create(out)
    rng = np.random.default_rng(4)
    x, y, z = (rng.normal(size=(n, H)).astype("float32") for n in (2, 1, 4))
    got = _infer(out, params, [(x, y, z[:3]), (x, y, z)])  # 2 + 1 rows beside 3, then 4
    np.testing.assert_allclose(got[:3], np.concatenate([x, y]) + z[:3], rtol=1e-6)
    assert got.shape == (6, H) and np.isnan(got[3:]).all()


def test_training_stops_at_a_seq_concat_beside_other_lengths_naming_layer_and_sample():
    out = _concat_beside()
    label = L.data(name="y", type=D.dense_vector_sequence(H))
    cost = L.square_error_cost(input=L.fc(input=out, size=H, name="fc"), label=label)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    ones = lambda n: np.ones((n, H), "float32")  # noqa: E731
    good = (ones(2), ones(1), ones(3), ones(3))
    bad = (ones(1), ones(1), ones(3), ones(2))  # 1 + 1 rows beside 3
    before = params.get("_fc.w0")
    message = (
        r"pass 0, batch 1: .*addto 'out': input 1 'sc' has mismatched sequence lengths: "
        r"sample 1 has 3 steps, but input 0 'cat' has 2"
    )
    with pytest.raises(DataError, match=message):
        trainer.train(paddle.batch(lambda: iter([good, good, good, bad]), 2), num_passes=1)
    assert not np.array_equal(params.get("_fc.w0"), before)  # the good batch trained
