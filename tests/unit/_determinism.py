"""Exact comparisons where XLA computes deterministically.

On a CPU XLA's programs are deterministic. On a GPU they are only with
``XLA_FLAGS=--xla_gpu_deterministic_ops=true``: measured on an H100 (jax 0.11.2), K = 3
steps per dispatch ended 1e-6 from K = 1 without it and a run resumed from a checkpoint
with an embedding 2e-9 from the uninterrupted one (repeated runs of one program agreed);
with the flag both were bit for bit. Where the flag is off, :func:`assert_same` compares
to float32 rounding instead.
"""

import os

import jax
import numpy as np

FLAG = "--xla_gpu_deterministic_ops=true"


def deterministic() -> bool:
    """Whether XLA computes bit for bit reproducibly here."""
    return jax.default_backend() == "cpu" or FLAG in os.environ.get("XLA_FLAGS", "")


def assert_same(got, want, err_msg=""):
    """``got == want`` bit for bit where :func:`deterministic`, else to float32 rounding."""
    if deterministic():
        np.testing.assert_array_equal(got, want, err_msg=err_msg)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7, err_msg=err_msg)
