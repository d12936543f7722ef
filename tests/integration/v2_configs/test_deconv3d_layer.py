"""v2 config test_deconv3d_layer: two deconv3d layers, scalar and per-axis geometry."""

import paddle_lite as paddle

L = paddle.layer
NUM_CHANNELS = 3


def _deconv3d(data, name, size, stride, padding):
    return L.img_conv3d(
        input=data,
        name=name,
        num_filters=16,
        num_channels=NUM_CHANNELS,
        filter_size=size,
        stride=stride,
        padding=padding,
        groups=1,
        bias_attr=True,
        shared_biases=True,
        trans=True,
        layer_type="deconv3d",
        act=paddle.activation.Linear(),
    )


def network():
    data = L.data(
        name="data",
        type=paddle.data_type.dense_vector(12096 * NUM_CHANNELS),
        height=48,
        width=42,
        depth=6,
    )
    first = _deconv3d(data, "deconv3d_1", 3, 2, 1)
    second = _deconv3d(data, "deconv3d_2", [3, 3, 3], [2, 2, 2], [1, 1, 1])
    return [second], [first]
