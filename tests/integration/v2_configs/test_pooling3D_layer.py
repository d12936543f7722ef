"""v2 config test_pooling3D_layer: a 2-D pool and two 3-D pools."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def network():
    data_2d = L.data(name="data_2d", type=dense(6000), height=20, width=10)
    pool_2d = L.img_pool(
        name="pool___2d",
        input=data_2d,
        num_channels=30,
        pool_size=5,
        stride=3,
        padding=1,
        pool_type=paddle.pooling.Avg(),
    )
    data_3d = L.data(name="data_3d_1", type=dense(60000), depth=10, height=20, width=10)
    pool_3d_1 = L.img_pool3d(
        name="pool_3d_1",
        input=data_3d,
        num_channels=30,
        pool_size=5,
        stride=3,
        padding=1,
        pool_type=paddle.pooling.Avg(),
    )
    pool_3d_2 = L.img_pool3d(
        name="pool_3d_2",
        input=data_3d,
        num_channels=30,
        pool_size=[5, 5, 5],
        stride=[3, 3, 3],
        padding=[1, 1, 1],
        pool_type=paddle.pooling.Max(),
    )
    return [pool_2d, pool_3d_1, pool_3d_2], []
