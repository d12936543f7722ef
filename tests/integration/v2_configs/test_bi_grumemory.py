"""v2 config test_bi_grumemory: bidirectional_gru returning the sequence."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector_sequence(120))
    return [paddle.networks.bidirectional_gru(input=din, size=40, return_seq=True)], []
