"""v2 config test_print_layer: a printer beside the data layer it prints."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(100))
    paddle.layer.printer(input=din)  # v2's printer is no layer: it returns None
    return [din], []
