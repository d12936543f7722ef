"""Plain-JAX step time of conv nets by image layout and pooling, on this machine.

``python -m bench.conv_layout [--reps 7] [--steps 8]`` times one training step (loss,
gradients, SGD update; jitted, buffers donated) of

- LeNet-5 (batch 128, 28x28): NCHW with ``reduce_window`` pools (what paddle_lite ran
  before its tiled pools), NCHW with reshape + max pools, and NHWC with reshape + max
  pools (the image transposed once at the input and back to CHW before ``fc``, so the
  ``fc`` weights keep v2's order);
- a ResNet stage (batch 32, 16 channels 32x32, three basic blocks with batch norm),
  NCHW against NHWC (one transpose at each end).

The variants run interleaved, in a rotating order, ``--reps`` times; each ratio is taken
within a repetition against the NCHW variant and the median and spread (min..max)
printed. Used to decide whether paddle_lite should switch conv chains to NHWC.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _conv(x: Any, w: Any, layout: str, pad: int = 0) -> Any:
    """``w`` is OIHW whatever the layout, as v2 stores filters; ``NCHW-in-NHWC`` keeps
    NCHW between layers and transposes around each NHWC convolution."""
    if layout == "NCHW-in-NHWC":
        y = _conv(x.transpose(0, 2, 3, 1), w, "NHWC", pad)
        return y.transpose(0, 3, 1, 2)
    spec = ("NCHW", "OIHW", "NCHW") if layout == "NCHW" else ("NHWC", "OIHW", "NHWC")
    return lax.conv_general_dilated(x, w, (1, 1), [(pad, pad)] * 2, dimension_numbers=spec)


def _bias(b: Any, layout: str) -> Any:
    return b if layout == "NHWC" else b[None, :, None, None]


def _pool2(x: Any, layout: str, how: str) -> Any:
    if how == "window":
        window = (1, 1, 2, 2) if layout == "NCHW" else (1, 2, 2, 1)
        return lax.reduce_window(x, -jnp.inf, lax.max, window, window, "VALID")
    if layout != "NHWC":
        n, c, h, w = x.shape
        return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def lenet(layout: str, pool: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    rng = np.random.RandomState(0)
    params = {
        "c1": rng.randn(20, 1, 5, 5).astype(np.float32) / 5,
        "b1": np.zeros(20, np.float32),
        "c2": rng.randn(50, 20, 5, 5).astype(np.float32) / 22,
        "b2": np.zeros(50, np.float32),
        "fc": rng.randn(800, 10).astype(np.float32) / 28,
    }

    def loss(p: Any, x: Any, y: Any) -> Any:
        h = x.reshape(-1, 1, 28, 28)
        if layout == "NHWC":
            h = h.transpose(0, 2, 3, 1)
        for w, b in (("c1", "b1"), ("c2", "b2")):
            h = _pool2(jax.nn.relu(_conv(h, p[w], layout) + _bias(p[b], layout)), layout, pool)
        if layout == "NHWC":
            h = h.transpose(0, 3, 1, 2)  # v2's CHW order into fc
        logp = jax.nn.log_softmax(h.reshape(h.shape[0], -1) @ p["fc"])
        return -jnp.take_along_axis(logp, y[:, None], axis=1).sum()

    return loss, params


def _bn(x: Any, g: Any, layout: str) -> Any:
    axes = (0, 1, 2) if layout == "NHWC" else (0, 2, 3)
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * _bias(g, layout)


def resnet_stage(layout: str, _: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    rng = np.random.RandomState(0)
    params = {f"w{i}": rng.randn(16, 16, 3, 3).astype(np.float32) / 12 for i in range(6)} | {
        f"g{i}": np.ones(16, np.float32) for i in range(6)
    }

    def loss(p: Any, x: Any, y: Any) -> Any:
        h = x.reshape(-1, 16, 32, 32)
        if layout == "NHWC":
            h = h.transpose(0, 2, 3, 1)
        for blk in range(3):
            a, b = 2 * blk, 2 * blk + 1
            r = jax.nn.relu(_bn(_conv(h, p[f"w{a}"], layout, 1), p[f"g{a}"], layout))
            h = jax.nn.relu(_bn(_conv(r, p[f"w{b}"], layout, 1), p[f"g{b}"], layout) + h)
        if layout == "NHWC":
            h = h.transpose(0, 3, 1, 2)
        return jnp.sum(h.reshape(h.shape[0], -1)[:, :10] * y[:, None])

    return loss, params


def _step(loss: Callable[..., Any]) -> Callable[..., Any]:
    def step(p: Any, x: Any, y: Any) -> Any:
        cost, g = jax.value_and_grad(loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 1e-4 * b, p, g), cost

    return jax.jit(step, donate_argnums=(0,))


VARIANTS = {
    "LeNet-5 b128": (
        lenet,
        128,
        784,
        [
            ("NCHW", "window"),
            ("NCHW", "reshape"),
            ("NCHW-in-NHWC", "reshape"),
            ("NHWC", "reshape"),
        ],
    ),
    "ResNet stage b32": (
        resnet_stage,
        32,
        16 * 32 * 32,
        [("NCHW", ""), ("NCHW-in-NHWC", ""), ("NHWC", "")],
    ),
}


def measure(name: str, reps: int, steps: int) -> None:
    build, batch, dim, variants = VARIANTS[name]
    rng = np.random.RandomState(1)
    x = jnp.asarray(rng.randn(batch, dim).astype(np.float32))
    y = jnp.asarray(rng.randint(0, 10, batch).astype(np.int32))
    runs = []
    for layout, pool in variants:
        loss, params = build(layout, pool)
        step, state = _step(loss), jax.device_put(params)
        state, cost = step(state, x, y)
        cost.block_until_ready()
        runs.append([step, state])
    times = np.zeros((reps, len(runs)))
    for r in range(reps):
        for i in np.roll(np.arange(len(runs)), r):
            step, state = runs[i]
            start = time.perf_counter()
            for _ in range(steps):
                state, cost = step(state, x, y)
            cost.block_until_ready()
            times[r, i] = (time.perf_counter() - start) / steps
            runs[i][1] = state
    for i, (layout, pool) in enumerate(variants):
        ratio = times[:, 0] / times[:, i]
        print(
            f"{name:18s} {layout:12s} {pool or '':8s} {np.median(times[:, i]) * 1e3:8.2f} ms/step"
            f"  speed x{np.median(ratio):.2f} of {variants[0][0]} {variants[0][1]}"
            f" (spread {ratio.min():.2f}..{ratio.max():.2f})"
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.conv_layout")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--steps", type=int, default=8)
    args = p.parse_args(argv)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
    for name in VARIANTS:
        measure(name, args.reps, args.steps)


if __name__ == "__main__":
    main()
