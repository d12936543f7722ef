"""Numeric precision of the compiled steps (``paddle.init(precision=...)``).

- ``"float32"`` (default): float32 everywhere and full-precision float32 matrix
  products and convolutions, as v2 computed. On GPUs XLA would otherwise use TF32
  (about 3 significant digits fewer).
- ``"tf32"``: float32 values, matrix products and convolutions in TF32 on GPUs that
  have it (XLA's fast default there; identical to ``"float32"`` on a CPU).
- ``"bfloat16"``: mixed precision. Parameters, optimizer state, gradients' updates,
  costs and evaluator statistics stay float32; the layers compute in bfloat16 (their
  float inputs and parameters are cast on the way in, and the gradients flow back
  through the casts to the float32 parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import ConfigError

PRECISIONS = ("float32", "tf32", "bfloat16")
_MATMUL = {"float32": "highest", "tf32": "default", "bfloat16": "default"}


def check(precision: Any) -> str:
    """``precision`` if it is one of ``PRECISIONS``, else a ``ConfigError``."""
    if precision not in PRECISIONS:
        raise ConfigError(
            f"precision must be one of {list(PRECISIONS)}; received {precision!r}. "
            "'float32' computes as v2 did; 'tf32' and 'bfloat16' trade digits for speed on GPUs."
        )
    return precision


def matmul_precision(precision: str) -> str:
    """The ``jax.default_matmul_precision`` value that implements ``precision``."""
    return _MATMUL[check(precision)]


def compute_dtype(precision: str) -> Any:
    """The dtype layers compute in."""
    return jnp.bfloat16 if check(precision) == "bfloat16" else jnp.float32


def cast_floats(tree: Any, dtype: Any) -> Any:
    """``tree`` with every float32 leaf cast to ``dtype`` (ids and lengths untouched)."""
    if dtype == jnp.float32:
        return tree

    def cast(leaf: Any) -> Any:
        return leaf.astype(dtype) if getattr(leaf, "dtype", None) == jnp.float32 else leaf

    return jax.tree_util.tree_map(cast, tree)


def to_float32(tree: Any) -> Any:
    """``tree`` with every floating leaf cast back to float32."""

    def cast(leaf: Any) -> Any:
        dtype = getattr(leaf, "dtype", None)
        if dtype is not None and jnp.issubdtype(dtype, jnp.floating) and dtype != jnp.float32:
            return leaf.astype(jnp.float32)
        return leaf

    return jax.tree_util.tree_map(cast, tree)


def computed_at(precision: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(params, feeds, *rest)`` computed at ``precision``: float parameters and feeds
    cast to the compute dtype, matrix products at its precision, float outputs float32."""
    dtype, matmul = compute_dtype(precision), matmul_precision(precision)

    def at_precision(params: Any, feeds: Any, *rest: Any) -> Any:
        params, feeds = cast_floats(params, dtype), cast_floats(feeds, dtype)
        with jax.default_matmul_precision(matmul):
            out = fn(params, feeds, *rest)
        return to_float32(out)

    return at_precision
