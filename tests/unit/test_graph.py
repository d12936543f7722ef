"""Layer nodes: immutability, v2 auto names, naming scopes, v2 attributes."""

import pytest

import paddle_lite as paddle
from paddle_lite._src.specs import Spec
from paddle_lite.errors import LayerConfigError


def _x(dim=4, name="x"):
    return paddle.layer.data(name=name, type=paddle.data_type.dense_vector(dim))


def test_auto_names_count_per_prefix():
    x = _x()
    a = paddle.layer.fc(input=x, size=3)
    b = paddle.layer.fc(input=a, size=3)
    c = paddle.layer.concat(input=[a, b])
    assert (a.name, b.name, c.name) == ("__fc_layer_0__", "__fc_layer_1__", "__concat_0__")
    assert [p.name for p in b.params] == ["___fc_layer_1__.w0", "___fc_layer_1__.wbias"]


def test_explicit_name_gives_underscore_prefixed_param_names():
    fc1 = paddle.layer.fc(input=_x(), size=2, name="fc1")
    assert [p.name for p in fc1.params] == ["_fc1.w0", "_fc1.wbias"]


def test_reset_names_reproduces_names():
    first = paddle.layer.fc(input=_x(), size=2).name
    paddle.layer.reset_names()
    second = paddle.layer.fc(input=_x(), size=2).name
    assert first == second == "__fc_layer_0__"


def test_name_scope_is_independent_and_restores_outer_counters():
    x = _x()
    paddle.layer.fc(input=x, size=2)
    with paddle.layer.name_scope():
        inner = paddle.layer.fc(input=x, size=2)
    outer = paddle.layer.fc(input=x, size=2)
    assert inner.name == "__fc_layer_0__"
    assert outer.name == "__fc_layer_1__"


def test_layer_is_immutable():
    y = paddle.layer.fc(input=_x(), size=2)
    with pytest.raises(AttributeError, match="immutable"):
        y.name = "other"
    with pytest.raises(TypeError):
        y.attrs["size"] = 5


def test_v2_layer_output_attributes():
    x = _x(6)
    y = paddle.layer.fc(input=x, size=3, act=paddle.activation.Sigmoid())
    assert y.size == 3 and y.layer_type == "fc" and y.parents == [x]
    assert isinstance(y.activation, paddle.activation.Sigmoid)
    assert y.full_name == y.name and y.outputs == ["default"]
    assert y.num_filters is None and y.height is None
    img = paddle.layer.data(name="img", type=paddle.data_type.dense_vector(12), height=2, width=3)
    assert (img.num_filters, img.height, img.width) == (2, 2, 3)
    assert x.data_type == paddle.data_type.dense_vector(6)


def test_spec_rejects_inconsistent_image():
    with pytest.raises(LayerConfigError, match="image shape"):
        Spec(10, image=(1, 3, 3))


def test_a_kind_declaring_a_static_parameter_keeps_the_users_init():
    from paddle_lite._src import attrs as attrs_mod
    from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
    from paddle_lite._src.layers import base

    class FrozenScale(Kind):
        name = "test_frozen_scale"

        def infer_spec(self, inputs, attrs):
            return Spec(inputs[0].size)

        def param_specs(self, inputs, attrs):
            return [ParamDecl("w0", (1, inputs[0].size), ("param", 0), attrs_mod.SMART, True)]

        def apply(self, params, inputs, attrs, *, key, mode):
            return inputs[0] * params["w0"][0]

    register_kind(FrozenScale())
    attr = paddle.attr.Param(initial_std=0.5, initial_mean=2.0)
    layer = base.build("test_frozen_scale", name="s", inputs=[_x()], attrs={}, param_attrs=[attr])
    (spec,) = layer.params
    assert spec.is_static and (spec.init.mean, spec.init.std) == (2.0, 0.5)
    assert not attr.is_static  # the user's attribute object is left alone


def test_operators_before_the_layer_package_name_the_fix(monkeypatch):
    from paddle_lite._src import graph

    monkeypatch.setattr(graph, "_OPERATORS", {})
    with pytest.raises(LayerConfigError, match="import paddle_lite"):
        _ = _x() + 1.0


def test_register_operators_refuses_unknown_names():
    from paddle_lite._src import graph

    with pytest.raises(LayerConfigError, match=r"unknown operators \['div'\]"):
        graph.register_operators(div=lambda a, b: a)
