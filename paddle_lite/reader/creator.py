"""Reader creators (v2 ``paddle.reader.creator``)."""

from paddle_lite._src.master.cloud_reader import cloud_reader
from paddle_lite._src.readers.creator import np_array, recordio, text_file
from paddle_lite._src.readers.record_index import write_recordio
from paddle_lite._src.readers.recordio_v2 import write_recordio_v2

__all__ = [
    "cloud_reader",
    "np_array",
    "recordio",
    "text_file",
    "write_recordio",
    "write_recordio_v2",
]
