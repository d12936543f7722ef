"""v2 config unused_layers: sampling_id."""

import paddle_lite as paddle


def network():
    probs = paddle.layer.data(name="probs", type=paddle.data_type.dense_vector(100))
    return [paddle.layer.sampling_id(input=probs)], []
