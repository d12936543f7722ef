"""Topology: v2 test_topology behaviours, validation, JSON, summary."""

import io

import pytest

import paddle_lite as paddle
from paddle_lite._src.topology import load_inference_topology
from paddle_lite.errors import LayerConfigWarning, ParameterError, TopologyError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
Topology = paddle.topology.Topology


def _mnist():
    pixel = L.data(name="pixel", type=DT.dense_vector(784))
    label = L.data(name="label", type=DT.integer_value(10))
    hidden = L.fc(input=pixel, size=100, act=A.Sigmoid())
    inference = L.fc(input=hidden, size=10, act=A.Softmax())
    return pixel, label, hidden, inference


def test_data_type_in_definition_order():
    label = L.data(name="label", type=DT.integer_value(10))
    pixel = L.data(name="pixel", type=DT.dense_vector(784))
    cost = L.addto(input=[L.fc(input=pixel, size=1), L.fc(input=label and pixel, size=1)])
    topo = Topology(L.concat(input=[cost, L.embedding(input=label, size=1)]))
    assert topo.data_type() == [("label", DT.integer_value(10)), ("pixel", DT.dense_vector(784))]
    assert list(topo.data_layers()) == ["label", "pixel"]


def test_get_layer_returns_the_same_object():
    pixel, _, _, inference = _mnist()
    topo = Topology(inference)
    assert topo.get_layer("pixel") is pixel
    with pytest.raises(TopologyError, match="no layer named 'pixle'.*Did you mean 'pixel'"):
        topo.get_layer("pixle")


def test_get_layer_proto_is_the_proto_entry_or_none():
    _, _, hidden, inference = _mnist()
    topo = Topology(inference)
    entry = topo.get_layer_proto(hidden.name)
    assert (entry.name, entry.type, entry.size, entry.active_type) == (
        hidden.name,
        "fc",
        100,
        "sigmoid",
    )
    assert topo.get_layer_proto("no_such_layer") is None


def test_parse_variants_and_extra_layers():
    pixel, label, hidden, inference = _mnist()
    maxid = L.fc(input=inference, size=1)
    for layers in (inference, [inference], [inference, maxid]):
        proto = Topology(layers).proto()
        assert proto.input_layer_names == ["pixel"]
    topo = Topology(inference, extra_layers=[L.embedding(input=label, size=2)])
    assert topo.proto().input_layer_names == ["pixel", "label"]
    assert [p.name for p in Topology(inference).proto().parameters] == [
        "___fc_layer_0__.w0",
        "___fc_layer_0__.wbias",
        "___fc_layer_1__.w0",
        "___fc_layer_1__.wbias",
    ]


def test_prunes_to_reachable_layers():
    pixel, _, hidden, inference = _mnist()
    topo = Topology(hidden)
    assert [n.name for n in topo.nodes] == ["pixel", "__fc_layer_0__"]


def test_non_layer_is_refused():
    with pytest.raises(TopologyError, match=r"layers\[1\] is 3"):
        Topology([_mnist()[3], 3])


def test_duplicate_layer_name_is_an_error():
    x = L.data(name="x", type=DT.dense_vector(2))
    a = L.fc(input=x, size=2, name="same")
    b = L.fc(
        input=a, size=2, name="same", param_attr=paddle.attr.Param(name="other"), bias_attr=False
    )
    with pytest.raises(TopologyError, match="two different layers are named 'same'"):
        Topology(b)


def test_conflicting_shared_parameter_names_both_layers():
    x = L.data(name="x", type=DT.dense_vector(2))
    a = L.fc(input=x, size=3, name="a", param_attr=paddle.attr.Param(name="w"))
    b = L.fc(input=x, size=4, name="b", param_attr=paddle.attr.Param(name="w"))
    with pytest.raises(
        ParameterError,
        match=(
            r"'w' is declared differently by layer 'a' at .*test_topology.py:\d+ and "
            r"layer 'b' at .*\(2, 3\) vs \(2, 4\)"
        ),
    ):
        Topology([a, b])


def test_shared_parameter_is_one_entry():
    x = L.data(name="x", type=DT.dense_vector(2))
    a = L.fc(input=x, size=3, param_attr=paddle.attr.Param(name="w"))
    b = L.fc(input=x, size=3, param_attr=paddle.attr.Param(name="w"))
    assert [p.name for p in Topology([a, b]).param_specs()].count("w") == 1


def test_json_round_trip_preserves_everything():
    _, _, _, inference = _mnist()
    topo = Topology(inference)
    text = topo.serialize()
    again = Topology.deserialize(text)
    assert again.serialize() == text
    assert again.data_type() == topo.data_type()
    assert isinstance(again.get_layer(inference.name).activation, A.Softmax)
    assert again.param_specs() == topo.param_specs()


