"""v2 config layer_activations: one fc per activation."""

import paddle_lite as paddle

A = paddle.activation
ACTS = [
    A.Tanh, A.Sigmoid, A.Softmax, A.Identity, A.Linear, A.Exp, A.Relu, A.BRelu,
    A.SoftRelu, A.STanh, A.Abs, A.Square,
]  # fmt: skip


def network():
    din = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(100))
    outputs = [
        paddle.layer.fc(input=din, size=100, act=act(), name=f"layer_{i}")
        for i, act in enumerate(ACTS)
    ]
    return outputs, []
