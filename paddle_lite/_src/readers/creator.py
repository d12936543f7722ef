"""Reader creators (v2 ``paddle.reader.creator``): readers over arrays, text and record files."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.decorator import Reader, ReaderTypeError, show
from paddle_lite._src.readers.length import SizedReader
from paddle_lite._src.readers.parallel import buffered
from paddle_lite._src.readers.record_index import SUFFIX as INDEX_SUFFIX
from paddle_lite._src.readers.record_index import records_view


def np_array(x: Any) -> Reader:
    """Create a reader over the rows of an array (its slices along axis 0).

    Args:
        x: a numpy array (or anything ``np.asarray`` accepts); a 0-d array is one sample.

    Returns:
        A seekable reader yielding ``x[0], x[1], ...`` (arrays of shape ``x.shape[1:]``),
        with ``len()`` the number of rows.

    Example:
        ```python
        reader = np_array(np.arange(6).reshape(3, 2))   # yields [0 1], [2 3], [4 5]
        ```
    """
    array = np.asarray(x)
    rows = array if array.ndim else [array]
    return SizedReader(seek.seekable(lambda: rows, "array_reader"), len(rows))


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
    return seek.seekable(Lines(path).view, "text_reader")


class Lines(seek.Indexed):
    """The lines of a text file by number, through an index of their offsets."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path)
        self.offsets: np.ndarray | None = None
        self.stamp: tuple[int, int] | None = None

    def view(self) -> Lines:
        """Start a pass: (re)scan the file when it changed since the last scan."""
        info = os.stat(self.path)
        stamp = (info.st_size, info.st_mtime_ns)
        if stamp != self.stamp:
            self.offsets, self.stamp = _line_offsets(self.path), stamp
        return self

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, j: int) -> str:
        start, stop = int(self.offsets[j]), int(self.offsets[j + 1])
        with open(self.path, "rb") as f:
            f.seek(start)
            data = f.read(stop - start)
        return data.decode("utf-8").rstrip("\n")

    def __iter__(self) -> Iterator[str]:
        with open(self.path, encoding="utf-8", newline="\n") as f:
            for line in f:
                yield line.rstrip("\n")


def _line_offsets(path: str) -> np.ndarray:
    """The byte offset of every line start, and the file's end, in one scan."""
    offsets, position = [0], 0
    with open(path, "rb") as f:
        for line in f:
            position += len(line)
            offsets.append(position)
    return np.asarray(offsets, np.int64)


def _expand(pattern: str) -> list[str]:
    if not glob.has_magic(pattern):
        if not os.path.exists(pattern):
            raise FileNotFoundError(f"recordio: no file {pattern!r}.")
        return [pattern]
    found = set(glob.glob(pattern))
    matches = sorted(m for m in found if not _is_index_of(m, found))
    if not matches:
        raise FileNotFoundError(f"recordio: the pattern {pattern!r} matches no file.")
    return matches


def _is_index_of(path: str, found: set[str]) -> bool:
    """Whether ``path`` is the sidecar index of another file ``found`` (not a data file)."""
    return path.endswith(INDEX_SUFFIX) and path[: -len(INDEX_SUFFIX)] in found


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
    """Create a buffered reader over v2 RecordIO files and paddle_lite record files.

    The files are read in the order given (each glob in sorted order); their paths are
    resolved on every pass. Each file's first bytes tell its format: v2's RecordIO (chunks of
    pickled records, as v2's ``convert`` and Go writer made them; the pickles are read
    without running code) or paddle_lite's own (``write_recordio``: checksummed JSON
    records).

    Args:
        paths: a str of comma-separated paths or glob patterns, or a list of paths.
        buf_size: samples prefetched by a background thread (see ``buffered``).

    Returns:
        A seekable reader yielding the stored samples (tuples come back as tuples): a
        record is found through the file's index (``write_recordio`` writes it beside the
        data; a missing or stale one is rebuilt, with a warning) or, in a v2 file, the
        scan of its chunk headers (see ``record_index``).

    Example:
        ```python
        write_recordio("part-0.rec", reader)
        train = recordio("part-*.rec")
        ```
    """
    parts = _path_parts(paths)
    views: dict[str, tuple[tuple[int, int], Any]] = {}  # path -> (its stamp, its view)

    def view(path: str) -> Any:
        info = os.stat(path)
        stamp = (info.st_size, info.st_mtime_ns)
        if path not in views or views[path][0] != stamp:
            views[path] = (stamp, records_view(path))
        return views[path][1]

    def open_pass() -> Any:
        return seek.Chained([view(path) for part in parts for path in _expand(part)])

    return buffered(seek.seekable(open_pass, "record_reader"), buf_size)
