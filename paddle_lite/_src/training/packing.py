"""A training state's leaves as the compiled step takes them: the small ones in one vector.

JAX's dispatch and XLA:CPU's runtime cost a few microseconds per argument and per
result, whatever its size, and a ``TrainState`` has many small leaves: the step, pass
and non-finite counters, the PRNG key, the optimizer's step and sample counts, the
pass totals, biases and their optimizer slots. A :class:`Packing` carries every leaf
of at most ``SMALL`` 32-bit elements in one int32 vector (a float's or unsigned
int's bits reinterpreted, so every value comes back exactly) and every other leaf as
it is. The compiled step unpacks the vector on entry and packs it on exit, which XLA
fuses into the step's own work.

Example:
    >>> import numpy as np
    >>> leaves = [np.zeros((300,), np.float32), np.float32(1.5), np.array([7, -1], np.int32)]
    >>> packing = packing_of(None, leaves)
    >>> [np.shape(x) for x in pack(packing, leaves, eager=True)]
    [(300,), (3,)]
    >>> [np.asarray(x).tolist() for x in unpack(packing, pack(packing, leaves, True), True)][1:]
    [1.5, [7, -1]]
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

SMALL = 256  # the most elements a packed leaf has
_PACKED_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.uint32))


class Packing(NamedTuple):
    """How the leaves of a state of structure ``tree`` travel (hashable: it keys the
    compiled run). ``small`` holds ``(index, shape, dtype)`` of each packed leaf, in
    order; ``count`` is the number of leaves."""

    tree: Any
    small: tuple[tuple[int, tuple[int, ...], np.dtype], ...]
    count: int


def packing_of(tree: Any, leaves: list[Any]) -> Packing:
    """The :class:`Packing` of ``leaves`` (a state of structure ``tree``)."""
    small = tuple(
        (i, tuple(np.shape(x)), np.dtype(x.dtype))
        for i, x in enumerate(leaves)
        if np.dtype(x.dtype) in _PACKED_DTYPES and np.size(x) <= SMALL
    )
    return Packing(tree, small, len(leaves))


def pack(packing: Packing, leaves: list[Any], eager: bool = False) -> list[Any]:
    """``leaves`` as the compiled step takes them: the large ones, then the vector of
    the small ones (when there are any). Traced, or ``eager`` on device or host values
    (one compiled call)."""
    if not packing.small:
        return list(leaves)
    small = tuple(leaves[i] for i, _, _ in packing.small)
    vector = (_vector_eager if eager else _vector)(packing, small)
    indices = {i for i, _, _ in packing.small}
    return [*(x for i, x in enumerate(leaves) if i not in indices), vector]


def unpack(packing: Packing, packed: list[Any], eager: bool = False) -> list[Any]:
    """The leaves that :func:`pack` packed into ``packed``, in their order."""
    if not packing.small:
        return list(packed)
    *large, vector = packed
    small = iter((_small_eager if eager else _small)(packing, vector))
    rest = iter(large)
    indices = {i for i, _, _ in packing.small}
    return [next(small) if i in indices else next(rest) for i in range(packing.count)]


def _vector(packing: Packing, small: tuple[Any, ...]) -> Any:
    return jnp.concatenate([_bits(jnp.ravel(jnp.asarray(x))) for x in small])


def _small(packing: Packing, vector: Any) -> list[Any]:
    out, offset = [], 0
    for _, shape, dtype in packing.small:
        size = int(np.prod(shape, dtype=np.int64))
        bits = jax.lax.slice(vector, (offset,), (offset + size,))
        out.append(jax.lax.bitcast_convert_type(bits, dtype).reshape(shape))
        offset += size
    return out


def _bits(x: Any) -> Any:
    return x if x.dtype == jnp.int32 else jax.lax.bitcast_convert_type(x, jnp.int32)


_vector_eager = jax.jit(_vector, static_argnums=0)
_small_eager = jax.jit(_small, static_argnums=0)
