"""v2 config test_bilinear_interp: conv, bilinear_interp, pool, fc."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(2304))
    conv = L.img_conv(
        input=data,
        filter_size=3,
        num_channels=1,
        num_filters=16,
        padding=1,
        act=paddle.activation.Linear(),
        bias_attr=True,
    )
    bilinear = L.bilinear_interp(input=conv, out_size_x=64, out_size_y=64)
    pool = L.img_pool(
        input=bilinear, num_channels=16, pool_size=2, stride=2, pool_type=paddle.pooling.Max()
    )
    fc = L.fc(input=pool, size=384, bias_attr=False)
    return [fc], []
