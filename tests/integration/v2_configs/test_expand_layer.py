"""v2 config test_expand_layer: expand from a sequence and from a non-sequence."""

import paddle_lite as paddle

L = paddle.layer


def network():
    din = L.data(name="data", type=paddle.data_type.dense_vector_sequence(30))
    data_seq = L.data(name="data_seq", type=paddle.data_type.dense_vector_sub_sequence(30))
    outputs = [
        L.expand(input=din, expand_as=data_seq, expand_level=L.ExpandLevel.FROM_SEQUENCE),
        L.expand(input=din, expand_as=data_seq, expand_level=L.ExpandLevel.FROM_NO_SEQUENCE),
    ]
    return outputs, []
