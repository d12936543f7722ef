"""The rows ``paddle.infer`` and ``event.gm.getLayerOutputs`` return for layers that change
the row count (``resize``, ``switch_order``): every row of the real samples, as v2's whole
output matrix, and none of the rows of the samples that pad a short batch."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import LayerConfigError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(7)


def _samples(n, width):
    return RNG.normal(size=(n, width)).astype(np.float32)


def _infer(layer, xs):
    params = paddle.parameters.create(layer)
    return paddle.infer(output_layer=layer, parameters=params, input=[(x,) for x in xs])


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_resize_keeps_every_row_of_the_samples(n):
    """v2's ResizeLayer: ``[n, 16]`` re-cut into ``[n*16/4, 4]``; 3 and 5 samples run in a
    batch padded to 4 and 8, whose extra rows are left out."""
    x = L.data(name="x", type=DT.dense_vector(16))
    xs = _samples(n, 16)
    got = _infer(L.resize(input=x, size=4), xs)
    np.testing.assert_array_equal(got, xs.astype(np.float64).reshape(-1, 4))


@pytest.mark.parametrize("n", [2, 6])
def test_resize_whose_rows_straddle_samples(n):
    """Width 6 cut into rows of 4: a row may hold the end of one sample and the start of
    the next; the real samples fill ``n*6/4`` whole rows."""
    x = L.data(name="x", type=DT.dense_vector(6))
    xs = _samples(n, 6)
    np.testing.assert_array_equal(_infer(L.resize(input=x, size=4), xs), xs.reshape(-1, 4))


def test_resize_of_a_batch_that_does_not_fill_whole_rows_is_refused_as_in_v2():
    """3 samples of width 6 hold 18 values, not a multiple of 4: v2's ResizeLayer refused
    the batch (padding it to 4 samples must not hide that)."""
    x = L.data(name="x", type=DT.dense_vector(6))
    with pytest.raises(LayerConfigError, match="multiple of size 4"):
        _infer(L.resize(input=x, size=4), _samples(3, 6))


def test_padded_short_batch_keeps_one_row_per_sample():
    """3 samples run padded to 4: an fc gives exactly 3 rows, the numpy values."""
    x = L.data(name="x", type=DT.dense_vector(5))
    out = L.fc(input=x, size=2, act=A.Linear())
    params = paddle.parameters.create(out)
    xs = _samples(3, 5)
    want = xs.astype(np.float64) @ params.get("___fc_layer_0__.w0") + params.get(
        "___fc_layer_0__.wbias"
    )
    got = paddle.infer(output_layer=out, parameters=params, input=[(x,) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_switch_order_rows_per_pixel_of_a_short_batch():
    """``reshape_axis=3``: one row of C values per pixel, ``n*H*W`` rows (3 samples padded
    to 4 keep their 3*H*W rows), in NHWC order."""
    x = L.data(name="x", type=DT.dense_vector(2 * 3 * 2), height=3, width=2)
    out = L.switch_order(input=x, reshape_axis=3)
    xs = _samples(3, 12)
    want = xs.reshape(3, 2, 3, 2).transpose(0, 2, 3, 1).reshape(-1, 2)
    np.testing.assert_array_equal(_infer(out, xs), want)


def _resize_trainer(width, size):
    x = L.data(name="x", type=DT.dense_vector(width))
    y = L.data(name="y", type=DT.dense_vector(width))
    cut = L.resize(input=x, size=size, name="cut")
    back = L.resize(input=L.fc(input=cut, size=size, bias_attr=False), size=width)
    cost = L.square_error_cost(input=back, label=y)
    params = paddle.parameters.create(cost)
    opt = paddle.optimizer.Momentum(momentum=0, learning_rate=0.0)
    return paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)


def _train_and_read(trainer, xs, batch_size):
    got = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            got.append(event.gm.getLayerOutputs("cut")["cut"]["value"])

    samples = [(x, np.zeros_like(x)) for x in xs]
    trainer.train(
        paddle.batch(lambda: iter(samples), batch_size), num_passes=1, event_handler=handler
    )
    return got


@pytest.mark.parametrize(("width", "size", "n", "batch_size"), [(16, 4, 5, 2), (6, 4, 6, 4)])
def test_get_layer_outputs_of_resize_for_full_and_short_batches(width, size, n, batch_size):
    """Every batch's resize rows, the short last one (padded to the batch size in the
    step) without the padding's rows."""
    xs = _samples(n, width)
    got = _train_and_read(_resize_trainer(width, size), xs, batch_size)
    starts = range(0, n, batch_size)
    assert len(got) == len(starts)
    for value, start in zip(got, starts, strict=True):
        np.testing.assert_array_equal(value, xs[start : start + batch_size].reshape(-1, size))


