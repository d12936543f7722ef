"""The window arithmetic of 2-D max and average pooling, with v2's max-pool gradient.

``pool_windows(x, pool, exclude_padding, axes)`` pools an NCHW batch; each of the two
``axes`` is ``(n, out, window, stride, padding)``. Windows that run past the padded input
(ceil mode) are clipped; a window with no input element gives 0.

Two ways to compute it, chosen per layer from its static geometry:

- **Tiles.** When the windows tile the input along both axes (``stride == window``, or
  a single output), the padded input is reshaped to ``[B, C, OH, ky, OW, kx]`` and
  reduced over the window axes. XLA:CPU runs this, and its gradient, several times faster
  than ``reduce_window`` and the ``select_and_scatter`` of its gradient (LeNet's 2x2/2
  pools, most VGG pools, global average pools).
- **Windows.** Otherwise ``lax.reduce_window``.

v2's max-pool gradient (``CpuMatrix::maxPoolBackward`` and ``KeMaxPoolBackward``) gives
the output gradient of a window to *every* input element equal to the window's maximum
(each tie receives it whole, it is not shared), and sums over the windows an element
belongs to. JAX's own rules differ on ties (``reduce_window``'s gradient picks one
element; ``max``'s shares the gradient between ties), so both max paths carry a custom
gradient that follows v2.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

Axis = tuple[int, int, int, int, int]  # (n, out, window, stride, padding)


def window_counts(n: int, o: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """Per output position, how many window elements lie in the input (or the padded input)."""
    start = np.arange(o) * s - p
    lo, hi = (-p, n + p) if include_pad else (0, n)
    return np.maximum(np.minimum(start + k, hi) - np.maximum(start, lo), 0)


def tiles(axes: list[Axis]) -> bool:
    """Whether the windows tile both axes: no overlap and no gap between them."""
    return all(s == k or o == 1 for _, o, k, s, _ in axes)


def pool_windows(x, pool: str, exclude_padding: bool, axes: list[Axis], nhwc: bool = False):
    """Max (``pool="max"``) or average pooling of ``x`` ``[B, C, H, W]`` -> ``[B, C, OH, OW]``
    (``nhwc``: ``[B, H, W, C]`` -> ``[B, OH, OW, C]``)."""
    if nhwc and not tiles(axes):
        y = pool_windows(x.transpose(0, 3, 1, 2), pool, exclude_padding, axes)
        return y.transpose(0, 2, 3, 1)
    valid = np.outer(window_counts(*axes[0], False), window_counts(*axes[1], False))
    if pool == "max":
        y = _tiled(x, -jnp.inf, axes, nhwc, _tile_max) if tiles(axes) else _window_max(x, axes)
        return jnp.where(_spatial(valid, nhwc) > 0, y, 0.0)
    if tiles(axes):
        total = _tiled(x, 0.0, axes, nhwc, _tile_sum)
    else:
        window, strides, pads = _window_geometry(axes)
        total = lax.reduce_window(x, 0.0, lax.add, window, strides, pads)
        total = total[:, :, : axes[0][1], : axes[1][1]]
    count = _spatial(
        valid
        if exclude_padding
        else np.outer(window_counts(*axes[0], True), window_counts(*axes[1], True)),
        nhwc,
    )
    return jnp.where(count > 0, total / np.maximum(count, 1).astype(np.float32), 0.0)


def _spatial(per_position: np.ndarray, nhwc: bool) -> np.ndarray:
    """An ``[OH, OW]`` table shaped to broadcast against the pooled batch."""
    return per_position[:, :, None] if nhwc else per_position


# tiles -------------------------------------------------------------------------------
def _tiled(x, fill: float, axes: list[Axis], nhwc: bool, reduce):
    """Pad (or crop) each axis to ``out * window`` starting at ``-padding``; reduce the
    window axes of ``[B, C, OH, ky, OW, kx]`` (NHWC: ``[B, OH, ky, OW, kx, C]``)."""
    (h, oh, ky, _, py), (w, ow, kx, _, px) = axes
    spatial = [(py, oh * ky - h - py, 0), (px, ow * kx - w - px, 0)]
    keep = [(0, 0, 0)]
    config = keep + spatial + keep if nhwc else keep + keep + spatial
    padded = lax.pad(x, jnp.asarray(fill, x.dtype), config)
    if nhwc:
        return reduce(padded.reshape(x.shape[0], oh, ky, ow, kx, x.shape[3]), (2, 4))
    return reduce(padded.reshape(x.shape[0], x.shape[1], oh, ky, ow, kx), (3, 5))


def _tile_sum(t, window_axes):
    return t.sum(axis=window_axes)


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def _tile_max(t, window_axes):
    return t.max(axis=window_axes)


def _tile_max_fwd(t, window_axes):
    y = t.max(axis=window_axes)
    return y, (t, y)


def _tile_max_bwd(window_axes, res, g):
    t, y = res
    winners = t == jnp.expand_dims(y, window_axes)
    spread = jnp.expand_dims(g, window_axes)
    return (jnp.where(winners, spread, jnp.zeros((), g.dtype)),)


_tile_max.defvjp(_tile_max_fwd, _tile_max_bwd)


# overlapping or gapped windows -------------------------------------------------------
def _window_geometry(axes: list[Axis]):
    """``reduce_window``'s window, strides and padding; ceil-mode windows padded out."""
    pads = [(0, 0), (0, 0)] + [
        (p, p + max(0, (o - 1) * s + k - (n + 2 * p))) for n, o, k, s, p in axes
    ]
    return (1, 1, axes[0][2], axes[1][2]), (1, 1, axes[0][3], axes[1][3]), tuple(pads)


def _window_max(x, axes: list[Axis]):
    return _max_of_windows(x, tuple(tuple(a) for a in axes))


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def _max_of_windows(x, axes):
    window, strides, pads = _window_geometry(list(axes))
    y = lax.reduce_window(x, -jnp.inf, lax.max, window, strides, pads)
    return y[:, :, : axes[0][1], : axes[1][1]]


def _max_of_windows_fwd(x, axes):
    y = _max_of_windows(x, axes)
    return y, (x, y)


def _max_of_windows_bwd(axes, res, g):
    """Per window offset ``(i, j)``: the strided slice of the padded input at that offset,
    compared with the window maxima, sends ``g`` back through a strided (interior) pad."""
    x, y = res
    _, _, pads = _window_geometry(list(axes))
    (_, oh, ky, sy, _), (_, ow, kx, sx, _) = axes
    padded = lax.pad(x, jnp.asarray(-jnp.inf, x.dtype), [(lo, hi, 0) for lo, hi in pads])
    hp, wp = padded.shape[2:]
    grad = jnp.zeros_like(padded)
    zero = jnp.zeros((), g.dtype)
    for i in range(ky):
        for j in range(kx):
            end = (i + (oh - 1) * sy + 1, j + (ow - 1) * sx + 1)
            patch = lax.slice(padded, (0, 0, i, j), (*x.shape[:2], *end), (1, 1, sy, sx))
            sent = jnp.where(patch == y, g, zero)
            grad = grad + lax.pad(
                sent,
                zero,
                [(0, 0, 0), (0, 0, 0), (i, hp - end[0], sy - 1), (j, wp - end[1], sx - 1)],
            )
    (ly, _), (lx, _) = pads[2:]
    return (grad[:, :, ly : ly + x.shape[2], lx : lx + x.shape[3]],)


_max_of_windows.defvjp(_max_of_windows_fwd, _max_of_windows_bwd)
