"""v2 config test_fc: trans, fc without bias, selective_fc."""

import paddle_lite as paddle


def network():
    din = paddle.layer.data(name="data", type=paddle.data_type.dense_vector(100))
    trans = paddle.layer.trans(input=din)
    hidden = paddle.layer.fc(input=trans, size=100, bias_attr=False)
    mask = paddle.layer.data(name="mask", type=paddle.data_type.dense_vector(100))
    hidden_sel = paddle.layer.selective_fc(
        input=din, select=mask, size=100, act=paddle.activation.Sigmoid()
    )
    return [hidden, hidden_sel], []
