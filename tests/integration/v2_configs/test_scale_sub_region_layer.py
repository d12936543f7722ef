"""v2 config test_scale_sub_region_layer: scale a sub-region of an image."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(2016), height=48, width=42)
    indices = L.data(name="indices", type=paddle.data_type.dense_vector(6))
    return [L.scale_sub_region(input=data, indices=indices, value=0.0)], []
