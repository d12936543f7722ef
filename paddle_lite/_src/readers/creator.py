"""Reader creators (v2 ``paddle.reader.creator``): readers over arrays, text and record files."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from paddle_lite._src.readers.decorator import Reader, ReaderTypeError, show
from paddle_lite._src.readers.length import SizedReader
from paddle_lite._src.readers.parallel import buffered
from paddle_lite._src.readers.recordio import read_samples


def np_array(x: Any) -> Reader:
    """Create a reader over the rows of an array (its slices along axis 0).

    Args:
        x: a numpy array (or anything ``np.asarray`` accepts); a 0-d array is one sample.

    Returns:
        A reader yielding ``x[0], x[1], ...`` (arrays of shape ``x.shape[1:]``), with
        ``len()`` the number of rows.

    Example:
        ```python
        reader = np_array(np.arange(6).reshape(3, 2))   # yields [0 1], [2 3], [4 5]
        ```
    """
    array = np.asarray(x)

    def array_reader() -> Iterator[Any]:
        if array.ndim == 0:
            yield array
            return
        yield from array

    return SizedReader(array_reader, len(array) if array.ndim else 1)


def _check_path(path: Any, where: str) -> None:
    if not isinstance(path, (str, os.PathLike)):
        raise ReaderTypeError(f"{where}: path must be a str or os.PathLike; received {show(path)}.")


def text_file(path: str | os.PathLike) -> Reader:
    """Create a reader over the lines of a UTF-8 text file, without their ``"\\n"``.

    Only ``"\\n"`` ends a line (as in v2, a ``"\\r"`` before it is kept). The file is opened
    anew on every pass.

    Args:
        path: the text file.

    Returns:
        A reader yielding one str per line.

    Example:
        ```python
        lines = text_file("train.txt")
        ```
    """
    _check_path(path, "text_file")

    def text_reader() -> Iterator[str]:
        with open(path, encoding="utf-8", newline="\n") as f:
            for line in f:
                yield line.rstrip("\n")

    return text_reader


def _expand(pattern: str) -> list[str]:
    if not glob.has_magic(pattern):
        if not os.path.exists(pattern):
            raise FileNotFoundError(f"recordio: no file {pattern!r}.")
        return [pattern]
    matches = sorted(glob.glob(pattern))
    if not matches:
        raise FileNotFoundError(f"recordio: the pattern {pattern!r} matches no file.")
    return matches


def _path_parts(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        parts = [part.strip() for part in os.fspath(paths).split(",")]
    elif isinstance(paths, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in paths):
        parts = [os.fspath(p) for p in paths]
    else:
        raise ReaderTypeError(
            "recordio: paths must be a str (comma-separated paths or globs) or a list of "
            f"paths; received {show(paths)}."
        )
    return [part for part in parts if part]


def recordio(paths: str | list[str], buf_size: int = 100) -> Reader:
    """Create a buffered reader over record files written by ``write_recordio``.

    The files are read in the order given (each glob in sorted order); their paths are
    resolved on every pass. The format is paddle_lite's own (length-prefixed, checksummed
    JSON records, see ``paddle_lite._src.readers.recordio``); v2 recordio files, whose records
    are pickled, are refused rather than unpickled.

    Args:
        paths: a str of comma-separated paths or glob patterns, or a list of paths.
        buf_size: samples prefetched by a background thread (see ``buffered``).

    Returns:
        A reader yielding the stored samples (tuples come back as tuples).

    Example:
        ```python
        write_recordio("part-0.rec", reader)
        train = recordio("part-*.rec")
        ```
    """
    parts = _path_parts(paths)

    def record_reader() -> Iterator[Any]:
        for path in [path for part in parts for path in _expand(part)]:
            yield from read_samples(path)

    return buffered(record_reader, buf_size)
