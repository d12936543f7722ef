"""v2 config test_recursive_topology: 32 nested addto layers, then two fc layers."""

import paddle_lite as paddle

L = paddle.layer


def network():
    din = L.data(name="data", type=paddle.data_type.dense_vector(100))
    enc = din
    for _ in range(32):
        enc = L.addto([enc, enc])
    hidden = L.fc(input=enc, size=32, act=paddle.activation.Relu())
    pred = L.fc(input=hidden, size=10, act=paddle.activation.Softmax())
    return [pred], []
