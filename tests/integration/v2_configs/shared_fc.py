"""v2 config shared_fc: two fc layers sharing weight and bias parameters."""

import paddle_lite as paddle

L = paddle.layer
ParamAttr = paddle.attr.ParamAttr


def network():
    a = L.data(name="feature_a", type=paddle.data_type.dense_vector(200))
    b = L.data(name="feature_b", type=paddle.data_type.dense_vector(200))
    fc_param = ParamAttr(name="fc_param", initial_max=1.0, initial_min=-1.0)
    bias_param = ParamAttr(name="bias_param", initial_mean=0.0, initial_std=0.0)
    softmax_param = ParamAttr(name="softmax_param", initial_max=1.0, initial_min=-1.0)
    hidden_a = L.fc(input=a, size=200, param_attr=fc_param, bias_attr=bias_param)
    hidden_b = L.fc(input=b, size=200, param_attr=fc_param, bias_attr=bias_param)
    predict = L.fc(
        input=[hidden_a, hidden_b],
        param_attr=[softmax_param, softmax_param],
        bias_attr=False,
        size=10,
        act=paddle.activation.Softmax(),
    )
    label = L.data(name="label", type=paddle.data_type.integer_value(10))
    return [L.classification_cost(input=predict, label=label)], []