def test_serialize_to_binary_and_text_streams():
    topo = Topology(_mnist()[3])
    buf = io.BytesIO()
    topo.serialize(buf)
    assert Topology.deserialize(buf.getvalue()).serialize() == topo.serialize()
    sio = io.StringIO()
    topo.serialize(sio)
    sio.seek(0)
    assert Topology.deserialize(sio).serialize() == topo.serialize()


def test_serialize_for_inference():
    topo = Topology(_mnist()[3])
    buf = io.BytesIO()
    topo.serialize_for_inference(buf)
    buf.seek(0)
    again = load_inference_topology(buf)
    assert again.data_type() == topo.data_type()
    with pytest.raises(TopologyError, match="not an inference topology"):
        load_inference_topology(topo.serialize())


def test_summary_table():
    text = Topology(_mnist()[3]).summary(print_fn=None)
    lines = text.splitlines()
    assert lines[0].split() == ["layer", "type", "output", "params", "inputs"]
    assert "__fc_layer_0__  fc    100     78,500" in text
    assert lines[-1] == "total parameters: 79,510 in 4 arrays"


def test_parse_network_and_get_layer_v2():
    pixel, label, hidden, inference = _mnist()
    conf = L.parse_network(inference)
    assert conf.output_layer_names == [inference.name]
    extra = L.embedding(input=label, size=2)
    assert L.parse_network(inference, extra).input_layer_names == ["pixel", "label"]
    assert L.parse_network([inference], extra_layers=[extra]).input_layer_names == [
        "pixel",
        "label",
    ]
    assert L.get_layer("pixel") is pixel and L.get_layer(hidden.name) is hidden
    with pytest.warns(LayerConfigWarning, match="no layer named 'pixl'.*Did you mean 'pixel'"):
        assert L.get_layer("pixl") is None  # v2 returned None (__layer_map__.get)


def test_errors_point_at_the_user_lines_that_built_the_layers():
    import inspect

    x = L.data(name="x", type=DT.dense_vector(2))
    line = inspect.currentframe().f_lineno + 1
    a = L.fc(input=x, size=3, name="a", param_attr=paddle.attr.Param(name="w"))
    assert a.where == f"{__file__}:{line}"
    b = L.fc(input=a, size=3, name="a", param_attr=paddle.attr.Param(name="v"))
    with pytest.raises(TopologyError, match=rf"fc at .*test_topology.py:{line} and fc at "):
        Topology(b)


def test_a_name_only_declaration_defers_to_the_full_one_in_either_order():
    x = L.data(name="x", type=DT.dense_vector(2))
    full = paddle.attr.Param(name="w", initial_std=0.5, learning_rate=1e-3)
    for first, second in ((full, paddle.attr.Param(name="w")), (paddle.attr.Param(name="w"), full)):
        a = L.fc(input=x, size=3, param_attr=first, bias_attr=False)
        b = L.fc(input=x, size=3, param_attr=second, bias_attr=False)
        spec = Topology([a, b]).params["w"]
        assert (spec.init.std, spec.learning_rate) == (0.5, 1e-3)
    c = L.fc(input=x, size=4, param_attr=paddle.attr.Param(name="w"), bias_attr=False)
    with pytest.raises(ParameterError, match=r"\(2, 3\) vs \(2, 4\)"):
        Topology([a, c])


def test_summary_prints_with_print_fn_and_returns_nothing_then():
    printed = []
    topo = Topology(_mnist()[3])
    assert topo.summary(print_fn=printed.append) is None
    assert printed == [topo.summary(print_fn=None)]


def _rnn_with_boot_and_static():
    """v2 test_rnn_layer's group: a reversed step over an embedding, a memory booted
    from an outer fc, and that fc also as a StaticInput."""
    word = L.data(name="word", type=DT.integer_value_sequence(100))
    emb = L.embedding(input=word, size=16)
    boot = L.fc(input=L.data(name="b", type=DT.dense_vector(4)), size=32, name="boot")

    def step(y, s):
        mem = L.memory(name="rnn_state", size=32, boot_layer=boot)
        return L.fc(input=[y, mem, s], size=32, act=A.Tanh(), bias_attr=True, name="rnn_state")

    return L.recurrent_group(name="rnn", step=step, input=[emb, L.StaticInput(boot)], reverse=True)


