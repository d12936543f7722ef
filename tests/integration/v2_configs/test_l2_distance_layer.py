"""v2 config test_l2_distance_layer: Euclidean distance of two vectors."""

import paddle_lite as paddle

L = paddle.layer


def network():
    x = L.data(name="x", type=paddle.data_type.dense_vector(128))
    y = L.data(name="y", type=paddle.data_type.dense_vector(128))
    return [L.l2_distance(x=x, y=y)], []
