"""v2 config test_pad: conv, pool, pad."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(2016), height=48, width=42)
    conv = L.img_conv(
        input=data,
        filter_size=3,
        num_channels=1,
        num_filters=16,
        padding=1,
        act=paddle.activation.Linear(),
        bias_attr=True,
    )
    pool = L.img_pool(input=conv, pool_size=2, stride=2, pool_type=paddle.pooling.Max())
    pad = L.pad(input=pool, pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1])
    return [pad], []
