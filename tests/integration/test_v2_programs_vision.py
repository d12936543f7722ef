"""The calls v2's vision, speech and recommendation programs (2017-18) make, each in a
small network of our own, checked against what v2 did with them.

Each test names the v2 program idiom it covers; the values expected are what v2's
trainer and gradient machine computed (see the docstrings for the v2 source facts).
"""

from __future__ import annotations

import io
import tarfile

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import DataError

L, DT, A, E = paddle.layer, paddle.data_type, paddle.activation, paddle.evaluator
RNG = np.random.default_rng(7)


def _data(n=12, dim=6, classes=3):
    x = RNG.normal(size=(n, dim)).astype(np.float32)
    y = RNG.integers(0, classes, n)
    return [(x[i], int(y[i])) for i in range(n)]


def _with_side_head(dim=6, classes=3):
    """A trunk with a main classifier and an auxiliary one (GoogLeNet's pattern)."""
    x = L.data(name="x", type=DT.dense_vector(dim))
    y = L.data(name="y", type=DT.integer_value(classes))
    trunk = L.fc(input=x, size=5, act=A.Tanh(), name="trunk")
    main = L.fc(input=trunk, size=classes, act=A.Softmax(), name="main")
    side = L.fc(input=trunk, size=classes, act=A.Softmax(), name="side")
    cost = L.classification_cost(input=main, label=y)
    side_cost = L.cross_entropy_cost(input=side, label=y, coeff=0.3)
    return cost, side_cost, side, y


def _train_one_batch(cost, params, batch, extra_layers=None):
    optimizer = paddle.optimizer.Momentum(momentum=0, learning_rate=0.1)
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=params, update_equation=optimizer, extra_layers=extra_layers
    )
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((event.cost, dict(event.metrics)))

    trainer.train(lambda: iter([batch]), num_passes=1, event_handler=handler)
    return trainer, seen[0]


def test_extra_layer_costs_train_with_parameters_the_trainer_creates():
    """googlenet in image_classification: ``parameters.create(cost)`` then
    ``SGD(cost, ..., extra_layers=[loss1, loss2])`` with auxiliary ``cross_entropy_cost
    (coeff=0.3)`` heads. v2's gradient machine initialised the heads' parameters itself
    and ran every cost layer's backward (the heads add their gradient to the trunk);
    the reported cost summed the output layers only; the pool kept its own names."""
    batch = _data()
    cost, side_cost, side, y = _with_side_head()
    E.classification_error(input=side, label=y)
    params = paddle.parameters.create(cost)
    assert not any(name.startswith("_side") for name in params.keys())
    trainer, (reported, metrics) = _train_one_batch(cost, params, batch, extra_layers=[side_cost])
    assert sorted(params.keys()) == sorted(paddle.parameters.create(cost).keys())
    assert any(key.startswith("classification_error_evaluator") for key in metrics)

    # the same step with both costs declared: same update, cost reported with the head's
    both = paddle.parameters.create([cost, side_cost])
    _, (reported_both, _) = _train_one_batch([cost, side_cost], both, batch)
    np.testing.assert_allclose(params.get("_trunk.w0"), both.get("_trunk.w0"), rtol=1e-5)
    np.testing.assert_allclose(params.get("_main.w0"), both.get("_main.w0"), rtol=1e-5)
    assert reported_both > reported + 1e-3

    # and without the head the trunk moves differently, with the same reported cost
    alone = paddle.parameters.create(cost)
    _, (reported_alone, _) = _train_one_batch(cost, alone, batch)
    assert np.abs(alone.get("_trunk.w0") - params.get("_trunk.w0")).max() > 1e-6
    np.testing.assert_allclose(reported_alone, reported, rtol=1e-6)

    out = io.BytesIO()
    trainer.save_parameter_to_tar(out)
    out.seek(0)
    with tarfile.open(fileobj=out) as tar:
        members = {m.name for m in tar.getmembers()}
    assert not any(m.startswith("_side") for m in members)


def _conv_same3(image, weight):
    """``image`` [C, H, W] with one 3×3 ``weight`` [3, 3], zero-padded by 1 (float64)."""
    padded = np.pad(image, 1)
    h, w = image.shape
    return sum(weight[i, j] * padded[i : i + h, j : j + w] for i in range(3) for j in range(3))


