"""Parameter initializers, selectable by name (SINGA's ``RegisterParamGenerator``).

An initializer function has the signature ``fn(key, shape, dtype, **kwargs) -> array``.
``register_initializer`` adds one under a name; ``Param(initializer="name")`` or
an ``Initializer`` object (``msra()``, ``constant(0.5)`` ... build the built-in
ones) selects it. Fan-in / fan-out follow the parameter
layout: ``[in, out]`` for matrices and ``[out, in, kh, kw]`` for convolution filters.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import zlib
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import ParameterError, did_you_mean
from paddle_lite._src.specs import InitSpec, ParamSpec

InitFn = Callable[..., Any]


def fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a parameter of this shape."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    field = math.prod(shape[2:])
    return shape[1] * field, shape[0] * field


def _constant(key, shape, dtype, value=0.0):
    del key
    return jnp.full(shape, value, dtype)


def _gaussian(key, shape, dtype, mean=0.0, std=1.0, value=1.0):
    return value * (mean + std * jax.random.normal(key, shape, dtype))


def _uniform(key, shape, dtype, low=-1.0, high=1.0, value=1.0):
    return value * jax.random.uniform(key, shape, dtype, low, high)


def _gaussian_sqrt_fan_in(key, shape, dtype, value=1.0):
    return _gaussian(key, shape, dtype, std=1.0 / math.sqrt(fans(shape)[0]), value=value)


def _uniform_sqrt_fan_in(key, shape, dtype, value=1.0):
    r = 1.0 / math.sqrt(fans(shape)[0])
    return _uniform(key, shape, dtype, -r, r, value)


def _uniform_fan_in_out(key, shape, dtype, value=1.0):
    fan_in, fan_out = fans(shape)
    r = math.sqrt(6.0 / (fan_in + fan_out))
    return _uniform(key, shape, dtype, -r, r, value)


def _msra(key, shape, dtype, value=1.0):
    return _gaussian(key, shape, dtype, std=math.sqrt(2.0 / fans(shape)[0]), value=value)


_REGISTRY: dict[str, InitFn] = {
    "constant": _constant,
    "gaussian": _gaussian,
    "normal": _gaussian,
    "uniform": _uniform,
    "gaussian_sqrt_fan_in": _gaussian_sqrt_fan_in,
    "uniform_sqrt_fan_in": _uniform_sqrt_fan_in,
    "uniform_fan_in_out": _uniform_fan_in_out,
    "glorot": _uniform_fan_in_out,
    "xavier": _uniform_fan_in_out,
    "msra": _msra,
    "he": _msra,
}


def register_initializer(name: str, fn: InitFn) -> None:
    """Make ``fn(key, shape, dtype, **kwargs) -> array`` selectable as ``name``."""
    if not isinstance(name, str) or not name:
        raise ParameterError(f"initializer name must be a non-empty str; received {name!r}.")
    if not callable(fn):
        raise ParameterError(f"initializer '{name}' must be callable; received {fn!r}.")
    _REGISTRY[name] = fn


def lookup(name: str) -> InitFn:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown initializer {name!r}; registered: {sorted(_REGISTRY)}."
            + did_you_mean(name, _REGISTRY)
        ) from None


@dataclasses.dataclass(frozen=True)
class Initializer:
    """A named initializer with its arguments; callable as ``init(key, shape, dtype)``."""

    name: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        lookup(self.name)

    def __call__(self, key, shape, dtype=jnp.float32):
        return lookup(self.name)(key, tuple(shape), dtype, **dict(self.kwargs))

    def to_init_spec(self) -> InitSpec:
        """The ``InitSpec`` a parameter stores for this initializer."""
        return InitSpec(strategy=self.name, kwargs=self.kwargs)


def name_key(key: jax.Array, name: str) -> jax.Array:
    """``key`` folded with a hash of ``name``: a key per name, stable under edits elsewhere."""
    return jax.random.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)


# the named initializers as objects (``paddle.initializer``) ------------------------
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


def param_key(seed: int, name: str) -> jax.Array:
    """The PRNG key of parameter ``name``: independent of creation order."""
    return name_key(jax.random.PRNGKey(seed), name)


def initialize(spec: ParamSpec, seed: int) -> np.ndarray:
    """A float32 numpy array of ``spec.shape`` initialised as ``spec.init`` says."""
    init = spec.init
    if init.strategy == "callable":
        value = np.asarray(init.fn(spec.name))
        return _checked(value, spec, init.describe())
    key = param_key(seed, spec.name)
    if init.kwargs or init.strategy not in ("gaussian", "uniform"):
        value = lookup(init.strategy)(key, spec.shape, jnp.float32, **dict(init.kwargs))
    elif init.strategy == "gaussian":
        if init.std == 0.0:
            return np.full(spec.shape, init.mean, np.float32)
        normal = _flat_draw(_normal_flat, key, spec.shape)
        value = np.float32(init.mean) + np.float32(init.std) * normal
    else:
        low, high = init.mean - init.std, init.mean + init.std
        value = _flat_draw(_uniform_flat, key, spec.shape, low, high)
    return _checked(np.asarray(value), spec, init.describe())


# The built-in gaussian and uniform draws come from one compiled program per power-of-two
# size instead of one per parameter shape (compiling those made creating a VGG take ~20 s).
# The values are the same: threefry's bits for element i depend only on the key and i, so a
# prefix of a longer draw, reshaped, equals the draw of the parameter's own shape.
@functools.partial(jax.jit, static_argnums=(1,))
def _normal_flat(key: jax.Array, n: int) -> jax.Array:
    return jax.random.normal(key, (n,), jnp.float32)


@functools.partial(jax.jit, static_argnums=(1,))
def _uniform_flat(key: jax.Array, n: int, low: float, high: float) -> jax.Array:
    return jax.random.uniform(key, (n,), jnp.float32, low, high)


def _flat_draw(draw: Callable[..., Any], key: jax.Array, shape: tuple[int, ...], *args: Any):
    size = math.prod(shape)
    n = 1 << max(size - 1, 0).bit_length()
    return np.asarray(draw(key, n, *args))[:size].reshape(shape)


def _checked(value: np.ndarray, spec: ParamSpec, how: str) -> np.ndarray:
    if value.size != spec.size:
        raise ParameterError(
            f"parameter '{spec.name}' (layer '{spec.owner}'): initializer {how} returned shape "
            f"{value.shape}; expected {spec.shape}."
        )
    return np.ascontiguousarray(value, dtype=np.float32).reshape(spec.shape)
