"""v2 config test_row_conv: row convolution (lookahead) over a sequence."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(name="data", type=paddle.data_type.dense_vector_sequence(2560))
    row_conv = paddle.layer.row_conv(input=data, context_len=19, act=paddle.activation.Relu())
    return [row_conv], []