def test_img_separable_conv_is_a_depthwise_then_a_pointwise_convolution():
    """xception in image_classification: ``paddle.networks.img_separable_conv`` (v2's
    trainer_config_helpers/networks.py): a convolution with ``groups=num_channels`` and
    ``num_channels * depth_multiplier`` filters, then a 1×1 convolution, named
    ``<name>_depthwise_conv`` / ``<name>_pointwise_conv``."""
    c, h, w, mult, out = 3, 5, 4, 2, 4
    img = L.data(name="img", type=DT.dense_vector(c * h * w), height=h, width=w)
    sep = paddle.networks.img_separable_conv(
        input=img,
        num_channels=c,
        num_out_channels=out,
        filter_size=3,
        padding=1,
        depth_multiplier=mult,
        act=A.Linear(),
    )
    assert sep.name == "__separable_conv_0___pointwise_conv"
    params = paddle.parameters.create(sep)
    depth, point = "___separable_conv_0___depthwise_conv", "___separable_conv_0___pointwise_conv"
    assert sorted(params.keys()) == sorted(
        [f"{depth}.w0", f"{depth}.wbias", f"{point}.w0", f"{point}.wbias"]
    )
    for name in params.keys():
        params.set(name, RNG.normal(size=params.get_shape(name)).astype(np.float32))
    x = RNG.normal(size=(2, c * h * w)).astype(np.float32)
    got = paddle.infer(output_layer=sep, parameters=params, input=[(row,) for row in x])

    dw = params.get(f"{depth}.w0").astype(np.float64).reshape(c * mult, 3, 3)
    db = params.get(f"{depth}.wbias").astype(np.float64).ravel()
    pw = params.get(f"{point}.w0").astype(np.float64).reshape(out, c * mult)
    pb = params.get(f"{point}.wbias").astype(np.float64).ravel()
    for row, result in zip(x.astype(np.float64), got, strict=True):
        image = row.reshape(c, h, w)
        d = np.stack([_conv_same3(image[f // mult], dw[f]) + db[f] for f in range(c * mult)])
        want = np.einsum("of,fhw->ohw", pw, d) + pb[:, None, None]
        np.testing.assert_allclose(result, want.ravel(), rtol=1e-4, atol=1e-4)


def test_a_checkpoint_keeps_the_parameters_the_trainer_created(tmp_path):
    """The extra layers' parameters the trainer initialised itself (see above) are
    saved in a checkpoint and restored from it, though the user's set never lists them."""
    batch = _data()
    cost, side_cost, _, _ = _with_side_head()
    params = paddle.parameters.create(cost)
    trainer, _ = _train_one_batch(cost, params, batch, extra_layers=[side_cost])
    trainer.save_checkpoint(str(tmp_path / "ck"))
    saved = trainer._own.get("_side.w0")
    assert "_side.w0" not in params

    fresh = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0, learning_rate=0.1)
    other = paddle.trainer.SGD(
        cost=cost, parameters=fresh, update_equation=optimizer, extra_layers=[side_cost]
    )
    assert np.abs(other._own.get("_side.w0") - saved).max() > 1e-6  # trained since init
    assert other.load_checkpoint(str(tmp_path / "ck"))
    np.testing.assert_array_equal(other._own.get("_side.w0"), saved)
    np.testing.assert_array_equal(fresh.get("_trunk.w0"), params.get("_trunk.w0"))


def test_batch_norm_of_a_sequence_normalises_over_the_valid_steps():
    """DeepSpeech2 (models/deep_speech_2): ``batch_norm`` of an ``fc`` over a sequence,
    before a ``recurrent`` layer. v2's batch norm took the sequence's steps as its rows:
    mean and biased variance per feature over every step of the batch (in training,
    or in test with ``use_global_stats=False``), the moving statistics updated from them."""
    seq = L.data(name="frames", type=DT.dense_vector_sequence(3))
    bn = L.batch_norm(input=seq, act=A.Linear(), name="seq_bn", use_global_stats=False)
    rnn = L.recurrent(input=bn, act=A.Relu())
    cost = L.sum_cost(input=L.last_seq(input=rnn))
    assert bn.spec.seq_level == 1
    params = paddle.parameters.create(cost)
    gamma = np.array([1.5, 0.5, 2.0])
    params.set("_seq_bn.w0", gamma[None].astype(np.float32))
    steps = [RNG.normal(size=(n, 3)).astype(np.float32) for n in (4, 1, 3, 2)]  # no padding row
    rows = np.concatenate(steps).astype(np.float64)
    mean, var = rows.mean(axis=0), rows.var(axis=0)
    want = (rows - mean) / np.sqrt(var + 1e-5) * gamma

    got = paddle.infer(output_layer=bn, parameters=params, input=[(s,) for s in steps])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    trainer = paddle.trainer.SGD(
        cost=cost,
        parameters=params,
        update_equation=paddle.optimizer.Momentum(momentum=0, learning_rate=0.0),
    )
    trainer.train(lambda: iter([[(s,) for s in steps]]), num_passes=1)
    np.testing.assert_allclose(params.get("_seq_bn.w1")[0], 0.1 * mean, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(params.get("_seq_bn.w2")[0], 0.1 * var, rtol=1e-4, atol=1e-6)


def test_sub_seq_offsets_and_sizes_are_numbers_not_ids():
    """DeepSpeech2: ``sub_seq`` cuts the padding off each utterance with offsets and
    lengths fed through ``integer_value_sequence(1)`` data layers. v2's feeder never
    range-checked integers, so a length of 3 in a layer declared with range 1 was fine;
    a data layer used for lookups keeps its range check."""
    frames = L.data(name="frames", type=DT.dense_vector_sequence(2))
    offset = L.data(name="offset", type=DT.integer_value_sequence(1))
    length = L.data(name="length", type=DT.integer_value_sequence(1))
    part = L.sub_seq(input=frames, offsets=offset, sizes=length)
    params = paddle.parameters.create(part)
    steps = RNG.normal(size=(5, 2)).astype(np.float32)
    got = paddle.infer(output_layer=part, parameters=params, input=[(steps, [1], [3])])
    np.testing.assert_allclose(got, steps[1:4], rtol=1e-6)

    word = L.data(name="word", type=DT.integer_value_sequence(1))
    emb = L.embedding(input=word, size=2)
    with pytest.raises(DataError, match="outside"):
        paddle.infer(
            output_layer=emb,
            parameters=paddle.parameters.create(emb),
            input=[([3],)],
        )
