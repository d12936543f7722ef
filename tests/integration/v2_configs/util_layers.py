"""v2 config util_layers: addto and concat of layers and of projections."""

import paddle_lite as paddle

L = paddle.layer


def network():
    a = L.data(name="a", type=paddle.data_type.dense_vector(10))
    b = L.data(name="b", type=paddle.data_type.dense_vector(10))
    result = L.addto(input=[a, b])
    concat1 = L.concat(input=[a, b])
    concat2 = L.concat(input=[L.identity_projection(input=a), L.identity_projection(input=b)])
    return [result, concat1, concat2], []
