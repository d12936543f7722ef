"""Batching (v2 ``paddle.batch``): group the samples of a reader into lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.decorator import Reader, check_count, check_reader, reader_samples
from paddle_lite._src.readers.length import sized_as
from paddle_lite._src.readers.state import forward


def batch(reader: Reader, batch_size: int, drop_last: bool = False) -> Reader:
    """Turn a reader of samples into a reader of batches (lists of samples).

    Consecutive samples are grouped into lists of ``batch_size``. The final, shorter batch is
    yielded (v2 0.10/0.11 behaviour) unless ``drop_last=True`` (a later v2 addition). Over a
    seekable reader the result is seekable: its pass is a ``seekable.Batches`` view, whose
    batches are lists of sample indices the trainer reads row by row.

    Args:
        reader: a reader of single samples.
        batch_size: samples per batch (>= 1).
        drop_last: drop the final batch when it has fewer than ``batch_size`` samples.

    Returns:
        A batch reader yielding lists of ``batch_size`` samples (the last may be shorter);
        when ``reader`` has a ``len()``, so does the batch reader (its number of batches).

    Example:
        ```python
        train = paddle.batch(paddle.reader.shuffle(uci_housing.train(), 500), batch_size=2)
        for minibatch in train():
            ...   # a list of 2 (features, price) tuples
        ```
    """
    check_reader(reader, "batch")
    batch_size = check_count(batch_size, "batch", "batch_size", 1)

    def batch_reader() -> Iterator[list[Any]]:
        samples: list[Any] = []
        for sample in reader_samples(reader, "batch"):
            samples.append(sample)
            if len(samples) == batch_size:
                yield samples
                samples = []
        if samples and not drop_last:
            yield samples

    def batches(samples: int) -> int:
        return samples // batch_size if drop_last else -(-samples // batch_size)

    inner = seek.open_pass_of(reader)
    if inner is not None:
        batch_reader = seek.seekable(
            lambda: seek.Batches(inner(), batch_size, drop_last), "batch_reader"
        )
        batch_reader.batch_size = batch_size  # type: ignore[attr-defined]
    return sized_as(forward(batch_reader, reader), batches, reader)
