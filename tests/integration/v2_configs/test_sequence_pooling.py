"""v2 config test_sequence_pooling: max/avg/sum pooling at both levels, with stride."""

import paddle_lite as paddle

L = paddle.layer
POOL_TYPE = [paddle.pooling.Max, paddle.pooling.Avg, paddle.pooling.Sum]
AGG_LEVEL = [L.AggregateLevel.TO_SEQUENCE, L.AggregateLevel.TO_NO_SEQUENCE]


def network():
    din = L.data(name="dat_in", type=paddle.data_type.dense_vector_sub_sequence(100))
    opts = [
        L.pooling(input=din, agg_level=al, pooling_type=pt())
        for pt in POOL_TYPE
        for al in AGG_LEVEL
    ]
    for pt in POOL_TYPE:
        opts.append(
            L.pooling(
                input=din, agg_level=L.AggregateLevel.TO_NO_SEQUENCE, pooling_type=pt(), stride=5
            )
        )
    opts.append(L.pooling(input=din, pooling_type=paddle.pooling.Max(output_max_index=True)))
    return opts, []
