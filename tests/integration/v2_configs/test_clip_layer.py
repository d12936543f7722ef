"""v2 config test_clip_layer: clip to [-10, 10]."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(300))
    return [paddle.layer.clip(input=data, min=-10, max=10)], []
