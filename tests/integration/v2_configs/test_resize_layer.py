"""v2 config test_resize_layer: resize rows to a new width."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(300))
    return [paddle.layer.resize(input=data, size=150)], []
