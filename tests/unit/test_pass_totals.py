"""Pass totals packed one vector per dtype: the same sums, bit for bit, as the tree."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.pass_totals import Totals


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
    packed = Totals.pack(zeros)
    assert [v.dtype for v in packed.vectors] == [np.float32, np.int32]
    assert [v.shape for v in packed.vectors] == [(8,), (5,)]
    add = jax.jit(lambda t, b: t.add(b), donate_argnums=(0,))
    on_device = jax.device_put(packed)
    for b in batches:
        packed = packed.add(b)
        on_device = add(on_device, jax.tree_util.tree_map(jnp.asarray, b))
    for got in (packed.tree(), on_device.tree()):
        assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
        for g, w in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            assert g.dtype == w.dtype and g.shape == w.shape
            assert g.tobytes() == w.tobytes()
    assert on_device[0] == want[0] and on_device[1][1]["k"].tolist() == want[1][1]["k"].tolist()
