"""ParamAttr / ExtraAttr: v2 semantics and their effect on parameter specs."""

import math

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import LayerConfigError, LayerTypeError

attr = paddle.attr


def _x(dim=100):
    return paddle.layer.data(name="x", type=paddle.data_type.dense_vector(dim))


def _weight(**kw):
    return paddle.layer.fc(input=_x(), size=10, param_attr=attr.Param(**kw)).params[0]


def test_aliases():
    assert attr.Param is attr.ParamAttr is attr.ParameterAttribute
    assert attr.Extra is attr.ExtraAttr is attr.ExtraLayerAttribute
    assert attr.Hook is attr.HookAttr is attr.HookAttribute


def test_default_is_smart_init():
    w = _weight()
    assert w.init.strategy == "gaussian" and w.init.smart
    assert math.isclose(w.init.std, 0.1)


def test_std_mean_is_gaussian_and_min_max_is_uniform():
    g = _weight(initial_std=0.5, initial_mean=2.0)
    assert (g.init.strategy, g.init.mean, g.init.std, g.init.smart) == ("gaussian", 2.0, 0.5, False)
    u = _weight(initial_min=-1.0, initial_max=3.0)
    assert (u.init.strategy, u.init.mean, u.init.std) == ("uniform", 1.0, 2.0)
    with pytest.raises(LayerConfigError, match="initial_min must be < initial_max"):
        attr.Param(initial_min=1.0, initial_max=1.0)


def test_zero_l2_and_momentum_mean_unset():
    w = _weight(l2_rate=0, momentum=0, l1_rate=0)
    assert (w.decay_rate, w.momentum, w.decay_rate_l1) == (None, None, None)
    w = _weight(l2_rate=6e-4, momentum=0.9, learning_rate=2.0)
    assert (w.decay_rate, w.momentum, w.learning_rate) == (6e-4, 0.9, 2.0)


def test_is_static_ignores_update_settings():
    w = _weight(is_static=True, l2_rate=1e-3, learning_rate=5.0, momentum=0.9)
    assert w.is_static and w.learning_rate == 1.0
    assert (w.decay_rate, w.momentum) == (None, None)


def test_initializer_forms():
    calls = []

    def f(name):
        calls.append(name)
        return np.zeros((100, 10), np.float32)

    assert _weight(name="w", initializer=f).init.strategy == "callable"
    assert _weight(initializer="msra").init.strategy == "msra"
    assert _weight(initializer=paddle.initializer.constant(2.0)).init.kwargs == (("value", 2.0),)
    with pytest.raises(ValueError, match="unknown initializer 'nope'"):
        attr.Param(initializer="nope")
    with pytest.raises(LayerTypeError, match="initializer must be"):
        attr.Param(initializer=3)


def test_bias_rules():
    x = _x(4)
    assert [p.role for p in paddle.layer.fc(input=x, size=2).params] == ["w0", "wbias"]
    assert [p.role for p in paddle.layer.fc(input=x, size=2, bias_attr=False).params] == ["w0"]
    assert paddle.layer.addto(input=[x, x]).params == ()
    bias = paddle.layer.addto(input=[x, x], bias_attr=True).params[0]
    assert (bias.role, bias.shape, bias.init.std) == ("wbias", (1, 4), 0.0)
    with pytest.raises(LayerTypeError, match="bias_attr"):
        paddle.layer.fc(input=x, size=2, bias_attr="yes")


def test_extra_attr_validation_and_support():
    with pytest.raises(ValueError, match="drop_rate"):
        attr.Extra(drop_rate=-0.1)
    assert (
        paddle.layer.fc(input=_x(4), size=2, layer_attr=attr.Extra(drop_rate=0.5)).attrs[
            "drop_rate"
        ]
        == 0.5
    )
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        paddle.layer.data(
            name="d", type=paddle.data_type.dense_vector(2), layer_attr=attr.Extra(drop_rate=0.5)
        )


def test_extra_attr_repr_and_set_fields_list_only_set_fields():
    extra = attr.Extra(drop_rate=0.5, device=1)
    assert extra.set_fields() == {"drop_rate": 0.5, "device": 1}
    assert repr(extra) == "ExtraAttr(drop_rate=0.5, device=1)"
    assert repr(attr.Extra()) == "ExtraAttr()"


def test_hook_attr():
    assert attr.Hook(type="pruning", sparsity_ratio=0.6).sparsity_ratio == 0.6
    with pytest.raises(ValueError, match="sparsity_ratio"):
        attr.Hook(sparsity_ratio=1.5)
