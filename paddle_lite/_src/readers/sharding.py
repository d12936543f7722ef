"""``paddle.reader.shard``: one of several disjoint parts of a reader's samples."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.decorator import Reader, check_count, check_reader
from paddle_lite._src.readers.state import forward


def shard(reader: Reader, num_shards: int, index: int) -> Reader:
    """The samples of ``reader`` at positions ``index``, ``index + num_shards``, ...

    The ``num_shards`` shards are disjoint and together hold every sample once, in
    order. The trainer needs no sharding (over a seekable reader each process reads the
    rows it trains on; over another, every process reads the global batches and keeps
    its rows); this is for pipelines that split data between workers themselves.

    Args:
        reader: a reader of samples.
        num_shards: how many parts (>= 1).
        index: which part (``0 <= index < num_shards``).

    Returns:
        A reader of that part.

    Example:
        ```python
        mine = paddle.reader.shard(paddle.dataset.mnist.train(), num_shards=4, index=rank)
        ```
    """
    check_reader(reader, "shard")
    num_shards = check_count(num_shards, "shard", "num_shards", 1)
    index = check_count(index, "shard", "index", 0)
    if index >= num_shards:
        raise ValueError(f"shard: index must be below num_shards={num_shards}; received {index}.")

    def sharded() -> Iterator[Any]:
        for position, sample in enumerate(reader()):
            if position % num_shards == index:
                yield sample

    inner = seek.open_pass_of(reader)
    if inner is not None:

        def part() -> Any:
            view = inner()
            return seek.Strided(view, index, len(view), num_shards)

        sharded = seek.seekable(part, "sharded")
    return forward(sharded, reader)
