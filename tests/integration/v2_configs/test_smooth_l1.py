"""v2 config test_smooth_l1: smooth_l1_cost."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(300))
    lbl = paddle.layer.data(name="label", type=paddle.data_type.dense_vector(300))
    return [paddle.layer.smooth_l1_cost(input=data, label=lbl)], []
