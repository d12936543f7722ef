"""Parameter initializers, selectable by object or by registered name.

Example:
    ```python
    w = paddle.attr.Param(initializer=paddle.initializer.msra())
    def ones(key, shape, dtype):
        return jnp.ones(shape, dtype)

    paddle.initializer.register_initializer("ones", ones)
    b = paddle.attr.Param(initializer="ones")
    ```
"""

from paddle_lite._src.initializers import (
    Initializer,
    constant,
    gaussian,
    gaussian_sqrt_fan_in,
    glorot,
    he,
    msra,
    register_initializer,
    uniform,
    uniform_fan_in_out,
    uniform_sqrt_fan_in,
    xavier,
)

__all__ = [
    "Initializer",
    "constant",
    "gaussian",
    "gaussian_sqrt_fan_in",
    "glorot",
    "he",
    "msra",
    "register_initializer",
    "uniform",
    "uniform_fan_in_out",
    "uniform_sqrt_fan_in",
    "xavier",
]
