"""v2 config test_prelu_layer: prelu with each partial_sum / channel_shared setting."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="input", type=paddle.data_type.dense_vector(300), height=10, width=10)
    prelus = [
        L.prelu(input=data, num_channels=3),
        L.prelu(input=data, partial_sum=1, num_channels=3),
        L.prelu(input=data, partial_sum=5, num_channels=3),
        L.prelu(input=data, channel_shared=True, num_channels=3),
        L.prelu(input=data, channel_shared=False, num_channels=3),
    ]
    return prelus[-1:], prelus[:-1]
