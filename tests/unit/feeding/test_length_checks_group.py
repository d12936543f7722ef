"""A recurrent group whose inputs differ in length is refused (v2's checkInputConsistency),
in infer, train and test, for plain and nested groups; equal lengths still run."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite import errors as paddle_lite_errors
from paddle_lite._src.feeding.lengths import Source, length_checks
from paddle_lite._src.topology import Topology
from paddle_lite.errors import DataError

L, D = paddle.layer, paddle.data_type
H = 2


def _pair_group(through_fc=False):
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    second = L.fc(input=b, size=H, name="fc_b") if through_fc else b
    out = L.recurrent_group(step=lambda p, q: L.addto(input=[p, q]), input=[a, second], name="pair")
    return out, paddle.parameters.create(out)


def _infer(out, params, samples):
    return paddle.infer(output_layer=out, parameters=params, input=samples)


def test_equal_lengths_give_the_sum_of_the_inputs_at_every_step():
    out, params = _pair_group()
    rng = np.random.default_rng(0)
    samples = [
        (rng.normal(size=(n, H)).astype("float32"), rng.normal(size=(n, H)).astype("float32"))
        for n in (3, 1, 4)
    ]
    got = _infer(out, params, samples)
    want = np.concatenate([np.float64(x) + np.float64(y) for x, y in samples])
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize(("la", "lb"), [(3, 2), (3, 4), (4, 3)])
def test_unequal_lengths_raise_a_data_error_naming_the_group_inputs_and_lengths(la, lb):
    out, params = _pair_group()
    sample = (np.ones((la, H), "float32"), np.ones((lb, H), "float32"))
    with pytest.raises(DataError) as err:
        _infer(out, params, [sample])
    text = str(err.value)
    assert "recurrent_group 'pair'" in text
    assert "input 1 'b'" in text and "input 0 'a'" in text
    assert f"sample 0 has {lb}, but input 0 'a' (data layer 'a') has {la}" in text


def test_a_mismatch_in_a_later_sample_names_that_sample():
    out, params = _pair_group()
    ones = lambda n: np.ones((n, H), "float32")  # noqa: E731
    with pytest.raises(
        DataError, match=r"sample 2 has 1, but input 0 'a' \(data layer 'a'\) has 2;"
    ):
        _infer(out, params, [(ones(3), ones(3)), (ones(1), ones(1)), (ones(2), ones(1))])


def test_an_input_through_an_fc_is_traced_to_its_data_layer():
    out, params = _pair_group(through_fc=True)
    sample = (np.ones((3, H), "float32"), np.ones((2, H), "float32"))
    with pytest.raises(DataError, match="input 1 'fc_b' \\(data layer 'b'\\)"):
        _infer(out, params, [sample])


def _trainer_and_reader(lengths):
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    y = L.data(name="y", type=D.dense_vector(H))
    rg = L.recurrent_group(step=lambda p, q: L.fc(input=[p, q], size=H), input=[a, b], name="pair")
    cost = L.square_error_cost(input=L.last_seq(input=rg), label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    samples = [
        (np.ones((la, H), "float32"), np.ones((lb, H), "float32"), np.zeros(H, "float32"))
        for la, lb in lengths
    ]
    return trainer, paddle.batch(lambda: iter(samples), 2)


def test_training_and_testing_refuse_unequal_lengths_naming_the_batch():
    trainer, reader = _trainer_and_reader([(2, 2), (3, 3), (2, 2), (3, 1)])
    with pytest.raises(DataError, match=r"batch 1: recurrent_group 'pair': input 1 'b'"):
        trainer.train(reader=reader, num_passes=1)
    with pytest.raises(DataError, match=r"test\(\), batch 1: recurrent_group 'pair'"):
        trainer.test(reader=reader)


def test_training_with_equal_lengths_runs():
    trainer, reader = _trainer_and_reader([(2, 2), (3, 3), (1, 1)])
    costs = []
    trainer.train(
        reader=reader,
        num_passes=1,
        event_handler=lambda e: (
            costs.append(e.cost) if isinstance(e, paddle.event.EndIteration) else None
        ),
    )
    assert len(costs) == 2 and all(np.isfinite(costs))


def test_inputs_are_traced_through_embeddings_lstms_and_expand():
    words = L.data(name="words", type=D.integer_value_sequence(5))
    v = L.data(name="v", type=D.dense_vector(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    emb = L.embedding(input=words, size=4 * H)
    lstm = L.lstmemory(input=emb, name="lstm")
    spread = L.expand(input=v, expand_as=b, name="spread")
    out = L.recurrent_group(
        step=lambda p, q: L.fc(input=[p, q], size=H), input=[lstm, spread], name="pair"
    )
    params = paddle.parameters.create(out)
    (check,) = length_checks(Topology(out).nodes)
    assert [s for _, _, s in check.inputs] == [Source("words", 0), Source("b", 0)]
    ones = np.ones((2, H), "float32")
    assert _infer(out, params, [([1, 2], ones[0], ones)]).shape == (2, H)
    with pytest.raises(DataError, match=r"input 1 'spread' \(data layer 'b'\).* has 3"):
        _infer(out, params, [([1, 2, 3], ones[0], ones)])


# nested groups ---------------------------------------------------------------------------
def _nested_groups():
    a = L.data(name="a", type=D.dense_vector_sub_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sub_sequence(H))

    def outer(p, q):
        inner = L.recurrent_group(
            step=lambda x, y: L.addto(input=[x, y]), input=[p, q], name="inner"
        )
        return L.last_seq(input=inner)

    out = L.recurrent_group(step=outer, input=[a, b], name="outer")
    return out, paddle.parameters.create(out)


def _nested(sub_lengths, value=1.0):
    return [np.full((n, H), value, "float32") for n in sub_lengths]


def test_nested_groups_with_equal_lengths_sum_the_last_steps():
    out, params = _nested_groups()
    got = _infer(out, params, [(_nested([2, 3], 1.0), _nested([2, 3], 2.0))])
    np.testing.assert_allclose(got, np.full((2, H), 3.0))


def test_nested_inputs_with_another_number_of_sub_sequences_name_the_outer_group():
    out, params = _nested_groups()
    with pytest.raises(DataError, match=r"'outer': input 1 'b' .* sample 0 has 1, .* has 2"):
        _infer(out, params, [(_nested([2, 3]), _nested([2]))])


def test_sub_sequences_of_other_lengths_name_the_inner_group():
    out, params = _nested_groups()
    with pytest.raises(DataError, match=r"'inner@outer'.*sub-sequence lengths.* \[2, 2\]"):
        _infer(out, params, [(_nested([2, 3]), _nested([2, 2]))])


# what is traced ----------------------------------------------------------------------------
def test_inputs_whose_lengths_come_from_the_device_are_not_checked_on_the_host():
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    joined = L.seq_concat(a=a, b=a)
    out = L.recurrent_group(step=lambda p, q: L.addto(input=[p, q]), input=[joined, b])
    (check,) = length_checks(Topology(out).nodes) or (None,)
    assert check is None  # only one input traces to a data layer
    traced = length_checks(Topology(_pair_group(through_fc=True)[0]).nodes)
    assert [s for _, _, s in traced[0].inputs] == [Source("a", 0), Source("b", 0)]


@pytest.mark.parametrize("joined_first", [False, True])
def test_inputs_padded_to_other_numbers_of_steps_still_run(joined_first):
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    c = L.data(name="c", type=D.dense_vector_sequence(H))
    joined = L.seq_concat(a=a, b=c)  # lengths 3 + 1 padded to 4 + 1 steps, on the device
    out = L.recurrent_group(
        step=lambda p, q: L.addto(input=[p, q]), input=[joined, b] if joined_first else [b, joined]
    )
    params = paddle.parameters.create(out)
    x = np.arange(3 * H, dtype="float32").reshape(3, H)
    z = np.full((1, H), 7.0, "float32")
    y = np.ones((4, H), "float32")  # padded to 4 steps
    got = _infer(out, params, [(x, y, z)])
    np.testing.assert_allclose(got, np.float64(y) + np.concatenate([x, z]))


# in-links whose lengths come from the device -------------------------------------------
def _device_group():
    a = L.data(name="a", type=D.dense_vector_sequence(H))
    b = L.data(name="b", type=D.dense_vector_sequence(H))
    c = L.data(name="c", type=D.dense_vector_sequence(H))
    y = L.data(name="y", type=D.dense_vector(H))
    joined = L.seq_concat(a=a, b=c, name="joined")
    rg = L.recurrent_group(
        step=lambda p, q: L.fc(input=[p, q], size=H), input=[b, joined], name="pair"
    )
    cost = L.square_error_cost(input=L.last_seq(input=rg), label=y)
    return rg, cost, paddle.parameters.create(cost)


def _device_samples(lengths):
    return [
        (np.ones((la, H), "f4"), np.ones((lb, H), "f4"), np.ones((lc, H), "f4"), np.zeros(H, "f4"))
        for la, lb, lc in lengths
    ]


def test_device_lengths_that_differ_give_nan_rows_in_infer():
    rg, _, params = _device_group()
    samples = [s[:3] for s in _device_samples([(2, 3, 1), (2, 2, 1), (1, 2, 1)])]
    got = paddle.infer(output_layer=rg, parameters=params, input=samples)
    assert got.shape == (7, H)
    assert np.isfinite(got[:3]).all() and np.isnan(got[3:5]).all() and np.isfinite(got[5:]).all()


def test_device_lengths_that_differ_stop_training_with_a_data_error():
    _, cost, params = _device_group()
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    samples = _device_samples([(2, 3, 1), (1, 2, 1), (2, 2, 1), (2, 3, 1)])
    reader = paddle.batch(lambda: iter(samples), 2)
    with pytest.raises(
        DataError,
        match=r"train\(\) pass 0, batch 1: recurrent_group 'pair': input 1 'joined' has "
        r"mismatched sequence lengths: sample 0 has 3 steps, but input 0 'b' has 2",
    ):
        trainer.train(reader=reader, num_passes=1)


def test_a_non_finite_step_through_a_group_names_the_group():
    _, cost, params = _device_group()
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01))
    samples = _device_samples([(2, 3, 1), (1, 2, 1)])
    samples[1] = (samples[1][0], np.full((2, H), np.nan, "f4"), *samples[1][2:])
    with pytest.raises(
        paddle_lite_errors.NonFiniteError,
        match=r"the first layer whose output is not finite is 'pair' \(recurrent_layer_group\)",
    ):
        trainer.train(reader=paddle.batch(lambda: iter(samples), 2), num_passes=1)
