"""Float64 brute-force references for the image layers of test_layers_image_extra*.py,
written from v2's C++ loops (Conv3DLayer, DeConv3DLayer, Pool3DLayer, ROIPoolLayer,
MaxPoolWithMaskLayer + UpsampleLayer), plus a central-difference gradient."""

import itertools

import numpy as np


def numeric_grad(fn, x, cot, eps=1e-3):
    """d sum(fn(x) * cot) / dx by central differences in float64."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = ((fn(x + step) - fn(x - step)) * cot).sum() / (2 * eps)
    return grad


def conv3d(x, w, stride, pad, groups):
    """x [N, C, D, H, W], w [F, C/g, kz, ky, kx]; stride/pad (z, y, x)."""
    n, c = x.shape[:2]
    f, k = w.shape[0], w.shape[2:]
    dims = [
        1 + (d + 2 * p - kk) // s for d, p, kk, s in zip(x.shape[2:], pad, k, stride, strict=True)
    ]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = np.zeros((n, f, *dims))
    cg, fg = c // groups, f // groups
    for fo in range(f):
        grp = fo // fg
        for o in itertools.product(*map(range, dims)):
            sl = tuple(slice(oo * s, oo * s + kk) for oo, s, kk in zip(o, stride, k, strict=True))
            patch = xp[(slice(None), slice(grp * cg, (grp + 1) * cg), *sl)]
            out[(slice(None), fo, *o)] = (patch * w[fo]).sum(axis=(1, 2, 3, 4))
    return out


def deconv3d(x, w, stride, pad, groups):
    """v2's DeConv3DLayer: x [N, F, D, H, W], w [F, kz, ky, kx, F/g];
    ``out[f, i*s - p + k] += w[f, k, m] * x[group(f)*F/g + m, i]``."""
    n, f = x.shape[:2]
    k = w.shape[1:4]
    m_per = f // groups
    dims = [
        (d - 1) * s + kk - 2 * p for d, s, kk, p in zip(x.shape[2:], stride, k, pad, strict=True)
    ]
    full = np.zeros((n, f, *(d + 2 * p for d, p in zip(dims, pad, strict=True))))
    xg = x.reshape(n, groups, m_per, *x.shape[2:])
    wg = w.reshape(groups, m_per, *k, m_per)  # [g, f in group, kz, ky, kx, m]
    for kk in itertools.product(*map(range, k)):
        part = np.einsum("gfm,ngmdhw->ngfdhw", wg[(slice(None), slice(None), *kk)], xg)
        sl = tuple(slice(q, q + s * d, s) for q, s, d in zip(kk, stride, x.shape[2:], strict=True))
        full[(slice(None), slice(None), *sl)] += part.reshape(n, f, *x.shape[2:])
    return full[
        (slice(None), slice(None), *(slice(p, p + d) for p, d in zip(pad, dims, strict=True)))
    ]


def pool3d(x, size, stride, pad, kind, ceil_mode=True):
    """v2's 3-D max / average pooling (the average counts padding, windows end at n + p)."""
    spans = [d + 2 * p - k for d, p, k in zip(x.shape[2:], pad, size, strict=True)]
    dims = [
        1 + (-(-sp // s) if ceil_mode else sp // s) for sp, s in zip(spans, stride, strict=True)
    ]
    out = np.zeros((*x.shape[:2], *dims))
    for o in itertools.product(*map(range, dims)):
        starts = [oo * s - p for oo, s, p in zip(o, stride, pad, strict=True)]
        sl = tuple(
            slice(max(st, 0), min(st + k, d))
            for st, k, d in zip(starts, size, x.shape[2:], strict=True)
        )
        win = x[(slice(None), slice(None), *sl)]
        if kind == "max":
            out[(slice(None), slice(None), *o)] = win.max(axis=(2, 3, 4))
        else:
            count = np.prod(
                [
                    min(st + k, d + p) - st
                    for st, k, d, p in zip(starts, size, x.shape[2:], pad, strict=True)
                ]
            )
            out[(slice(None), slice(None), *o)] = win.sum(axis=(2, 3, 4)) / count
    return out


def _round(v):
    return np.floor(v + 0.5) if v >= 0 else -np.floor(-v + 0.5)


def roi_pool(x, rois, ph, pw, scale):
    """v2's ROIPoolLayer forward (max per bin, empty bin 0), float32 bin arithmetic."""
    _, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(np.asarray(rois, np.float32)):
        b = int(roi[0])
        x1, y1, x2, y2 = (_round(np.float32(v) * np.float32(scale)) for v in roi[1:5])
        bh = np.float32(max(y2 - y1 + 1, 1)) / np.float32(ph)
        bw = np.float32(max(x2 - x1 + 1, 1)) / np.float32(pw)
        for i, j in itertools.product(range(ph), range(pw)):
            hs = int(min(np.floor(np.float32(i) * bh) + y1, h))
            he = int(min(np.ceil(np.float32(i + 1) * bh) + y1, h))
            ws = int(min(np.floor(np.float32(j) * bw) + x1, w))
            we = int(min(np.ceil(np.float32(j + 1) * bw) + x1, w))
            if he > hs and we > ws:
                out[r, :, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def max_pool_mask(x, size, stride, pad, out_hw):
    """v2's MaxPoolWithMask mask: flat ``y*W + x`` of each window's first maximum."""
    n, c, h, w = x.shape
    mask = np.zeros((n, c, *out_hw), np.int64)
    for oy, ox in itertools.product(*map(range, out_hw)):
        y0, x0 = oy * stride[0] - pad[0], ox * stride[1] - pad[1]
        ys = range(max(y0, 0), min(y0 + size[0], h))
        xs = range(max(x0, 0), min(x0 + size[1], w))
        for b, ch in itertools.product(range(n), range(c)):
            best, idx = -np.inf, -1
            for yy, xx in itertools.product(ys, xs):
                if x[b, ch, yy, xx] > best:
                    best, idx = x[b, ch, yy, xx], yy * w + xx
            mask[b, ch, oy, ox] = idx
    return mask


def upsample(values, mask, out_hw):
    """v2's UpsampleLayer: ``out[c, mask[c, i]] = values[c, i]`` on a zero plane."""
    n, c = values.shape[:2]
    out = np.zeros((n, c, out_hw[0] * out_hw[1]))
    flat_v, flat_m = values.reshape(n, c, -1), mask.reshape(n, c, -1)
    for b, ch, i in itertools.product(range(n), range(c), range(flat_v.shape[2])):
        out[b, ch, flat_m[b, ch, i]] = flat_v[b, ch, i]
    return out.reshape(n, c, *out_hw)
