"""Readers (v2 ``paddle.reader``): decorators at the top level, creators in ``creator``.

A reader is a no-argument callable returning an iterable of samples; a creator returns a
reader; a decorator maps readers to a reader.
"""

from paddle_lite._src.readers.bucketing import bucket_by_length
from paddle_lite._src.readers.sharding import shard
from paddle_lite.reader import creator, decorator
from paddle_lite.reader.decorator import (
    ComposeNotAligned,
    Fake,
    PipeReader,
    ReaderProcessError,
    batched,
    buffered,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    multiprocess_reader,
    shuffle,
    xmap_readers,
)

__all__ = [
    "ComposeNotAligned",
    "Fake",
    "PipeReader",
    "ReaderProcessError",
    "batched",
    "bucket_by_length",
    "buffered",
    "cache",
    "chain",
    "compose",
    "creator",
    "decorator",
    "firstn",
    "map_readers",
    "multiprocess_reader",
    "shard",
    "shuffle",
    "xmap_readers",
]
