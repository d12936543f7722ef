"""Reader creators (v2 ``paddle.reader.creator``)."""

from paddle_lite._src.absent import module_getattr
from paddle_lite._src.readers.creator import np_array, recordio, text_file
from paddle_lite._src.readers.recordio import write_recordio
from paddle_lite._src.readers.recordio_v2 import write_recordio_v2

__all__ = [
    "np_array",
    "recordio",
    "text_file",
    "write_recordio",
    "write_recordio_v2",
]

# cloud_reader is deliberately absent (see _src/absent.py).
__getattr__ = module_getattr("reader.creator")
