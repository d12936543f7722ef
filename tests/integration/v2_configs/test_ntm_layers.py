"""v2 config test_ntm_layers: interpolation, power, scaling, cos_sim, conv_shift, tensor ..."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def network():
    weight = L.data(name="w", type=dense(1))
    a = L.data(name="a", type=dense(100))
    b = L.data(name="b", type=dense(100))
    c = L.data(name="c", type=dense(200))
    d = L.data(name="d", type=dense(31))
    outputs = [
        L.interpolation(input=[a, b], weight=weight),
        L.power(input=a, weight=weight),
        L.scaling(input=a, weight=weight),
        L.cos_sim(a=a, b=b),
        L.cos_sim(a=a, b=c, size=2),
        L.sum_to_one_norm(input=a),
        L.conv_shift(a=a, b=d),
        L.tensor(a=a, b=b, size=1000),
        L.slope_intercept(input=a, slope=0.7, intercept=0.9),
        L.linear_comb(weights=b, vectors=c),
    ]
    return outputs, []
