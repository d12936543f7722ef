"""v2 config test_multiplex_layer: multiplex of three inputs by an index."""

import paddle_lite as paddle

L = paddle.layer


def network():
    index = L.data(name="index", type=paddle.data_type.integer_value(1))
    dins = [L.data(name=f"data{i}", type=paddle.data_type.dense_vector(30)) for i in (1, 2, 3)]
    return [L.multiplex([index, *dins])], []
