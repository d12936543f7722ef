"""v2 config test_seq_concat_reshape: seq_concat and seq_reshape."""

import paddle_lite as paddle

L = paddle.layer


def network():
    din1 = L.data(name="data1", type=paddle.data_type.dense_vector_sequence(30))
    din2 = L.data(name="data2", type=paddle.data_type.dense_vector_sequence(30))
    opts = [L.seq_concat(a=din1, b=din2), L.seq_reshape(input=din1, reshape_size=5)]
    return opts, []
