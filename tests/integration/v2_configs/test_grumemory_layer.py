"""v2 config test_grumemory_layer: a reversed grumemory."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector_sequence(120))
    gru = paddle.layer.grumemory(
        input=din,
        size=40,
        reverse=True,
        gate_act=paddle.activation.Tanh(),
        act=paddle.activation.Sigmoid(),
    )
    return [gru], []
