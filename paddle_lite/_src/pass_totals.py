"""A pass's running totals packed into one vector per dtype (a jax pytree).

A training step adds its batch's ``(cost_sum, stats)`` to the pass totals it carries.
Kept as a tree, every scalar is an argument, an output and an addition of its own in
the compiled step; packed, the totals are one float32 vector (and one int32 vector
when an evaluator counts in integers): one argument, one fused addition. The
addition is the same elementwise float32 (int32) addition, so the sums are exact
to the bit as before, and :meth:`Totals.tree` gives back the tree a checkpoint keeps.

Example:
    >>> import numpy as np
    >>> t = Totals.pack((np.float32(0), [{"errors": np.float32(0), "n": np.int32(0)}]))
    >>> t = t.add((np.float32(1.5), [{"errors": np.float32(2), "n": np.int32(3)}]))
    >>> t[1][0]["n"], float(t[0])
    (array(3, dtype=int32), 1.5)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.distributed import to_host


def _layout(tree: Any) -> tuple[Any, tuple[Any, ...], tuple[tuple[int, int, tuple], ...]]:
    """``(treedef, dtypes, places)``: a place ``(group, offset, shape)`` per leaf."""
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
        sizes[g] += int(np.prod(np.shape(leaf), dtype=np.int64))
    return treedef, tuple(dtypes), tuple(places)


@jax.tree_util.register_pytree_node_class
class Totals:
    """``(cost_sum, stats)`` as one vector per dtype; ``totals[i]`` reads item ``i``
    of the tree on the host (``totals[0]`` the cost sum, ``totals[1]`` the stats)."""

    def __init__(self, vectors: tuple[Any, ...], layout: tuple[Any, ...]) -> None:
        self.vectors = tuple(vectors)
        self.layout = layout

    def tree_flatten(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return self.vectors, self.layout

    @classmethod
    def tree_unflatten(cls, layout: tuple[Any, ...], vectors: Any) -> Totals:
        return cls(tuple(vectors), layout)

    @classmethod
    def pack(cls, tree: Any) -> Totals:
        """Host values of ``tree`` packed (numpy)."""
        layout = _layout(tree)
        return cls(_vectors(layout, jax.tree_util.tree_leaves(tree), np), layout)

    def add(self, tree: Any) -> Totals:
        """These totals plus ``tree`` (shaped as the packed tree; traced or host)."""
        xp = np if all(isinstance(v, np.ndarray) for v in self.vectors) else jnp
        batch = _vectors(self.layout, jax.tree_util.tree_leaves(tree), xp)
        return Totals(tuple(a + b for a, b in zip(self.vectors, batch, strict=True)), self.layout)

    def tree(self) -> Any:
        """The packed tree, as numpy values on the host."""
        treedef, _, places = self.layout
        vectors = [np.asarray(v) for v in to_host(self.vectors)]
        leaves = [vectors[g][o : o + _size(s)].reshape(s) for g, o, s in places]
        return jax.tree_util.tree_unflatten(treedef, leaves)

    def __getitem__(self, i: int) -> Any:
        return self.tree()[i]


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _vectors(layout: tuple[Any, ...], leaves: list[Any], xp: Any) -> tuple[Any, ...]:
    """``leaves`` (in ``layout``'s order) as one 1-D vector per dtype group."""
    _, dtypes, places = layout
    parts: list[list[Any]] = [[] for _ in dtypes]
    for (g, _, _), leaf in zip(places, leaves, strict=True):
        parts[g].append(xp.ravel(xp.asarray(leaf)).astype(dtypes[g]))
    return tuple(xp.concatenate(p) for p in parts)
