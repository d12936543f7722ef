"""Reader decorators (v2 ``paddle.reader.decorator``)."""

from paddle_lite._src.readers.decorator import (
    ComposeNotAligned,
    Fake,
    cache,
    chain,
    compose,
    firstn,
    map_readers,
    shuffle,
)
from paddle_lite._src.readers.minibatch import batch
from paddle_lite._src.readers.parallel import (
    ReaderProcessError,
    buffered,
    multiprocess_reader,
    xmap_readers,
)
from paddle_lite._src.readers.pipe import PipeReader

# The name of ``paddle.batch`` in the v2 of early 2017 (``paddle.reader.batched``).
batched = batch

__all__ = [
    "ComposeNotAligned",
    "Fake",
    "PipeReader",
    "ReaderProcessError",
    "batched",
    "buffered",
    "cache",
    "chain",
    "compose",
    "firstn",
    "map_readers",
    "multiprocess_reader",
    "shuffle",
    "xmap_readers",
]
