"""v2 config test_factorization_machine: second-order factorization machine."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(1024))
    return [L.factorization_machine(input=data, factor_size=10)], []
