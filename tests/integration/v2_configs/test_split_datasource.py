"""v2 config test_split_datasource: one data layer (the data sources are not ModelConfig)."""

import paddle_lite as paddle


def network():
    return [paddle.layer.data(name="a", type=paddle.data_type.dense_vector(10))], []