def test_proto_lists_a_groups_step_layers_and_its_sub_model_as_v2_does():
    conf = L.parse_network(_rnn_with_boot_and_static())
    assert conf.type == "recurrent_nn"
    types = {layer.name: layer.type for layer in conf.layers}
    names = [layer.name for layer in conf.layers]
    inner = ["__embedding_0__@rnn", "__memory_0__@rnn", "rnn_state+delay1@rnn", "rnn_state@rnn"]
    assert names == ["word", "__embedding_0__", "b", "boot", "rnn", *inner, "rnn_state"]
    assert types["rnn"] == "recurrent_layer_group" and types["rnn_state"] == "gather_agent"
    assert types["__embedding_0__@rnn"] == "scatter_agent"
    assert types["rnn_state+delay1@rnn"] == types["__memory_0__@rnn"] == "agent"
    fc = conf.layers[names.index("rnn_state@rnn")]
    assert [i.input_layer_name for i in fc.inputs] == [
        "__embedding_0__@rnn",
        "rnn_state+delay1@rnn",
        "__memory_0__@rnn",
    ]
    assert [i.input_parameter_name for i in fc.inputs] == [
        "_rnn_state@rnn.w0",
        "_rnn_state@rnn.w1",
        "_rnn_state@rnn.w2",
    ]
    assert fc.bias_parameter_name == "_rnn_state@rnn.wbias"
    assert fc.parameters == ["_rnn_state@rnn.w0", "_rnn_state@rnn.w1", "_rnn_state@rnn.w2"] + [
        "_rnn_state@rnn.wbias"
    ]
    root, rnn = conf.sub_models
    assert root.name == "root" and root.layer_names == ["word", "__embedding_0__", "b"] + [
        "boot",
        "rnn",
        "rnn_state",
    ]
    assert (rnn.name, rnn.layer_names, rnn.reversed) == ("rnn", inner, True)
    links = lambda ls: [(x.layer_name, x.link_name) for x in ls]  # noqa: E731
    assert links(rnn.in_links) == [("__embedding_0__", "__embedding_0__@rnn")]
    assert links(rnn.out_links) == [("rnn_state@rnn", "rnn_state")]
    assert [(m.layer_name, m.link_name, m.boot_layer_name, m.is_static) for m in rnn.memories] == [
        ("__memory_0__@rnn", "__memory_0__@rnn", "boot", True),
        ("rnn_state@rnn", "rnn_state+delay1@rnn", "boot", False),
    ]


def test_summary_indents_a_groups_step_layers_and_counts_each_parameter_once():
    text = Topology(_rnn_with_boot_and_static()).summary(print_fn=None)
    rows = {line.split()[0]: line.split() for line in text.splitlines()[2:-1]}
    assert rows["rnn"][:5] == ["rnn", "recurrent_layer_group", "32", "seq1", "0"]
    assert "\n  rnn_state@rnn " in text and rows["rnn_state@rnn"][1:4] == ["fc", "32", "2,592"]
    # 16*32 + 32*32 + 32*32 + 32: the step's fc, once, though the group owns it too
    total = 100 * 16 + (4 * 32 + 32) + 2592
    assert text.splitlines()[-1] == f"total parameters: {total:,} in 7 arrays"


def test_a_nested_group_has_its_own_sub_model_linked_to_the_outer_step():
    x = L.data(name="x", type=DT.dense_vector_sub_sequence(3))

    def outer(sub):
        def inner(word):
            return L.fc(input=[word, L.memory(name="h", size=2)], size=2, name="h")

        words = L.recurrent_group(name="inner", step=inner, input=sub)
        return L.addto(input=[L.last_seq(input=words), L.memory(name="acc", size=2)], name="acc")

    conf = L.parse_network(L.recurrent_group(name="outer", step=outer, input=x))
    links = lambda ls: [(x.layer_name, x.link_name) for x in ls]  # noqa: E731
    root, out, inner = conf.sub_models
    assert (root.name, out.name, inner.name) == ("root", "outer", "inner@outer")
    assert inner.layer_names == ["x@inner@outer", "h+delay1@inner@outer", "h@inner@outer"]
    assert links(inner.in_links) == [("x@outer", "x@inner@outer")]
    assert links(inner.out_links) == [("h@inner@outer", "h@outer")]
    assert links(out.out_links) == [("acc@outer", "acc")]
    assert [layer.name for layer in conf.layers].index("h@inner@outer") > 2


def test_config_base_names_the_layer_type_and_the_live_layers():
    # v2's docstrings type layers as paddle.v2.config_base.Layer; programs test with it
    x = paddle.layer.data(name="cb_x", type=paddle.data_type.dense_vector(3))
    h = paddle.layer.fc(input=x, size=2)
    assert isinstance(h, paddle.config_base.Layer) and isinstance(x, paddle.config_base.Layer)
    assert not isinstance(paddle.activation.Relu(), paddle.config_base.Layer)
    assert paddle.config_base.__layer_map__["cb_x"] is x
    assert paddle.config_base.__layer_map__[h.name] is h
