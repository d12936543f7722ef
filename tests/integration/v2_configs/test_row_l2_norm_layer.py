"""v2 config test_row_l2_norm_layer: row-wise L2 normalization."""

import paddle_lite as paddle


def network():
    data = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(300))
    return [paddle.layer.row_l2_norm(input=data)], []
