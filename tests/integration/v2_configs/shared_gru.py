"""v2 config shared_gru: two simple_gru networks sharing their parameters."""

import paddle_lite as paddle

L = paddle.layer
ParamAttr = paddle.attr.ParamAttr


def network():
    data_1 = L.data(name="data_a", type=paddle.data_type.dense_vector_sequence(100))
    data_2 = L.data(name="data_b", type=paddle.data_type.dense_vector_sequence(100))
    mixed_param = ParamAttr(name="mixed_param")
    gru_param = ParamAttr(name="gru_param")
    gru_bias = ParamAttr(name="gru_bias", initial_mean=0.0, initial_std=0.0)
    grus = [
        paddle.networks.simple_gru(
            input=data,
            size=200,
            mixed_param_attr=mixed_param,
            mixed_bias_param_attr=False,
            gru_bias_attr=gru_bias,
            gru_param_attr=gru_param,
        )
        for data in (data_1, data_2)
    ]
    softmax_param = ParamAttr(name="softmax_param")
    predict = L.fc(
        input=[L.last_seq(input=gru) for gru in grus],
        size=10,
        param_attr=[softmax_param, softmax_param],
        bias_attr=False,
        act=paddle.activation.Softmax(),
    )
    label = L.data(name="label", type=paddle.data_type.integer_value(10))
    return [L.classification_cost(input=predict, label=label)], []
