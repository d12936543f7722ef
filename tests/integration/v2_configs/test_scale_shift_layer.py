"""v2 config test_scale_shift_layer: scale_shift with and without a bias."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(100))
    scale = L.scale_shift(input=data, bias_attr=False)
    scale_shift = L.scale_shift(input=data)
    return [scale, scale_shift], []
