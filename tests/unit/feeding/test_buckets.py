"""Sequence bucket ladders: the lengths they pad to, their waste, their checks."""

import numpy as np
import pytest

from paddle_lite._src.feeding.buckets import default_ladder, make_policy, pow2, waste
from paddle_lite.errors import ConfigError


def test_default_ladder():
    got = [default_ladder(n) for n in (0, 1, 3, 16, 17, 33, 256, 257, 321, 401, 513, 1000)]
    assert got == [1, 1, 4, 16, 32, 48, 256, 320, 400, 496, 608, 1152]


def test_every_bucket_covers_its_length_and_wastes_little_above_256():
    for n in range(1, 3000):
        b = default_ladder(n)
        assert b >= n and (n <= 256 or (b - n) / b < 0.2) and (b <= 16 or b % 16 == 0)
    assert len({default_ladder(n) for n in range(1, 2001)}) <= 30


def test_pow2_and_other_policies():
    assert [pow2(n) for n in (0, 1, 2, 3, 5, 8, 9)] == [1, 1, 2, 4, 8, 8, 16]
    assert [make_policy(16)(n) for n in (1, 16, 17)] == [16, 16, 32]
    assert [make_policy([8, 20])(n) for n in (3, 9, 21)] == [8, 20, 21]
    assert make_policy(lambda n: n + 1)(4) == 5


@pytest.mark.parametrize("spec", ["tight", 0, -4, [0, 4], [2.5], True, 1.5])
def test_bad_policies_are_config_errors(spec):
    with pytest.raises(ConfigError, match="seq_buckets"):
        make_policy(spec)


def test_a_function_returning_less_than_the_length_is_refused():
    with pytest.raises(ConfigError, match="returned 3 for length 4"):
        make_policy(lambda n: 3)(4)


def test_default_pads_a_long_tail_far_less_than_powers_of_two():
    rng = np.random.default_rng(0)
    lengths = np.minimum(rng.lognormal(5.1, 0.6, 4000).astype(int) + 1, 2500).tolist()
    tight, coarse = waste(lengths, 1, default_ladder), waste(lengths, 1, pow2)
    assert tight < 0.1 < 0.2 < coarse
