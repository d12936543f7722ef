"""v2 config test_gated_unit_layer: gated linear unit with every attribute set."""

import paddle_lite as paddle

Extra = paddle.attr.ExtraLayerAttribute
Param = paddle.attr.ParamAttr


def network():
    data = paddle.layer.data(name="input", type=paddle.data_type.dense_vector(256))
    glu = paddle.layer.gated_unit(
        size=512,
        input=data,
        act=paddle.activation.Tanh(),
        gate_attr=Extra(error_clipping_threshold=100.0),
        gate_param_attr=Param(initial_std=1e-4),
        gate_bias_attr=Param(initial_std=1),
        inproj_attr=Extra(error_clipping_threshold=100.0),
        inproj_param_attr=Param(initial_std=1e-4),
        inproj_bias_attr=Param(initial_std=1),
        layer_attr=Extra(error_clipping_threshold=100.0),
    )
    return [glu], []
