"""Ids at or past the declared dim: accepted (with one warning) when every layer reading
them bounds them itself, as v2 did; refused where the declared dim is the bound.

v2's DataFeeder never checked ids against the declared dim; the layers reading them did
(a cross entropy indexes its input's columns). demo/sentiment/train_with_new_api.py
declares its 0/1 label ``integer_value(1)`` over a 2-wide softmax and trained in v2.
"""

import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.feeding.checks import id_limits
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite.errors import DataError, DataWarning, LayerConfigWarning

DT = paddle.data_type
X = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0], [2.0, 1.0, 0.0]])
LABELS = [0, 1, 1]
LR = 0.1


def _sentiment_net(label_dim=1, width=2):
    x = paddle.layer.data("x", DT.dense_vector(3))
    lbl = paddle.layer.data("label", DT.integer_value(label_dim))
    out = paddle.layer.fc(input=x, size=width, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=out, label=lbl)
    return cost, out


def _trainer(cost):
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=LR)
    return params, paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)


def _reader(labels, size=3):
    return paddle.batch(lambda: iter([(X[i % 3].tolist(), y) for i, y in enumerate(labels)]), size)


def _weights(params):
    (w,) = [n for n in params.names() if params.get_shape(n) == (3, 2)]
    (b,) = [n for n in params.names() if n != w]
    return w, b


def _reference(w, b, labels):
    """float64: the mean cost over the batch and the weights after one SGD step on the sum."""
    z = X @ w + b.reshape(-1)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.eye(2)[labels]
    cost = -np.log(p[np.arange(len(labels)), labels]).mean()
    grad = p - onehot  # of the summed cost, by the logits
    return cost, w - LR * X.T @ grad, b - LR * grad.sum(axis=0).reshape(b.shape)


def test_a_label_declared_narrower_than_its_cost_trains_as_in_v2():
    cost, _ = _sentiment_net()
    params, trainer = _trainer(cost)
    w_name, b_name = _weights(params)
    w0, b0 = (params.get(n).astype(np.float64) for n in (w_name, b_name))
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)

    with pytest.warns(DataWarning) as rec:
        trainer.train(_reader(LABELS), num_passes=1, event_handler=handler)
    want_cost, want_w, want_b = _reference(w0, b0, LABELS)
    np.testing.assert_allclose(costs, [want_cost], rtol=1e-5)
    np.testing.assert_allclose(params.get(w_name), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params.get(b_name), want_b, rtol=1e-5, atol=1e-6)
    assert len(rec) == 1
    message = str(rec[0].message)
    for part in ["data layer 'label' (field 1)", "id 1", "integer_value(1)", "below 2"]:
        assert part in message


def test_the_warning_is_issued_once_per_field():
    cost, _ = _sentiment_net()
    _, trainer = _trainer(cost)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        trainer.train(_reader(LABELS * 4, size=2), num_passes=2)
    assert [type(r.message) for r in rec] == [DataWarning]
    feeder = DataFeeder(
        [("y", DT.integer_value_sequence(1))], id_limits={"y": (2, "a cost takes ids below 2")}
    )
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for _ in range(3):  # steps of sequences share their field's warning
            assert feeder([([0, 1],), ([1],)])["y"].data[:, :2].tolist() == [[0, 1], [1, 0]]
    assert len(rec) == 1 and "received id 1" in str(rec[0].message)


def test_ids_past_what_the_cost_indexes_are_refused():
    cost, _ = _sentiment_net()
    _, trainer = _trainer(cost)
    with pytest.raises(DataError, match=r"'label' \(field 1, sample 2\): id 2 is outside \[0, 2\)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)
            trainer.train(_reader([0, 1, 2]), num_passes=1)
    with pytest.warns(LayerConfigWarning, match="integer_value.10. but the input has 2"):
        cost, _ = _sentiment_net(label_dim=10)  # a dim wider than the input: the input bounds
    _, trainer = _trainer(cost)
    with pytest.raises(DataError, match=r"id 5 is outside \[0, 2\)"):
        trainer.train(_reader([0, 5, 1]), num_passes=1)


@pytest.mark.parametrize("bad", [-1, -(2**40)])
def test_negative_ids_stay_refused(bad):
    cost, _ = _sentiment_net()
    _, trainer = _trainer(cost)
    with pytest.raises(DataError, match=rf"'label' .*sample 1\): id {bad} is outside"):
        trainer.train(_reader([0, bad, 0]), num_passes=1)


def test_an_embedding_bounds_its_ids_by_the_declared_dim():
    words = paddle.layer.data("words", DT.integer_value_sequence(5))
    emb = paddle.layer.embedding(input=words, size=4)
    feature = paddle.layer.pooling(input=emb, pooling_type=paddle.pooling.Sum())
    out = paddle.layer.fc(input=feature, size=7, act=paddle.activation.Softmax())
    # the words also feed a cost 7 wide: the embedding's 5 rows still bound them
    pick = paddle.layer.fc(input=emb, size=7, act=paddle.activation.Softmax())
    step_cost = paddle.layer.classification_cost(input=pick, label=words)
    label = paddle.layer.data("label", DT.integer_value(7))
    cost = paddle.layer.classification_cost(input=out, label=label)
    topology = paddle.topology.Topology([cost, step_cost])
    assert "words" not in id_limits(topology)
    assert id_limits(topology)["label"][0] == 7
    params = paddle.parameters.create([cost, step_cost])
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=LR)
    trainer = paddle.trainer.SGD(cost=[cost, step_cost], parameters=params, update_equation=opt)
    batches = paddle.batch(lambda: iter([([1, 2], 0), ([3, 5], 1)]), 2)
    with pytest.raises(DataError, match=r"'words' .*sample 1, step 1\): id 5 is outside \[0, 5\)"):
        trainer.train(batches, num_passes=1)


