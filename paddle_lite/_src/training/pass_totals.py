"""A pass's running totals packed into one vector per dtype.

A training step adds its batch's ``(cost_sum, stats)`` to the pass totals it carries.
Kept as a tree, every scalar is an argument, an output and an addition of its own in
the compiled step; packed, the totals are one float32 vector (and one int32 vector
when an evaluator counts in integers): one argument, one fused addition. The
addition is the same elementwise float32 (int32) addition, so the sums are exact
to the bit as before. The packed totals are a plain tuple of arrays (JAX flattens it
on its fast path); the ``layout`` that unpacks them is derived from the tree.

Example:
    >>> import numpy as np
    >>> zeros = (np.float32(0), [{"errors": np.float32(0), "n": np.int32(0)}])
    >>> packed = add(pack(zeros), (np.float32(1.5), [{"errors": np.float32(2), "n": np.int32(3)}]))
    >>> unpack(packed, layout(zeros))
    (array(1.5, dtype=float32), [{'errors': array(2., dtype=float32), 'n': array(3, dtype=int32)}])
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import TopologyError

Layout = tuple[Any, tuple[Any, ...], tuple[tuple[int, int, tuple[int, ...]], ...]]


def layout(tree: Any) -> Layout:
    """``(treedef, dtypes, places)`` of ``tree``: a place ``(group, offset, shape)`` per
    leaf, one group per dtype in order of first appearance."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    dtypes: list[Any] = []
    sizes: list[int] = []
    places = []
    for leaf in leaves:
        dtype = np.dtype(leaf.dtype)
        if dtype not in dtypes:
            dtypes.append(dtype)
            sizes.append(0)
        g = dtypes.index(dtype)
        places.append((g, sizes[g], tuple(np.shape(leaf))))
        sizes[g] += _size(np.shape(leaf))
    return treedef, tuple(dtypes), tuple(places)


def pack(tree: Any) -> tuple[Any, ...]:
    """Host values of ``tree`` packed: one numpy vector per dtype."""
    return _vectors(layout(tree), jax.tree_util.tree_leaves(tree), np)


def add(vectors: tuple[Any, ...], tree: Any) -> tuple[Any, ...]:
    """Packed ``vectors`` plus ``tree`` (packed alike; traced or host values)."""
    xp = np if all(isinstance(v, np.ndarray) for v in vectors) else jnp
    batch = _vectors(layout(tree), jax.tree_util.tree_leaves(tree), xp)
    if [v.shape for v in batch] != [v.shape for v in vectors]:
        raise TopologyError(
            f"the pass totals (packed {[v.shape for v in vectors]}) cannot take this batch's "
            f"cost and evaluator statistics (packed {[v.shape for v in batch]}): an "
            "evaluator's statistics changed shape within the pass."
        )
    return tuple(a + b.astype(a.dtype) for a, b in zip(vectors, batch, strict=True))


def unpack(vectors: tuple[Any, ...], packed: Layout) -> Any:
    """The tree ``vectors`` hold (host numpy values), laid out as ``packed``."""
    treedef, _, places = packed
    host = [np.asarray(v) for v in vectors]
    leaves = [host[g][o : o + _size(s)].reshape(s) for g, o, s in places]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def _size(shape: Any) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _vectors(packed: Layout, leaves: list[Any], xp: Any) -> tuple[Any, ...]:
    """``leaves`` (in ``packed``'s order) as one 1-D vector per dtype group."""
    _, dtypes, places = packed
    parts: list[list[Any]] = [[] for _ in dtypes]
    for (g, _, _), leaf in zip(places, leaves, strict=True):
        parts[g].append(xp.ravel(xp.asarray(leaf)).astype(dtypes[g]))
    return tuple(xp.concatenate(p) for p in parts)
