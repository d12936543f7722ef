"""Reader decorators (v2 ``paddle.reader.decorator``)."""

from paddle_lite._src.compat.aliases import module_getattr
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
from paddle_lite._src.readers.parallel import (
    ReaderProcessError,
    buffered,
    multiprocess_reader,
    xmap_readers,
)
from paddle_lite._src.readers.pipe import PipeReader

__all__ = [
    "ComposeNotAligned",
    "Fake",
    "PipeReader",
    "ReaderProcessError",
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

# the names of earlier v2 versions, with a DeprecationWarning (see _src/compat/early_names.py)
__getattr__ = module_getattr("reader.decorator")