def test_get_layer_outputs_of_resize_rows_that_do_not_split():
    """A last batch of 1 sample of width 6 (padded to 4) holds 6 values, not whole rows of 4:
    v2 refused such a batch; reading the layer says so."""
    with pytest.raises(LayerConfigError, match="layer 'cut' \\(resize\\)"):
        _train_and_read(_resize_trainer(6, 4), _samples(5, 6), 4)


def _batch_norm_reference(rows, eps=1e-5):
    """v2's batch normalisation with the batch's own statistics (``use_global_stats=False``):
    the mean and the biased variance over ``rows`` (float64), scale 1 and bias 0."""
    rows = rows.astype(np.float64)
    return (rows - rows.mean(0)) / np.sqrt(rows.var(0) + eps)


@pytest.mark.parametrize("n", [3, 5, 6])
def test_batch_statistics_leave_out_the_rows_that_pad_a_short_batch(n):
    """``infer`` pads 3, 5 and 6 samples to 4, 8 and 8 rows: a batch norm computing its
    statistics over the batch gives what the real samples alone give (v2 ran them as the
    batch they are)."""
    x = L.data(name="x", type=DT.dense_vector(3))
    xs = _samples(n, 3) * [1.0, 4.0, 0.5] + [0.0, 2.0, -1.0]
    got = _infer(L.batch_norm(input=x, act=A.Linear(), use_global_stats=False), xs)
    np.testing.assert_allclose(got, _batch_norm_reference(xs), rtol=1e-5, atol=1e-5)


def test_image_batch_statistics_per_channel_of_a_short_batch():
    """An image batch norm's statistics per channel over samples and pixels, 3 samples
    padded to 4."""
    x = L.data(name="img", type=DT.dense_vector(2 * 3 * 3), height=3, width=3)
    xs = _samples(3, 18) * 3.0 + 1.0
    bn = L.batch_norm(input=x, act=A.Linear(), num_channels=2, use_global_stats=False)
    per_channel = xs.reshape(3, 2, 9).transpose(0, 2, 1).reshape(-1, 2)
    want = _batch_norm_reference(per_channel).reshape(3, 9, 2).transpose(0, 2, 1)
    np.testing.assert_allclose(_infer(bn, xs), want.reshape(3, 18), rtol=1e-5, atol=1e-5)


def test_sequence_batch_statistics_over_the_real_steps_of_a_short_batch():
    """Over sequences the statistics are over every step of the real samples: 3 sequences
    (padded to 4 samples) of 2, 4 and 1 steps."""
    x = L.data(name="s", type=DT.dense_vector_sequence(2))
    seqs = [_samples(k, 2) * 2.0 - 1.0 for k in (2, 4, 1)]
    params = paddle.parameters.create(
        bn := L.batch_norm(input=x, act=A.Linear(), use_global_stats=False)
    )
    got = paddle.infer(output_layer=bn, parameters=params, input=[(s,) for s in seqs])
    np.testing.assert_allclose(got, _batch_norm_reference(np.concatenate(seqs)), atol=1e-5)
