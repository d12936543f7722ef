"""A tiny SSD network trains with paddle.trainer.SGD: multibox_loss as the cost, the
detection_map evaluator over detection_output in the metrics, and infer returning v2's rows."""

import math

import numpy as np

import paddle_lite as paddle

L, DT = paddle.layer, paddle.data_type


def _network():
    img = L.data(name="img", type=DT.dense_vector(3 * 8 * 8), height=8, width=8)
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    conv = L.img_conv(input=img, filter_size=3, num_filters=4, stride=2, padding=1)
    norm = L.cross_channel_norm(
        input=conv, param_attr=paddle.attr.Param(initial_mean=20.0, initial_std=0.0)
    )
    linear = paddle.activation.Linear()
    loc = L.img_conv(input=norm, filter_size=3, num_filters=4 * 4, padding=1, act=linear)
    conf = L.img_conv(input=norm, filter_size=3, num_filters=4 * 3, padding=1, act=linear)
    prior = L.priorbox(
        input=conv,
        image=img,
        aspect_ratio=[2.0],
        variance=[0.1, 0.1, 0.2, 0.2],
        min_size=[3],
        max_size=[6],
    )
    cost = L.multibox_loss(input_loc=loc, input_conf=conf, priorbox=prior, label=gt, num_classes=3)
    det = L.detection_output(
        input_loc=loc, input_conf=conf, priorbox=prior, num_classes=3, keep_top_k=10
    )
    ev = paddle.evaluator.detection_map(input=det, label=gt, overlap_threshold=0.3)
    return cost, det, ev


def _reader():
    rng = np.random.default_rng(0)
    for i in range(8):
        lo = rng.uniform(0, 0.5, size=2)
        box = [1 + i % 2, lo[0], lo[1], lo[0] + 0.4, lo[1] + 0.4, 0]
        yield rng.normal(size=192).astype(np.float32), [box]


def test_ssd_trains_and_reports_map():
    cost, det, ev = _network()
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost=cost,
        parameters=params,
        update_equation=paddle.optimizer.Momentum(learning_rate=1e-3, momentum=0.9),
        extra_layers=[det],
    )
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append((event.cost, event.metrics[ev.name]))

    trainer.train(reader=paddle.batch(_reader, 4), num_passes=1, event_handler=handler)
    assert len(seen) == 2
    assert all(math.isfinite(c) and c > 0 and 0.0 <= m <= 100.0 for c, m in seen)
    rows = paddle.infer(output_layer=det, parameters=params, input=[(x,) for x, _ in _reader()])
    assert rows.shape[1] == 7 and 0 < rows.shape[0] <= 8 * 10
    assert set(np.unique(rows[:, 0])) <= set(range(8))
    assert np.all(np.diff(rows[:, 0]) >= 0)
