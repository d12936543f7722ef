"""v2 config test_maxout: conv, maxout, pool, conv, maxout, block_expand, fc."""

import paddle_lite as paddle

L = paddle.layer


def _conv(input, num_channels, num_filters):
    return L.img_conv(
        input=input,
        filter_size=3,
        num_channels=num_channels,
        num_filters=num_filters,
        padding=1,
        act=paddle.activation.Linear(),
        bias_attr=True,
    )


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(2304), height=48, width=48)
    conv = _conv(data, 1, 16)
    maxout = L.maxout(input=conv, num_channels=16, groups=2)
    pool = L.img_pool(
        input=maxout, num_channels=8, pool_size=2, stride=2, pool_type=paddle.pooling.Max()
    )
    conv2 = _conv(pool, 8, 128)
    maxout2 = L.maxout(input=conv2, num_channels=128, groups=4)
    block = L.block_expand(
        input=maxout2, num_channels=32, stride_x=1, stride_y=1, block_x=1, block_y=6
    )
    fc = L.fc(input=block, size=384, bias_attr=False)
    return [fc], []
