"""v2's ``int64(n * x)`` for an int ``n`` and a float64 constant ``x``, on the device.

v2's C++ takes some counts as ``(int64_t)(n * x)`` with ``x`` a protobuf ``double``
(``AverageOptimizer``'s ``numUpdates_ * average_window``). JAX computes without float64
here, and float32 moves the result by one where ``n * x`` is within float32 rounding of
a whole number (``90 * 0.7`` is 62.99999999999999 in float64, 63 in float32). So the
product is formed exactly from 16-bit limbs in uint32 arithmetic: ``x = M / 2**E``
with ``M`` a 53-bit integer, ``P = n * M``; the result is ``P >> E``, plus one where
float64 rounding of ``P / 2**E`` reaches the next whole number.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

INT32_MAX = 2**31 - 1
_LIMB = 16
_MASK = (1 << _LIMB) - 1


def _fraction(x: float) -> tuple[int, int]:
    """``(M, E)`` with ``x == M / 2**E`` exactly, ``E >= 0`` as small as possible."""
    mantissa, exponent = math.frexp(x)
    m, e = int(mantissa * 2**53), 53 - exponent
    while e > 0 and m % 2 == 0:
        m, e = m // 2, e - 1
    return (m << -e, 0) if e < 0 else (m, e)


def _limbs_of(m: int) -> list[int]:
    out = []
    while m:
        out.append(m & _MASK)
        m >>= _LIMB
    return out or [0]


def _product(n: jnp.ndarray, m: int) -> list[jnp.ndarray]:
    """``n * m`` (``n`` a uint32 < 2**31, ``m`` a Python int) as 16-bit uint32 limbs."""
    ns, ms = [n & _MASK, n >> _LIMB], _limbs_of(m)
    acc = [jnp.zeros_like(n) for _ in range(len(ns) + len(ms) + 1)]
    for i, a in enumerate(ns):
        for j, b in enumerate(ms):
            term = a * jnp.uint32(b)  # < 2**32: each factor has 16 bits
            acc[i + j] = acc[i + j] + (term & _MASK)
            acc[i + j + 1] = acc[i + j + 1] + (term >> _LIMB)
    for k in range(len(acc) - 1):  # carries: every column stays far below 2**32
        acc[k + 1] = acc[k + 1] + (acc[k] >> _LIMB)
        acc[k] = acc[k] & _MASK
    return acc


def _bits(limbs: list[jnp.ndarray], lo: int, width: int) -> jnp.ndarray:
    """Bits ``[lo, lo + width)`` of the limbs as one uint32 (``width <= 32``)."""
    out = jnp.zeros_like(limbs[0])
    for i, limb in enumerate(limbs):
        start = i * _LIMB - lo  # where this limb's bit 0 lands in the result
        if start >= width or start + _LIMB <= 0:
            continue
        out = out | (limb >> -start if start < 0 else limb << start)
    return out & jnp.uint32((1 << width) - 1) if width < 32 else out


def _bit_length(limbs: list[jnp.ndarray], width: int) -> jnp.ndarray:
    """Bit length (int32) of the low ``width`` bits of the limbs."""
    length = jnp.int32(0)
    for lo in range(0, width, 32):
        chunk = _bits(limbs, lo, min(32, width - lo))
        here = jnp.int32(lo + 32) - jax.lax.clz(chunk).astype(jnp.int32)
        length = jnp.where(chunk != 0, here, length)
    return length


def int_times_double(n: jnp.ndarray, x: float) -> jnp.ndarray:
    """``(int64)(n * x)`` as C++ computes it in float64, saturated to int32.

    Args:
        n: a non-negative int32 scalar (traced).
        x: a non-negative float (static; a Python float is a float64).

    Returns:
        An int32 scalar: ``n * x`` rounded to float64, then truncated; ``INT32_MAX``
        where that exceeds it.

    Example:
        >>> int(int_times_double(jnp.int32(90), 0.7))
        62
    """
    if not x > 0:
        return jnp.zeros_like(n)
    m, e = _fraction(float(x))
    limbs = _product(n.astype(jnp.uint32), m)
    whole = _bits(limbs, e, 31).astype(jnp.int32)
    over = _bits(limbs, e + 31, 32) != 0 if len(limbs) * _LIMB > e + 31 else False
    # float64 rounding reaches whole + 1 when the fraction's complement is at most
    # half an ulp of the result: its top 53 - k bits are all ones (k = floor(log2 P/2**E))
    k = jnp.where(whole > 0, 31 - jax.lax.clz(whole), -1)
    half_ulp = e + k - 53  # log2 of half an ulp, in units of 2**-E
    complement = [~limb & _MASK for limb in limbs]
    up = (half_ulp >= 0) & (_bit_length(complement, e) <= half_ulp)
    result = jnp.where(up & (whole < INT32_MAX), whole + 1, whole)
    return jnp.where(over, INT32_MAX, result)
