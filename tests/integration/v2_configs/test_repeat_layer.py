"""v2 config test_repeat_layer: repeat as rows and as columns."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector(30))
    outputs = [
        paddle.layer.repeat(input=din, num_repeats=10, as_row_vector=True),
        paddle.layer.repeat(
            input=din, num_repeats=10, act=paddle.activation.Tanh(), as_row_vector=False
        ),
    ]
    return outputs, []
