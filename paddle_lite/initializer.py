"""Parameter initializers, selectable by object or by registered name.

Example::

    w = paddle.attr.Param(initializer=paddle.initializer.msra())
    def ones(key, shape, dtype):
        return jnp.ones(shape, dtype)

    paddle.initializer.register_initializer("ones", ones)
    b = paddle.attr.Param(initializer="ones")
"""

from paddle_lite._src.initializers import Initializer, register_initializer


def constant(value: float = 0.0) -> Initializer:
    """Every element equals ``value``."""
    return Initializer("constant", (("value", float(value)),))


def gaussian(mean: float = 0.0, std: float = 1.0, value: float = 1.0) -> Initializer:
    """``value * N(mean, std)``."""
    return Initializer(
        "gaussian", (("mean", float(mean)), ("std", float(std)), ("value", float(value)))
    )


def uniform(low: float = -1.0, high: float = 1.0, value: float = 1.0) -> Initializer:
    """``value * U(low, high)``."""
    return Initializer(
        "uniform", (("low", float(low)), ("high", float(high)), ("value", float(value)))
    )


def gaussian_sqrt_fan_in(value: float = 1.0) -> Initializer:
    """``value * N(0, 1/sqrt(fan_in))`` (v2's default "smart" init)."""
    return Initializer("gaussian_sqrt_fan_in", (("value", float(value)),))


def uniform_sqrt_fan_in(value: float = 1.0) -> Initializer:
    """``value * U(-1/sqrt(fan_in), 1/sqrt(fan_in))``."""
    return Initializer("uniform_sqrt_fan_in", (("value", float(value)),))


def uniform_fan_in_out(value: float = 1.0) -> Initializer:
    """Glorot: ``value * U(-r, r)`` with ``r = sqrt(6 / (fan_in + fan_out))``."""
    return Initializer("uniform_fan_in_out", (("value", float(value)),))


def msra(value: float = 1.0) -> Initializer:
    """He / MSRA: ``value * N(0, sqrt(2 / fan_in))``."""
    return Initializer("msra", (("value", float(value)),))


glorot = xavier = uniform_fan_in_out
he = msra

__all__ = [
    "Initializer",
    "constant",
    "gaussian",
    "glorot",
    "gaussian_sqrt_fan_in",
    "he",
    "msra",
    "register_initializer",
    "uniform",
    "uniform_fan_in_out",
    "uniform_sqrt_fan_in",
    "xavier",
]
