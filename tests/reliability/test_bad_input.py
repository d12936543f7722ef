"""Bad samples, batches and readers give typed errors naming the data layer, field, sample,
pass and batch; never a tracer or XLA message.
"""

import functools
import traceback

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.checks import nonempty_sequences
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.training import loop as loop_mod
from paddle_lite._src.training.chunks import device_batches
from paddle_lite.errors import DataError, DataWarning, PaddleLiteError, ReaderError, ReaderTypeError

DT = paddle.data_type
TYPES = [
    ("x", DT.dense_vector(3)),
    ("label", DT.integer_value(4)),
    ("words", DT.integer_value_sequence(10)),
    ("bag", DT.sparse_binary_vector(6)),
    ("para", DT.integer_value_sub_sequence(10)),
]
GOOD = ([0.1, 0.2, 0.3], 1, [1, 2, 3], [0, 5], [[1, 2], [3]])


def _with(field, value):
    sample = list(GOOD)
    sample[field] = value
    return tuple(sample)


# (what is wrong, the bad sample placed at index 1 of a batch, the message expected)
CASES = [
    ("a sample with 2 of 5 fields", GOOD[:2], r"reads field 2, but samples have \[2\] fields"),
    ("a sample that is an int", 7, r"sample 1, of type int, has 0"),
    ("a dense vector of 2 values for dim 3", _with(0, [1, 2]), r"'x' \(field 0, sample 1\)"),
    ("a dense vector of strings", _with(0, ["a", "b", "c"]), r"'x' .*sample 1\): .*non-numeric"),
    ("a label of 4.5", _with(1, 4.5), r"'label' \(field 1, sample 1\).*expected ints"),
    ("a label out of range", _with(1, 4), r"'label' .*sample 1\): id 4 is outside \[0, 4\)"),
    (
        "a label given as a pair",
        _with(1, [1, 2]),
        r"'label' .*sample 1\): received \[1, 2\] \(list\); expected one int per",
    ),
    ("a string label", _with(1, "cat"), r"'label' .*sample 1\).*expected ints"),
    ("a word id out of range", _with(2, [1, 99]), r"'words' .*sample 1, step 1\): id 99"),
    ("a sequence given as an int", _with(2, 5), r"'words' .*sample 1\): expected a sequence"),
    ("a sparse id out of range", _with(3, [2, 6]), r"'bag' .*sample 1, entry 1\): id 6"),
    ("a nested sequence of ints", _with(4, [1, 2]), r"'para' .*sample 1\).*sub-sequence 0 is a"),
    ("a nested word id out of range", _with(4, [[1], [10]]), r"'para' .*sample 1, item 1\)"),
    ("None for a dense vector", _with(0, None), r"'x' \(field 0, sample 1\): received None;"),
    (
        "None among a dense vector's values",
        _with(0, [0.1, None, 0.3]),
        r"'x' \(field 0, sample 1\): received None among the values \[0.1, None, 0.3\]",
    ),
    (
        "a dense sample of 4 dimensions",
        _with(0, np.zeros((1, 1, 1, 3))),
        r"'x' \(field 0, sample 1\): received a sample of shape \(1, 1, 1, 3\)",
    ),
]


@pytest.mark.parametrize("what, sample, match", CASES, ids=[c[0] for c in CASES])
def test_feeder_names_layer_field_and_sample(what, sample, match, fault):
    fault.case("bad samples", what, "DataError naming the data layer, field and sample")
    with pytest.raises(DataError, match=match) as info:
        DataFeeder(TYPES)([GOOD, sample, GOOD])
    fault.observed(info.value)


def test_a_dense_sample_of_nested_lists_is_flattened_with_a_warning(fault):
    fault.case(
        "bad samples",
        "dense_vector(4) given [[1, 2], [3, 4]]",
        "flattened, as v2's DataFeeder did, with a DataWarning naming the data layer",
    )
    with pytest.warns(DataWarning, match=r"'x' \(field 0\).*nested lists, shape \(2, 2\)") as rec:
        out = DataFeeder([("x", DT.dense_vector(4))])([([[1, 2], [3, 4]],)])["x"]
    np.testing.assert_array_equal(out, [[1, 2, 3, 4]])
    image = np.arange(4.0).reshape(2, 2)  # an array, as an image comes: flattened silently
    np.testing.assert_array_equal(
        DataFeeder([("x", DT.dense_vector(4))])([(image,)])["x"], [image.ravel()]
    )
    fault.observed(rec[0].message)


