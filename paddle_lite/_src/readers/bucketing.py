"""Batches of samples of similar length (``paddle.reader.bucket_by_length``).

Long-tailed text data padded batch by batch pays, in every batch, for its longest
sample. Sorting a window of samples by length and cutting the sorted window into
batches makes each batch's samples alike, so padding nearly vanishes; the batches'
order is then shuffled so training still sees lengths mixed across the pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from paddle_lite._src.readers.decorator import (
    Reader,
    ReaderTypeError,
    check_count,
    check_reader,
    show,
)
from paddle_lite._src.readers.state import PassCounter


def _first_field_length(sample: Any) -> int:
    return len(sample[0])


def bucket_by_length(
    reader: Reader,
    batch_size: int,
    length: Callable[[Any], int] | None = None,
    buf_size: int = 100,
    seed: int = 0,
    drop_last: bool = False,
) -> Reader:
    """A reader of batches whose samples have similar lengths.

    Reads ``buf_size`` batches' worth of samples at a time, sorts them by ``length``
    (stable, so equal lengths keep their reading order), cuts them into batches of
    ``batch_size`` and yields those batches in a shuffled order. Pass ``p`` shuffles
    with ``random.Random(seed + p)``: reproducible, and different in every pass. The
    returned reader counts its passes and has ``state()`` / ``restore()`` (see *Reader
    state* in the ``paddle.reader`` reference), so checkpoints resume it exactly.

    Args:
        reader: a reader of samples.
        batch_size: samples per batch (>= 1).
        length: the length of a sample (default: ``len(sample[0])``, the first field).
        buf_size: batches per sorting window (>= 1); larger pads less and mixes less.
        seed: the shuffling seed.
        drop_last: drop a final batch shorter than ``batch_size``.

    Returns:
        A batch reader (use it where ``paddle.batch(...)`` would go).

    Example:
        ```python
        train = paddle.reader.bucket_by_length(imdb.train(word_dict), batch_size=32)
        trainer.train(reader=train, num_passes=2)
        ```
    """
    check_reader(reader, "bucket_by_length")
    batch_size = check_count(batch_size, "bucket_by_length", "batch_size", 1)
    buf_size = check_count(buf_size, "bucket_by_length", "buf_size", 1)
    length = length or _first_field_length
    if not callable(length):
        raise ReaderTypeError(
            f"bucket_by_length: length must be a function of a sample; received {show(length)}."
        )
    passes = PassCounter("bucket_by_length")

    def window_batches(window: list[Any], rng: random.Random) -> list[list[Any]]:
        window.sort(key=length)
        batches = [window[i : i + batch_size] for i in range(0, len(window), batch_size)]
        if batches and drop_last and len(batches[-1]) < batch_size:
            batches.pop()
        rng.shuffle(batches)
        return batches

    def bucketed() -> Iterator[list[Any]]:
        rng = random.Random(seed + passes.next())
        window: list[Any] = []
        for sample in reader():
            window.append(sample)
            if len(window) == batch_size * buf_size:
                yield from window_batches(window, rng)
                window = []
        yield from window_batches(window, rng)

    return passes.attach(bucketed, reader)
