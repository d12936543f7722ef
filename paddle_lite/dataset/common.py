"""Shared data set helpers (v2 ``paddle.v2.dataset.common``).

``DATA_HOME`` is read from ``PADDLE_LITE_DATA_HOME`` (default ``~/.cache/paddle_lite/dataset``)
each time it is accessed; set the environment variable to move the data home.
"""

from paddle_lite._src.dataset.common import (
    DatasetValueError,
    cluster_files_reader,
    convert,
    converted_reader,
    fetch_all,
    split,
)
from paddle_lite._src.dataset.download import (
    DownloadError,
    data_home,
    download,
    md5file,
)
from paddle_lite._src.dataset.sources import CorruptFileError

DATA_HOME: str  # resolved by __getattr__ on each access

__all__ = [
    "CorruptFileError",
    "DATA_HOME",
    "DatasetValueError",
    "DownloadError",
    "cluster_files_reader",
    "convert",
    "converted_reader",
    "data_home",
    "download",
    "fetch_all",
    "md5file",
    "split",
]


def __getattr__(name: str) -> str:
    if name == "DATA_HOME":
        return data_home()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
