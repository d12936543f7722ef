"""v2 config shared_lstm: two lstmemory groups sharing their parameters."""

import paddle_lite as paddle

L = paddle.layer
ParamAttr = paddle.attr.ParamAttr


def network():
    data_1 = L.data(name="data_a", type=paddle.data_type.dense_vector_sequence(100))
    data_2 = L.data(name="data_b", type=paddle.data_type.dense_vector_sequence(100))
    mixed_param = ParamAttr(name="mixed_param")
    m1 = L.mixed(
        size=400,
        bias_attr=False,
        input=[L.full_matrix_projection(input=data_1, param_attr=mixed_param)],
    )
    m2 = L.mixed(
        size=400,
        bias_attr=False,
        input=[L.full_matrix_projection(input=data_2, param_attr=mixed_param)],
    )
    lstm_param = ParamAttr(name="lstm_param")
    lstm_bias = ParamAttr(name="lstm_bias", initial_mean=0.0, initial_std=0.0)
    lstms = [
        paddle.networks.lstmemory_group(
            input=m,
            param_attr=lstm_param,
            lstm_bias_attr=lstm_bias,
            input_proj_bias_attr=False,
        )
        for m in (m1, m2)
    ]
    softmax_param = ParamAttr(name="softmax_param")
    predict = L.fc(
        input=[L.last_seq(input=lstm) for lstm in lstms],
        size=10,
        param_attr=[softmax_param, softmax_param],
        bias_attr=False,
        act=paddle.activation.Softmax(),
    )
    label = L.data(name="label", type=paddle.data_type.integer_value(10))
    return [L.classification_cost(input=predict, label=label)], []
