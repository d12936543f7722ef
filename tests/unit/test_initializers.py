"""Initializers: distributions, fans, registry, determinism by name."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.initializers import fans, initialize, lookup, param_key
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite.errors import ParameterError

init = paddle.initializer
SHAPE = (400, 300)


def _sample(initializer, shape=SHAPE, seed=0):
    spec = ParamSpec("p", shape, initializer.to_init_spec())
    return initialize(spec, seed).astype(np.float64)


def test_fans():
    assert fans((5,)) == (5, 5)
    assert fans((3, 7)) == (3, 7)
    assert fans((8, 4, 3, 3)) == (36, 72)


@pytest.mark.parametrize(
    "initializer, mean, std",
    [
        (init.gaussian(1.0, 2.0), 1.0, 2.0),
        (init.gaussian(0.0, 1.0, value=3.0), 0.0, 3.0),
        (init.uniform(-2.0, 2.0), 0.0, 4.0 / math.sqrt(12)),
        (init.gaussian_sqrt_fan_in(), 0.0, 1 / math.sqrt(400)),
        (init.uniform_sqrt_fan_in(), 0.0, 2 / math.sqrt(400) / math.sqrt(12)),
        (init.uniform_fan_in_out(), 0.0, 2 * math.sqrt(6 / 700) / math.sqrt(12)),
        (init.msra(), 0.0, math.sqrt(2 / 400)),
        (init.msra(value=0.5), 0.0, 0.5 * math.sqrt(2 / 400)),
    ],
)
def test_distribution_moments(initializer, mean, std):
    v = _sample(initializer)
    assert abs(v.mean() - mean) < 0.02 * max(std, 1e-3) * 10
    assert abs(v.std() - std) / std < 0.02


def test_uniform_bounds_and_constant():
    v = _sample(init.uniform_fan_in_out())
    r = math.sqrt(6 / 700)
    assert v.min() >= -r and v.max() <= r and v.max() > 0.99 * r
    np.testing.assert_array_equal(_sample(init.constant(0.25), (3, 2)), np.full((3, 2), 0.25))


def test_deterministic_per_name_and_seed():
    spec = ParamSpec("a", (5, 5), InitSpec("gaussian", 0.0, 1.0))
    np.testing.assert_array_equal(initialize(spec, 3), initialize(spec, 3))
    assert not np.array_equal(initialize(spec, 3), initialize(spec, 4))
    other = ParamSpec("b", (5, 5), InitSpec("gaussian", 0.0, 1.0))
    assert not np.array_equal(initialize(spec, 3), initialize(other, 3))


def test_register_initializer_selected_by_name():
    paddle.initializer.register_initializer(
        "test_arange",
        lambda key, shape, dtype: jnp.arange(math.prod(shape), dtype=dtype).reshape(shape),
    )
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(2))
    w = paddle.layer.fc(
        input=x, size=3, param_attr=paddle.attr.Param(initializer="test_arange")
    ).params[0]
    np.testing.assert_array_equal(initialize(w, 0), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert lookup("test_arange") is not None


def test_callable_initializer_shape_is_checked():
    spec = ParamSpec(
        "w", (3, 2), InitSpec("callable", fn=lambda name: np.zeros((2, 2))), owner="fc"
    )
    with pytest.raises(ParameterError, match=r"parameter 'w' \(layer 'fc'\).*expected \(3, 2\)"):
        initialize(spec, 0)


def test_register_rejects_non_callable():
    with pytest.raises(ParameterError, match="callable"):
        paddle.initializer.register_initializer("bad", 3)


@pytest.mark.parametrize("shape", [(7, 5), (64, 3, 3, 3)])
def test_built_in_draws_equal_a_draw_of_the_parameters_own_shape(shape):
    """The gaussian and uniform draws come from power-of-two sized programs; each must equal,
    bit for bit, the draw of the parameter's own shape from its own key."""
    key = param_key(3, "w")
    gaussian = initialize(ParamSpec("w", shape, InitSpec("gaussian", 0.25, 0.5)), 3)
    want = np.asarray(0.25 + 0.5 * jax.random.normal(key, shape, jnp.float32))
    np.testing.assert_array_equal(gaussian.view(np.uint32), want.view(np.uint32))
    uniform = initialize(ParamSpec("w", shape, InitSpec("uniform", -0.5, 2.0)), 3)
    want = np.asarray(jax.random.uniform(key, shape, jnp.float32, -2.5, 1.5))
    np.testing.assert_array_equal(uniform.view(np.uint32), want.view(np.uint32))
