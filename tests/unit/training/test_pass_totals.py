"""Pass totals packed one vector per dtype: the same sums, bit for bit, as the tree."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from paddle_lite._src.training import pass_totals
from paddle_lite.errors import TopologyError


def _tree(rng: np.random.Generator) -> tuple:
    return (
        rng.standard_normal((), np.float32),
        [
            {"errors": rng.standard_normal((), np.float32), "n": rng.integers(0, 9, (), np.int32)},
            {"hist": rng.standard_normal((2, 3), np.float32), "k": rng.integers(0, 9, 4, np.int32)},
        ],
    )


def test_packed_sums_equal_the_tree_sums_bit_for_bit_on_host_and_in_jit():
    rng = np.random.default_rng(0)
    zeros = jax.tree_util.tree_map(np.zeros_like, _tree(rng))
    batches = [_tree(rng) for _ in range(20)]
    want = zeros
    for b in batches:
        want = jax.tree_util.tree_map(np.add, want, b)
    packed = pass_totals.pack(zeros)
    assert [(v.dtype, v.shape) for v in packed] == [(np.float32, (8,)), (np.int32, (5,))]
    add = jax.jit(pass_totals.add, donate_argnums=(0,))
    on_device = jax.device_put(packed)
    for b in batches:
        packed = pass_totals.add(packed, b)
        on_device = add(on_device, jax.tree_util.tree_map(jnp.asarray, b))
    for vectors in (packed, on_device):
        got = pass_totals.unpack(vectors, pass_totals.layout(zeros))
        assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
        for g, w in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            assert g.dtype == w.dtype and g.shape == w.shape
            assert g.tobytes() == w.tobytes()


def test_statistics_of_another_shape_are_refused():
    zeros = (np.float32(0), [{"hist": np.zeros(3, np.float32)}])
    with pytest.raises(TopologyError, match=r"packed \[\(4,\)\].*packed \[\(5,\)\]"):
        pass_totals.add(
            pass_totals.pack(zeros), (np.float32(1), [{"hist": np.ones(4, np.float32)}])
        )
