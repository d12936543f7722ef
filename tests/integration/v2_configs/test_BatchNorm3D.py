"""v2 config test_BatchNorm3D: batch_norm over a 3-D image."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data3d = L.data(
        name="data3D", type=paddle.data_type.dense_vector(120 * 3), width=20, height=6, depth=3
    )
    return [L.batch_norm(data3d, num_channels=1, img3D=True)], []
