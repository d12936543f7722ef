"""v2 config test_cost_layers_with_weight: weighted classification, square error and nce."""

import paddle_lite as paddle

L = paddle.layer
DT = paddle.data_type


def network():
    data = L.data(name="input", type=DT.dense_vector(300))
    lbl = L.data(name="label", type=DT.integer_value(1))
    wt = L.data(name="weight", type=DT.dense_vector(1))
    fc = L.fc(input=data, size=10, act=paddle.activation.Softmax())
    outputs = [
        L.classification_cost(input=fc, label=lbl, weight=wt),
        L.square_error_cost(input=fc, label=lbl, weight=wt),
        L.nce(
            input=fc,
            label=L.data(name="multi_class_label", type=DT.integer_value(500)),
            weight=wt,
        ),
    ]
    return outputs, []