def test_feeder_still_converts_the_good_batch():
    feeds = DataFeeder(TYPES)([GOOD, GOOD])
    np.testing.assert_allclose(feeds["x"], [[0.1, 0.2, 0.3]] * 2)
    assert feeds["label"].tolist() == [1, 1] and feeds["words"].lengths.tolist() == [3, 3]
    assert feeds["para"].sub_lengths[:, :2].tolist() == [[2, 1], [2, 1]]


def test_one_element_label_arrays_are_ids():
    out = DataFeeder([("label", DT.integer_value(4))])([(np.array([3]),), (np.array([1]),)])
    assert out["label"].tolist() == [3, 1] and out["label"].dtype == np.int32


# a tiny network ---------------------------------------------------------------------
def _net(pool="last"):
    words = paddle.layer.data(name="words", type=DT.integer_value_sequence(10))
    label = paddle.layer.data(name="label", type=DT.integer_value(2))
    emb = paddle.layer.embedding(input=words, size=4)
    if pool == "last":
        feature = paddle.layer.last_seq(input=emb)
    else:
        feature = paddle.layer.pooling(input=emb, pooling_type=paddle.pooling.Avg())
    prob = paddle.layer.fc(input=feature, size=2, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=prob, label=label)
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=0.1)
    return cost, paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)


SAMPLES = [([1, 2, 3], 0), ([4, 5], 1), ([6], 0), ([7, 8, 9, 1], 1)]


def _batches(samples, size=2):
    return paddle.batch(lambda: iter(samples), size)


def test_empty_sequences_are_refused_only_where_a_step_is_needed(fault):
    cost, trainer = _net("last")
    assert nonempty_sequences(paddle.topology.Topology(cost)) == {"words"}
    fault.case("bad samples", "an empty sequence feeding last_seq", "DataError naming the sample")
    with pytest.raises(DataError, match=r"train\(\) pass 0, batch 1: .*'words' .*sample 1\)") as e:
        trainer.train(_batches([*SAMPLES[:3], ([], 1)]), num_passes=1)
    assert "needs at least one step" in str(e.value)
    fault.observed(e.value)
    cost, trainer = _net("average")
    assert nonempty_sequences(paddle.topology.Topology(cost)) == frozenset()
    trainer.train(_batches([*SAMPLES[:3], ([], 1)]), num_passes=1)  # average pooling: allowed


@pytest.mark.parametrize("background", [False, True], ids=["inline", "thread"])
def test_a_failing_reader_keeps_its_traceback_as_the_cause(background, monkeypatch, fault):
    monkeypatch.setattr(
        loop_mod, "device_batches", functools.partial(device_batches, background=background)
    )
    _, trainer = _net()

    def reader():
        yield SAMPLES[:2]
        yield SAMPLES[2:]
        raise OSError("disk gone")

    how = "on the prefetch thread" if background else "inline"
    fault.case("readers", f"a reader raising OSError after 2 batches ({how})", "ReaderError")
    with pytest.raises(ReaderError, match=r"train\(\) pass 0: the reader raised OSError") as info:
        trainer.train(reader, num_passes=1)
    assert "batch 2" in str(info.value)
    cause = info.value.__cause__
    assert isinstance(cause, OSError) and str(cause) == "disk gone"
    frames = [f.name for f in traceback.extract_tb(cause.__traceback__)]
    assert "reader" in frames  # the reader's own frame is kept
    fault.observed(info.value)


def test_readers_that_return_non_iterables(fault):
    _, trainer = _net()
    fault.case("readers", "a batch reader returning None", "ReaderTypeError")
    with pytest.raises(ReaderTypeError, match=r"reader\(\) returned NoneType None") as info:
        trainer.train(lambda: None, num_passes=1)
    fault.observed(info.value)
    fault.case("readers", "paddle.batch over a reader returning 42", "ReaderTypeError")
    with pytest.raises(ReaderTypeError, match=r"batch: reader\(\) returned int 42") as info:
        trainer.train(paddle.batch(lambda: 42, 2), num_passes=1)
    fault.observed(info.value)


