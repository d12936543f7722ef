"""v2 config test_seq_slice_layer: seq_slice with starts and ends, starts only, ends only."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def network():
    input_seq = L.data("word", type=paddle.data_type.dense_vector_sequence(128))
    starts = L.data("starts", type=dense(5))
    ends = L.data("ends", type=dense(5))
    outputs = [
        L.seq_slice(input=input_seq, starts=starts, ends=ends),
        L.seq_slice(input=input_seq, starts=starts, ends=None),
        L.seq_slice(input=input_seq, starts=None, ends=ends),
    ]
    return outputs, []
