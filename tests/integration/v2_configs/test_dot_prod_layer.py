"""v2 config test_dot_prod_layer: dot product of two vectors."""

import paddle_lite as paddle

L = paddle.layer


def network():
    vec1 = L.data(name="vector1", type=paddle.data_type.dense_vector(10))
    vec2 = L.data(name="vector2", type=paddle.data_type.dense_vector(10))
    return [L.dot_prod(input1=vec1, input2=vec2)], []
