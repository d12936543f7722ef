"""v2 config img_trans_layers: transposed conv, batch_norm, cmrnorm and pooling."""

import paddle_lite as paddle

L = paddle.layer


def network():
    img = L.data(name="image", type=paddle.data_type.dense_vector(227 * 227))
    img_conv = L.img_conv(
        input=img,
        num_channels=1,
        num_filters=64,
        filter_size=(32, 32),
        padding=(1, 1),
        stride=(1, 1),
        act=paddle.activation.Linear(),
        trans=True,
    )
    img_bn = L.batch_norm(input=img_conv, act=paddle.activation.Relu())
    img_norm = L.img_cmrnorm(input=img_bn, size=32)
    img_pool = L.img_pool(input=img_conv, pool_size=32, pool_type=paddle.pooling.Max())
    return [img_pool, img_norm], []
