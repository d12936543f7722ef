"""Topology.proto(): each layer and parameter written as v2's config parser wrote them
(the full check against v2's golden files is tests/integration/test_v2_golden_configs.py)."""

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
Topology = paddle.topology.Topology


def _inputs(layer):
    return [(i.input_layer_name, i.input_parameter_name) for i in layer.inputs]


def test_layers_and_parameters_in_creation_order_with_their_parameter_names():
    b = L.data(name="b", type=DT.dense_vector(4))
    a = L.data(name="a", type=DT.dense_vector(4))
    out = L.fc(input=[a, b], size=2, bias_attr=False)
    conf = Topology(out).proto()
    assert [layer.name for layer in conf.layers] == ["b", "a", "__fc_layer_0__"]
    assert conf.input_layer_names == ["b", "a"] and conf.type == "nn"
    fc = conf.layers[2]
    assert _inputs(fc) == [("a", "___fc_layer_0__.w0"), ("b", "___fc_layer_0__.w1")]
    assert (fc.type, fc.size, fc.active_type, fc.bias_parameter_name) == ("fc", 2, "tanh", "")


def test_conv_and_batch_norm_as_v2_writes_them():
    img = L.data(name="img", type=DT.dense_vector(2 * 8 * 8), height=8, width=8)
    conv = L.img_conv(input=img, filter_size=3, num_filters=4, num_channels=2, trans=True)
    bn = L.batch_norm(input=conv, act=A.Relu())
    conf = Topology(L.img_pool(input=bn, pool_size=2)).proto()
    types = [layer.type for layer in conf.layers]
    assert types == ["data", "exconvt", "batch_norm", "pool"]
    names = [f"___batch_norm_0__.w{i}" for i in range(3)]
    assert _inputs(conf.layers[2]) == [("__conv_0__", n) for n in names]
    assert conf.layers[2].bias_parameter_name == "___batch_norm_0__.wbias"
    dims = {p.name: p.dims for p in conf.parameters}
    assert dims["___conv_0__.w0"] == () and dims["___batch_norm_0__.w0"] == ()
    assert dims["___batch_norm_0__.w1"] == (1, 4)


def test_mixed_lists_operator_inputs_after_its_projections_as_v2_does():
    a = L.data(name="a", type=DT.dense_vector(3))
    b = L.data(name="b", type=DT.dense_vector(3))
    m = L.mixed(input=[L.dotmul_operator(a=a, b=b), L.scaling_projection(a)])
    conf = Topology(m).proto()
    assert _inputs(conf.layers[-1]) == [("a", ""), ("a", "___mixed_0__.w1"), ("b", "")]


def test_a_printer_of_the_topology_is_a_print_layer():
    x = L.data(name="x", type=DT.dense_vector(3))
    out = L.fc(input=x, size=2)
    L.printer(input=x)
    conf = Topology(out).proto()
    assert [(layer.name, layer.type) for layer in conf.layers] == [
        ("x", "data"),
        ("__fc_layer_0__", "fc"),
        ("__print_0__", "print"),
    ]
    assert conf.sub_models[0].layer_names == ["x", "__fc_layer_0__", "__print_0__"]
    assert [i.input_layer_name for i in conf.layers[2].inputs] == ["x"]
    assert [layer.type for layer in Topology(x).proto().layers] == ["data", "print"]
    assert [
        layer.type for layer in Topology(L.data(name="y", type=DT.dense_vector(1))).proto().layers
    ] == ["data"]
