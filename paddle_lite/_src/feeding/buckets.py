"""Padded lengths of the sequence time axis (``paddle.init(seq_buckets=...)``).

A batch of sequences is padded to the length of a *bucket* at or above its longest
sequence, so a pass over ragged data compiles once per bucket, not once per batch.
The ladder trades compilations against padded (wasted) steps:

- ``"default"``: powers of two up to 16, multiples of 16 up to 256, then a geometric
  ladder of ratio at most 1.25 on multiples of 16 (320, 400, 496, 608, 752, 928, 1152, ...):
  under 20% of padded steps wasted above 256, one compilation per bucket, about 30
  buckets up to 2,000.
- ``"pow2"``: powers of two (few compilations, up to half the steps wasted).
- an int ``m``: multiples of ``m``.
- a list of lengths: those buckets; a sequence longer than the last pads to its own
  length.
- a callable ``f(n) -> padded length >= n``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from paddle_lite._src.errors import ConfigError

Policy = Callable[[int], int]


def pow2(n: int) -> int:
    """The smallest power of two >= max(n, 1)."""
    n = max(int(n), 1)
    return 1 << (n - 1).bit_length()


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def default_ladder(n: int) -> int:
    """The default bucket of length ``n`` (see the module docstring)."""
    n = max(int(n), 1)
    if n <= 16:
        return pow2(n)
    if n <= 256:
        return _round_up(n, 16)
    b = 256
    while b < n:
        b = int(b * 1.25) // 16 * 16  # rounded down: each step at most 1.25 times the last
    return b


def _multiples(m: int) -> Policy:
    return lambda n: _round_up(max(int(n), 1), m)


def _listed(ladder: list[int]) -> Policy:
    def policy(n: int) -> int:
        n = max(int(n), 1)
        i = bisect.bisect_left(ladder, n)
        return ladder[i] if i < len(ladder) else n

    return policy


def make_policy(spec: Any) -> Policy:
    """The bucket function that ``spec`` (a ``seq_buckets`` value) describes."""
    if spec is None or spec == "default":
        return default_ladder
    if spec == "pow2":
        return pow2
    if isinstance(spec, int) and not isinstance(spec, bool) and spec > 0:
        return _multiples(spec)
    if isinstance(spec, (list, tuple)) and spec:
        ladder = sorted(int(b) for b in spec)
        if any(isinstance(b, bool) or not isinstance(b, int) for b in spec) or ladder[0] < 1:
            raise ConfigError(f"seq_buckets lengths must be positive ints; received {spec!r}.")
        return _listed(ladder)
    if callable(spec):
        return _checked(spec)
    raise ConfigError(
        "seq_buckets must be 'default', 'pow2', a positive int (multiples of it), a list of "
        f"lengths or a callable n -> padded length; received {spec!r}."
    )


def _checked(fn: Callable[[int], Any]) -> Policy:
    def policy(n: int) -> int:
        out = fn(n)
        if isinstance(out, bool) or not isinstance(out, int) or out < max(n, 1):
            raise ConfigError(
                f"the seq_buckets function returned {out!r} for length {n}; expected an int "
                f">= {max(n, 1)}."
            )
        return out

    return policy


def waste(lengths: list[int], batch: int, policy: Policy) -> float:
    """Fraction of padded steps in batches of ``batch`` consecutive ``lengths``."""
    padded = real = 0
    for i in range(0, len(lengths), batch):
        group = lengths[i : i + batch]
        padded += policy(max(group)) * len(group)
        real += sum(group)
    return 1.0 - real / padded if padded else 0.0
