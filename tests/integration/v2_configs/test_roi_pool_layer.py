"""v2 config test_roi_pool_layer: conv then region-of-interest pooling."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="data", type=paddle.data_type.dense_vector(3 * 14 * 14), height=14, width=14)
    rois = L.data(name="rois", type=paddle.data_type.dense_vector(10))
    conv = L.img_conv(
        input=data,
        filter_size=3,
        num_channels=3,
        num_filters=16,
        padding=1,
        act=paddle.activation.Linear(),
        bias_attr=True,
    )
    roi_pool = L.roi_pool(
        input=conv, rois=rois, pooled_width=7, pooled_height=7, spatial_scale=1.0 / 16
    )
    return [roi_pool], []