@pytest.mark.parametrize(
    "what, batch, match",
    [
        ("an empty batch", [], r"batch 1: the batch is empty"),
        ("a batch that is a generator", (s for s in SAMPLES), r"batch 1: received generator"),
        ("a batch that is None", None, r"batch 1: received NoneType"),
    ],
    ids=["empty", "generator", "none"],
)
def test_malformed_batches(what, batch, match, fault):
    _, trainer = _net()
    fault.case("bad batches", what, "DataError naming the pass and batch")
    with pytest.raises(DataError, match=r"train\(\) pass 0, " + match) as info:
        trainer.train(lambda: iter([SAMPLES[:2], batch]), num_passes=1)
    fault.observed(info.value)


def test_a_reader_that_yields_nothing(fault):
    cost, trainer = _net()
    fault.case("readers", "a reader yielding no batch, in train()", "DataWarning, training goes on")
    with pytest.warns(DataWarning, match=r"train\(\) pass 1: the reader yielded no batch") as rec:
        passes = [[SAMPLES[:2]], []]
        trainer.train(lambda: iter(passes.pop(0)), num_passes=2)
    fault.observed(f"{rec[0].category.__name__}: {rec[0].message}")
    fault.case("readers", "a reader yielding no batch, in test()", "DataError")
    with pytest.raises(DataError, match=r"test\(\): the reader yielded no batch") as info:
        trainer.test(lambda: iter([]))
    fault.observed(info.value)


def test_bad_samples_in_test_and_infer_name_the_batch(fault):
    cost, trainer = _net()
    fault.case("bad samples", "a label out of range in test()'s third batch", "DataError")
    bad = [*SAMPLES, *SAMPLES[:1], ([1, 2], 5)]
    with pytest.raises(DataError, match=r"test\(\), batch 2: data layer 'label'") as info:
        trainer.test(_batches(bad))
    fault.observed(info.value)
    prob = cost.inputs[0]
    with pytest.raises(DataError, match=r"'words' \(field 0, sample 0, step 0\): id -1"):
        paddle.infer(output_layer=prob, parameters=trainer._parameters, input=[([-1],)])


def test_errors_never_leak_raw_tracer_messages():
    _, trainer = _net()
    bad_inputs = [
        [([1, 2], 0), ([3], "x")],
        [([1, 2], 0), ([3.5], 1)],
        [([1, 2], 0), ([[1, 2]], 1)],
        [([1, 2], 0, 9), ((), 1)],
    ]
    for batch in bad_inputs:
        with pytest.raises(PaddleLiteError) as info:
            trainer.train(lambda b=batch: iter([b]), num_passes=1)
        text = str(info.value)
        assert "Traced" not in text and "XlaRuntimeError" not in text and "pass 0" in text


def test_ids_past_the_declared_dim_are_checked_where_they_index(fault):
    """v2 checked ids only in the layers reading them: a 0/1 label declared integer_value(1)
    under a 2-wide softmax (v2's demo/sentiment/train_with_new_api.py) trained."""
    x = paddle.layer.data("x", DT.dense_vector(3))
    label = paddle.layer.data("label", DT.integer_value(1))
    prob = paddle.layer.fc(input=x, size=2, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=prob, label=label)
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=0.1)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    fault.case(
        "bad samples",
        "label 1 for integer_value(1), read only by a 2-wide classification_cost",
        "trains, as v2 did, with one DataWarning naming the data layer, the id and the dim",
    )
    samples = [([0.0, 1.0, 2.0], 0), ([1.0, 0.0, 2.0], 1)]
    with pytest.warns(DataWarning, match=r"'label' \(field 1\) received id 1") as rec:
        trainer.train(_batches(samples * 2), num_passes=2)
    assert len(rec) == 1
    fault.observed(f"{rec[0].category.__name__}: {rec[0].message}")
    fault.case("bad samples", "label 2 for that 2-wide cost", "DataError naming the cost")
    with pytest.raises(DataError, match=r"id 2 is outside \[0, 2\) \(layer '__cost") as info:
        trainer.train(_batches([samples[0], ([1.0, 0.0, 2.0], 2)]), num_passes=1)
    fault.observed(info.value)
