"""Synthetic data of the book's shapes, and its collation into padded numpy batches.

Samples are what the book's readers yield (numpy vectors or Python lists of ids and
Python ints), so paddle_lite's trainer pays for the same conversion a real reader
costs it. The reference sides get the same batches as numpy columns, collated once.

Sequence lengths:

- ``uniform``: 20..200 inclusive, uniformly.
- ``translations``: source and target lengths each uniform in a range (chapter 8).
- ``longtail``: IMDB-like; lognormal with median 174 and sigma 0.75, clipped to
  [10, 2500] (the real IMDB training reviews: median 174, 10th / 90th / 99th
  percentiles 90 / 457 / 909, longest 2,469 words after paddle's tokenizer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Sample = tuple[Any, ...]


def regression(n: int, rng: np.random.Generator, dim: int = 13) -> list[Sample]:
    """Chapter 1 samples: ``(x float32[dim], y float32[1])``, a linear target plus noise."""
    w = rng.normal(size=dim)
    x = rng.normal(size=(n, dim)).astype(np.float32)
    y = (x @ w + 0.1 * rng.normal(size=n)).astype(np.float32)
    return [(x[i], y[i : i + 1]) for i in range(n)]


def classification(n: int, rng: np.random.Generator, dim: int, classes: int) -> list[Sample]:
    """``(x float32[dim] in [-1, 1], label)`` drawn around one centre per class."""
    centres = rng.uniform(-0.8, 0.8, size=(classes, dim))
    labels = rng.integers(0, classes, n)
    x = np.clip(centres[labels] + 0.3 * rng.normal(size=(n, dim)), -1, 1).astype(np.float32)
    return [(x[i], int(labels[i])) for i in range(n)]


def ngrams(n: int, rng: np.random.Generator, dict_size: int, order: int = 5) -> list[Sample]:
    """Chapter 4 samples: ``order`` word ids (Python ints), Zipf-like frequencies."""
    ranks = np.minimum(rng.zipf(1.3, size=(n, order)) - 1, dict_size - 1)
    return [tuple(int(v) for v in row) for row in ranks]


def uniform_lengths(n: int, rng: np.random.Generator, lo: int = 20, hi: int = 200) -> np.ndarray:
    """``n`` lengths uniform in ``lo..hi`` inclusive."""
    return rng.integers(lo, hi + 1, size=n)


def longtail_lengths(n: int, rng: np.random.Generator, median: float = 174.0) -> np.ndarray:
    """``n`` IMDB-like lengths: lognormal (median ``median``, sigma 0.75) in [10, 2500]."""
    raw = rng.lognormal(np.log(median), 0.75, size=n)
    return np.clip(np.round(raw), 10, 2500).astype(int)


def reviews(lengths: np.ndarray, rng: np.random.Generator, dict_size: int) -> list[Sample]:
    """Chapter 6 samples: ``(word ids as a Python list, label)`` of the given lengths."""
    ids = np.minimum(rng.zipf(1.2, size=int(lengths.sum())) - 1, dict_size - 1)
    out, start = [], 0
    for length in lengths:
        out.append((ids[start : start + length].tolist(), int(rng.integers(2))))
        start += length
    return out


def translations(
    n: int, rng: np.random.Generator, dict_size: int, lo: int, hi: int
) -> list[Sample]:
    """Chapter 8 samples as ``wmt14.train()`` yields them: ``(<s> source <e>, <s> target,
    target <e>)`` id lists, source and target lengths each uniform in ``lo..hi``."""
    out = []
    for _ in range(n):
        src = rng.integers(3, dict_size, int(rng.integers(lo, hi + 1))).tolist()
        trg = rng.integers(3, dict_size, int(rng.integers(lo, hi + 1))).tolist()
        out.append(([0, *src, 1], [0, *trg], [*trg, 1]))
    return out


def batches(samples: Sequence[Sample], batch: int) -> list[list[Sample]]:
    """Consecutive batches of ``batch`` samples (the last may be shorter)."""
    return [list(samples[i : i + batch]) for i in range(0, len(samples), batch)]


# collation for the reference sides ------------------------------------------------------
def dense_columns(group: Sequence[Sample]) -> dict[str, np.ndarray]:
    """``{"x": float32[B, d], "y": float32[B, k] or int32[B]}`` (arrays or int labels)."""
    x = np.stack([np.asarray(s[0], np.float32) for s in group])
    if isinstance(group[0][1], np.ndarray):
        return {"x": x, "y": np.stack([s[1] for s in group]).astype(np.float32)}
    return {"x": x, "y": np.asarray([s[1] for s in group], np.int32)}


def id_columns(group: Sequence[Sample]) -> dict[str, np.ndarray]:
    """``{"ids": int32[B, fields]}`` for samples of integer fields."""
    return {"ids": np.asarray(group, np.int32)}


def sequence_columns(group: Sequence[Sample], pad: Callable[[int], int]) -> dict[str, np.ndarray]:
    """``{"word": int32[B, pad(max len)], "lengths": int32[B], "label": int32[B]}``."""
    lengths = np.asarray([len(s[0]) for s in group], np.int32)
    words = np.zeros((len(group), pad(int(lengths.max()))), np.int32)
    for i, s in enumerate(group):
        words[i, : lengths[i]] = s[0]
    return {"word": words, "lengths": lengths, "label": np.asarray([s[1] for s in group], np.int32)}


def _padded(rows: Sequence[list[int]], pad: Callable[[int], int]) -> tuple[Any, Any]:
    lengths = np.asarray([len(r) for r in rows], np.int32)
    out = np.zeros((len(rows), pad(int(lengths.max()))), np.int32)
    for i, row in enumerate(rows):
        out[i, : lengths[i]] = row
    return out, lengths


def translation_columns(group: Sequence[Sample], pad: Callable[[int], int]) -> dict[str, Any]:
    """Source and target id matrices, each padded to ``pad(its longest)``, and lengths."""
    src, src_lengths = _padded([s[0] for s in group], pad)
    trg, trg_lengths = _padded([s[1] for s in group], pad)
    trg_next, _ = _padded([s[2] for s in group], pad)
    return {
        "src": src,
        "src_lengths": src_lengths,
        "trg": trg,
        "trg_next": trg_next,
        "trg_lengths": trg_lengths,
    }


def padding_waste(groups: Sequence[Sequence[Sample]], pad: Callable[[int], int]) -> float:
    """Fraction of the time steps that are padding when each batch pads to ``pad(max)``."""
    real = padded = 0
    for group in groups:
        lengths = [len(s[0]) for s in group]
        real += sum(lengths)
        padded += pad(max(lengths)) * len(lengths)
    return 1.0 - real / padded if padded else 0.0
