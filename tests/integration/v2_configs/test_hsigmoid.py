"""v2 config test_hsigmoid: hierarchical sigmoid cost."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector(100))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    return [paddle.layer.hsigmoid(input=din, label=label, num_classes=10)], []