def test_limits_come_from_every_reader():
    cost, out = _sentiment_net()
    assert id_limits(paddle.topology.Topology(cost)) == {
        "label": (2, f"layer '{cost.name}' (multi_class_cross_entropy) takes ids below 2")
    }
    left = paddle.layer.data("left", DT.dense_vector(1))
    right = paddle.layer.data("right", DT.dense_vector(1))
    lbl = paddle.layer.data("label", DT.integer_value(1))
    rank = paddle.layer.rank_cost(left=left, right=right, label=lbl)
    assert id_limits(paddle.topology.Topology(rank))["label"][0] is None  # numbers
    softmax = paddle.layer.fc(input=left, size=3, act=paddle.activation.Softmax())
    both = paddle.layer.classification_cost(input=softmax, label=lbl)
    assert id_limits(paddle.topology.Topology([rank, both]))["label"][0] == 3  # the tighter


def test_tag_and_class_ids_are_bounded_by_the_layer_reading_them():
    feature = paddle.layer.data("feature", DT.dense_vector_sequence(4))
    tags = paddle.layer.data("tags", DT.integer_value_sequence(2))
    emissions = paddle.layer.fc(input=feature, size=3, act=paddle.activation.Linear())
    crf = paddle.layer.crf(input=emissions, label=tags, size=3)
    decoded = paddle.layer.crf_decoding(input=emissions, label=tags, size=3)
    assert id_limits(paddle.topology.Topology([crf, decoded]))["tags"][0] == 3
    x = paddle.layer.data("x", DT.dense_vector(4))
    word = paddle.layer.data("word", DT.integer_value(5))
    nce = paddle.layer.nce(input=x, label=word, num_classes=8)
    hsig = paddle.layer.hsigmoid(input=x, label=word, num_classes=6)
    assert id_limits(paddle.topology.Topology(nce))["word"][0] == 8
    assert id_limits(paddle.topology.Topology([nce, hsig]))["word"][0] == 6
    lookup = paddle.layer.embedding(input=word, size=2)  # a table of 5 rows
    assert "word" not in id_limits(paddle.topology.Topology([nce, lookup]))


def test_a_reader_narrower_than_the_declared_dim_bounds_the_ids():
    x = paddle.layer.data("x", DT.dense_vector(3))
    lbl = paddle.layer.data("label", DT.integer_value(10))
    lookup = paddle.layer.embedding(input=lbl, size=2)  # 10 rows
    with pytest.warns(LayerConfigWarning, match="but the input has 2"):
        prob = paddle.layer.fc(input=[x, lookup], size=2, act=paddle.activation.Softmax())
        cost = paddle.layer.classification_cost(input=prob, label=lbl)
    limit, why = id_limits(paddle.topology.Topology(cost))["label"]
    assert limit == 2 and why.startswith(f"layer '{cost.name}'")
    feeder = DataFeeder([("label", DT.integer_value(10))], id_limits={"label": (limit, why)})
    assert feeder([(1,), (0,)])["label"].tolist() == [1, 0]
    with pytest.raises(DataError, match=r"sample 1\): id 2 is outside \[0, 2\) \(layer"):
        feeder([(1,), (2,)])


def test_columns_take_the_same_limit():
    feeder = DataFeeder([("y", DT.integer_value(1))], id_limits={"y": (3, "a cost, below 3")})
    with pytest.warns(DataWarning, match=r"'y' \(field 0\) received id 2, .*integer_value\(1\)"):
        assert feeder({"y": np.array([0, 2, 1])})["y"].tolist() == [0, 2, 1]
    with pytest.raises(DataError, match=r"sample 1\): id 3 is outside \[0, 3\) \(a cost"):
        feeder({"y": np.array([0, 3], np.int32)})
    with pytest.raises(DataError, match=r"sample 0\): id -1 is outside"):
        feeder((np.array([-1, 0]),))
