"""v2 config last_first_seq: first_seq and last_seq at both levels, with stride."""

import paddle_lite as paddle

L = paddle.layer
AGG_LEVEL = [L.AggregateLevel.TO_SEQUENCE, L.AggregateLevel.TO_NO_SEQUENCE]


def network():
    din = L.data(name="data", type=paddle.data_type.dense_vector_sub_sequence(30))
    ops = [L.first_seq, L.last_seq]
    opts = [op(input=din, agg_level=al) for op in ops for al in AGG_LEVEL]
    opts += [op(input=din, agg_level=L.AggregateLevel.TO_NO_SEQUENCE, stride=5) for op in ops]
    return opts, []
