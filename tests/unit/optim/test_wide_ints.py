"""wide_ints.int_times_double against numpy's float64 product, truncated."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from paddle_lite._src.optim.wide_ints import INT32_MAX, int_times_double

EDGES = [0, 1, 9, 10, 90, 2**24, 2**24 + 1, 2**30, 2**31 - 2, 2**31 - 1]
N = np.concatenate(
    [np.arange(1 << 14), np.random.default_rng(0).integers(0, 2**31 - 1, 1 << 14), EDGES]
).astype(np.int32)


@pytest.mark.parametrize(
    "x", [0.7, 0.35, 0.999, 0.123456789, 1 / 3, 0.5, 1.0, 1e-5, 1.5e-9, 2.5, 7.77, 0.0]
)
def test_matches_the_float64_product_truncated(x):
    got = np.asarray(jax.jit(jax.vmap(lambda n: int_times_double(n, x)))(N))
    want = np.minimum(np.trunc(N.astype(np.float64) * x), INT32_MAX).astype(np.int64)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int32


def test_float64_rounding_up_to_a_whole_number_counts():
    # 10 * 0.7 is 6.99999999999999955... exactly, which float64 rounds to 7.0
    assert int(int_times_double(jnp.int32(10), 0.7)) == 7
    assert int(int_times_double(jnp.int32(90), 0.7)) == 62  # 62.99999999999999 stays below
