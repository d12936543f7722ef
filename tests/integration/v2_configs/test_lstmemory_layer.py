"""v2 config test_lstmemory_layer: a reversed lstmemory."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector_sequence(128))
    lstm = paddle.layer.lstmemory(
        input=din,
        reverse=True,
        gate_act=paddle.activation.Tanh(),
        act=paddle.activation.Tanh(),
        size=32,
    )
    return [lstm], []
