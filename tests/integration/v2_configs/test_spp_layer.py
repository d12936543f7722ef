"""v2 config test_spp_layer: spatial pyramid pooling."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(
        name="data", type=paddle.data_type.dense_vector(3200), height=20, width=10
    )
    spp = paddle.layer.spp(
        input=data, pyramid_height=2, num_channels=16, pool_type=paddle.pooling.Max()
    )
    return [spp], []
