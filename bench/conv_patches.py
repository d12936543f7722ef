"""First-layer convolutions on this machine: XLA's own against patches times a matrix.

``python -m bench.conv_patches [--reps 15]`` times, for the first convolution of the
book's image networks (a grey or RGB image in NHWC), what a training step computes
there: the forward convolution and its filter gradient (the image needs no gradient),
once with ``lax.conv_general_dilated`` and once with paddle_lite's
``conv._patches_conv``, then the same for a few deeper layers (with the image's
gradient too). Each row prints the median milliseconds of both and the
speed ratio. It is why ``img_conv`` over at most 3 channels runs as patches on a CPU.
Both sides compile with paddle_lite's XLA options (``xla_options``: XLA's own
convolutions, not YNNPACK's).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax import lax

from paddle_lite._src.layers.image.conv import _patches_conv
from paddle_lite._src.lowering import xla_options

# (name, NHWC image batch, OIHW filter, stride, padding)
CASES = [
    ("LeNet-5 conv 1, batch 128", (128, 28, 28, 1), (20, 1, 5, 5), 1, 0),
    ("CIFAR 3x3 over RGB, batch 32", (32, 32, 32, 3), (16, 3, 3, 3), 1, 1),
    ("CIFAR 3x3 over RGB, batch 128", (128, 32, 32, 3), (16, 3, 3, 3), 1, 1),
    ("CIFAR 5x5 over RGB, batch 64", (64, 32, 32, 3), (32, 3, 5, 5), 1, 2),
]

# deeper layers (forward + both gradients), where patches are not used
DEEPER = [
    ("LeNet-5 conv 2, batch 128", (128, 12, 12, 20), (50, 20, 5, 5), 1, 0),
    ("3x3 over 16 at 32x32, batch 32", (32, 32, 32, 16), (16, 16, 3, 3), 1, 1),
    ("3x3 over 64 at 8x8, batch 32", (32, 8, 8, 64), (64, 64, 3, 3), 1, 1),
    ("5x5 over 16 at 32x32, batch 32", (32, 32, 32, 16), (16, 16, 5, 5), 1, 2),
]


def _xla(x: Any, w: Any, stride: tuple, padding: tuple, dilation: tuple) -> Any:
    pads = [(p, p) for p in padding]
    spec = ("NHWC", "OIHW", "NHWC")
    return lax.conv_general_dilated(
        x, w, stride, pads, rhs_dilation=dilation, dimension_numbers=spec
    )


def _step(conv: Callable[..., Any], conf: tuple, deeper: bool) -> Callable[..., Any]:
    """The forward convolution and the filter gradient for the cotangent ``g`` (and the
    image's gradient for a ``deeper`` layer)."""

    def step(x: Any, w: Any, g: Any) -> Any:
        if deeper:
            y, pullback = jax.vjp(lambda x, w: conv(x, w, *conf), x, w)
        else:
            y, pullback = jax.vjp(lambda w: conv(x, w, *conf), w)
        return y, pullback(g)

    return xla_options.jit(step)  # compiled as paddle_lite compiles its programs


def _median_ms(fn: Callable[..., Any], args: tuple, reps: int) -> float:
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main(reps: int) -> None:
    rng = np.random.default_rng(0)
    print(f"jax {jax.__version__} on {jax.default_backend()}")
    for title, cases, deeper in (
        ("first layers: forward + filter gradient", CASES, False),
        ("deeper layers: forward + both gradients", DEEPER, True),
    ):
        print(title)
        for name, image, filt, s, p in cases:
            conf = ((s, s), (p, p), (1, 1))
            x = rng.normal(size=image).astype(np.float32)
            w = rng.normal(size=filt).astype(np.float32)
            g = rng.normal(size=np.shape(_xla(x, w, *conf))).astype(np.float32)
            xla = _median_ms(_step(_xla, conf, deeper), (x, w, g), reps)
            patches = _median_ms(_step(_patches_conv, conf, deeper), (x, w, g), reps)
            print(
                f"  {name:32s} XLA {xla:7.2f} ms  patches {patches:7.2f} ms  x{xla / patches:.2f}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=15)
    main(parser.parse_args().reps)
