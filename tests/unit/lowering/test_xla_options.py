"""paddle_lite's programs compile with XLA's own convolutions on a CPU (``xla_options``)."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax import lax

from paddle_lite._src.lowering import xla_options


def _conv(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "OIHW", "NHWC")
    )


def _ynn_convolutions(hlo: str) -> int:
    """YNNPACK fusions whose computation holds a convolution."""
    called = re.findall(r"%ynn_fusion[.\d]* = .*?calls=(%[\w.\-]+)", hlo)
    bodies = {
        m.group(1): m.group(2) for m in re.finditer(r"\n(%[\w.\-]+) .*?\{(.*?)\n\}", hlo, re.S)
    }
    return sum(" convolution(" in bodies.get(name, "") for name in called)


def test_programs_compile_with_the_cpu_options_and_compute_the_same_values():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 12, 12, 20)).astype(np.float32)  # LeNet's second layer
    w = rng.standard_normal((50, 20, 5, 5)).astype(np.float32)
    want = np.einsum(
        "nhwcij,fcij->nhwf",
        np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (5, 5), axis=(1, 2)),
        w.astype(np.float64),
    )
    ours = xla_options.jit(_conv)
    with jax.default_matmul_precision("highest"):  # a GPU would otherwise use TF32
        np.testing.assert_allclose(ours(x, w), want, rtol=1e-4, atol=1e-3)
    if jax.default_backend() != "cpu":
        assert xla_options.options() == {}
        return
    options = xla_options.options()
    if not options:
        pytest.skip("this jaxlib does not take xla_cpu_experimental_ynn_fusion_type")
    assert options == xla_options.CPU_OPTIONS
    default = jax.jit(_conv).lower(x, w).compile().as_text()
    if not _ynn_convolutions(default):
        pytest.skip("this jaxlib's XLA:CPU does not hand convolutions to YNNPACK")
    assert _ynn_convolutions(ours.lower(x, w).compile().as_text()) == 0
