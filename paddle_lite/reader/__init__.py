"""Readers (v2 ``paddle.reader``): decorators at the top level, creators in ``creator``.

A reader is a no-argument callable returning an iterable of samples; a creator returns a
reader; a decorator maps readers to a reader.
"""

from paddle_lite._src.compat.aliases import module_getattr
from paddle_lite._src.readers.bucketing import bucket_by_length
from paddle_lite._src.readers.sharding import shard
from paddle_lite.reader import creator, decorator
from paddle_lite.reader.decorator import (
    ComposeNotAligned,
    Fake,
    PipeReader,
    ReaderProcessError,
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

# the names of earlier v2 versions, with a DeprecationWarning (see _src/compat/early_names.py)
__getattr__ = module_getattr("reader")
