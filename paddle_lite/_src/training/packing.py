"""A training state's leaves as the compiled step takes them: the small ones in one vector.

JAX's dispatch and XLA:CPU's runtime cost a few microseconds per argument and per
result, whatever its size, and a ``TrainState`` has many small leaves: the step, pass
and non-finite counters, the PRNG key, the optimizer's step and sample counts, the
pass totals, biases and their optimizer slots. A ``Packing`` carries every leaf
of at most ``SMALL`` 32-bit elements in one int32 vector (a float's or unsigned
int's bits reinterpreted, so every value comes back exactly) and every other leaf as
it is. The compiled step unpacks the vector on entry and packs it on exit, which XLA
fuses into the step's own work.

Example:
    >>> import numpy as np
    >>> leaves = [np.zeros((300,), np.float32), np.float32(1.5), np.array([7, -1], np.int32)]
    >>> packing = packing_of(None, leaves)
    >>> [np.shape(x) for x in pack(packing, leaves, host=True)]
    [(300,), (3,)]
    >>> [x.tolist() for x in unpack(packing, pack(packing, leaves, True), True)[1:]]
    [1.5, [7, -1]]
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.distributed.parallel import put_replicated, to_host

SMALL = 256  # the most elements a packed leaf has
_PACKED_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.int32, np.uint32))


class Packing(NamedTuple):
    """How the leaves of a state of structure ``tree`` travel (hashable: it keys the
    compiled run). ``small`` holds ``(index, shape, dtype)`` of each packed leaf, in
    order; ``leaf_count`` is the number of leaves."""

    tree: Any
    small: tuple[tuple[int, tuple[int, ...], np.dtype], ...]
    leaf_count: int


def packing_of(tree: Any, leaves: list[Any]) -> Packing:
    """The ``Packing`` of ``leaves`` (a state of structure ``tree``)."""
    small = tuple(
        (i, tuple(np.shape(x)), np.dtype(x.dtype))
        for i, x in enumerate(leaves)
        if np.dtype(x.dtype) in _PACKED_DTYPES and np.size(x) <= SMALL
    )
    return Packing(tree, small, len(leaves))


def pack(packing: Packing, leaves: list[Any], host: bool = False) -> list[Any]:
    """``leaves`` as the compiled step takes them: the large ones, then the vector of
    the small ones (when there are any). Traced, or built on the ``host`` from any
    values (a host read of the small ones, no compilation) and put on the device."""
    indices = {i for i, _, _ in packing.small}
    large = [x for i, x in enumerate(leaves) if i not in indices]
    if host:  # host values among the large ones go to the device too
        large = [x if isinstance(x, jax.Array) else put_replicated(x) for x in large]
    if not indices:
        return large
    small = [leaves[i] for i, _, _ in packing.small]
    return [*large, put_replicated(_host_vector(small)) if host else _vector(small)]


def unpack(packing: Packing, packed: list[Any], host: bool = False) -> list[Any]:
    """The leaves that ``pack`` packed into ``packed``, in their order; with
    ``host``, the small ones as numpy arrays (a host read of the vector)."""
    if not packing.small:
        return list(packed)
    *large, vector = packed
    split = _host_split if host else _split
    small = iter(split(packing, to_host(vector) if host else vector))
    rest = iter(large)
    indices = {i for i, _, _ in packing.small}
    return [next(small) if i in indices else next(rest) for i in range(packing.leaf_count)]


def on_device(packing: Packing, leaves: list[Any]) -> list[Any]:
    """Leaves that ``unpack`` read to the host, their small ones put back on the
    device (one put): as the compiled functions took them before (a numpy argument
    where a device array was passed before misses JAX's dispatch cache: a second
    entry, its first call on JAX's slow path)."""
    indices = [i for i, _, _ in packing.small]
    out = list(leaves)
    for i, x in zip(indices, put_replicated([leaves[i] for i in indices]), strict=True):
        out[i] = x
    return out


def _vector(small: list[Any]) -> Any:
    return jnp.concatenate([_bits(jnp.ravel(x)) for x in small])


def _bits(x: Any) -> Any:
    return x if x.dtype == jnp.int32 else jax.lax.bitcast_convert_type(x, jnp.int32)


def _split(packing: Packing, vector: Any) -> list[Any]:
    return [
        jax.lax.bitcast_convert_type(jax.lax.slice(vector, (a,), (b,)), dtype).reshape(shape)
        for a, b, shape, dtype in _spans(packing)
    ]


def _host_vector(small: list[Any]) -> np.ndarray:
    host = to_host(small)
    return np.concatenate([np.ascontiguousarray(x).reshape(-1).view(np.int32) for x in host])


def _host_split(packing: Packing, vector: np.ndarray) -> list[np.ndarray]:
    return [vector[a:b].view(dtype).reshape(shape).copy() for a, b, shape, dtype in _spans(packing)]


def _spans(packing: Packing) -> list[tuple[int, int, tuple[int, ...], np.dtype]]:
    """``(start, stop, shape, dtype)`` of each packed leaf in the vector."""
    out, offset = [], 0
    for _, shape, dtype in packing.small:
        stop = offset + _size(shape)
        out.append((offset, stop, shape, dtype))
        offset = stop
    return out


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)  # np.prod of a tuple costs ~5 us
