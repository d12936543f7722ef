"""Helpers shared by the data sets: word dictionaries, and shard files written from readers.

Shards written by ``convert`` are v2 RecordIO files of pickled samples, as v2's
``convert`` wrote them (see ``paddle_lite._src.readers.recordio_v2``): v2 itself,
``converted_reader``, ``paddle.reader.creator.recordio`` and ``cloud_reader`` (whose
master splits them into tasks by chunk) read them. ``converted_reader`` also reads the
paddle_lite record files earlier versions of ``convert`` wrote.
"""

from __future__ import annotations

import glob
import importlib
import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from paddle_lite._src.dataset.sources import corrupt
from paddle_lite._src.errors import DataError, PaddleLiteError
from paddle_lite._src.files import atomic
from paddle_lite._src.readers.recordio_v2 import read_any_samples, write_recordio_v2

Reader = Callable[[], Iterable[Any]]

_FETCHABLE = (
    "uci_housing",
    "mnist",
    "cifar",
    "imikolov",
    "imdb",
    "movielens",
    "conll05",
    "wmt14",
    "wmt16",
    "flowers",
    "mq2007",
    "voc2012",
    "sentiment",
)


class DatasetValueError(PaddleLiteError, ValueError):
    """A data set function received an invalid argument (unknown language, bad count)."""


def _check_callable(fn: Any, what: str) -> None:
    if not callable(fn):
        raise TypeError(f"{what} should be callable; received {type(fn).__name__} {fn!r}.")


def _check_count(line_count: Any) -> None:
    if not isinstance(line_count, int) or line_count < 1:
        raise DatasetValueError(
            f"line_count must be a positive int; received {line_count!r}. "
            "Pass the number of samples per output file."
        )


def ranked_words(freq: Mapping[str, int], cutoff: int = 0) -> list[str]:
    """Return the words counted more than ``cutoff`` times, by ``(-count, word)``.

    Example:
      >>> ranked_words({"b": 2, "a": 2, "c": 5, "d": 1}, cutoff=1)
      ['c', 'a', 'b']
    """
    return sorted((w for w, c in freq.items() if c > cutoff), key=lambda w: (-freq[w], w))


def word_ids(freq: Mapping[str, int], cutoff: int) -> dict[str, int]:
    """Number ``ranked_words`` from 0 and give ``<unk>`` the last id.

    Args:
      freq: word counts.
      cutoff: keep words counted more than this many times.

    Returns:
      ``{word: id}``, e.g. ``{"c": 0, "a": 1, "b": 2, "<unk>": 3}`` for the example above.
    """
    word_idx = {w: i for i, w in enumerate(ranked_words(freq, cutoff))}
    word_idx["<unk>"] = len(word_idx)
    return word_idx


def _chunks(reader: Reader, size: int) -> Iterator[list]:
    """Group the samples of ``reader()`` into lists of ``size`` (the last may be shorter)."""
    chunk: list = []
    for sample in reader():
        chunk.append(sample)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def split(
    reader: Reader,
    line_count: int,
    suffix: str = "%05d.pickle",
    dumper: Callable[[Any, Any], None] = pickle.dump,
) -> list[str]:
    """Write the samples of a reader into files of ``line_count`` samples each.

    File ``i`` is ``suffix % i`` and receives ``dumper(list_of_samples, binary_file)``.

    Args:
      reader: a reader creator's reader (no-argument callable yielding samples).
      line_count: samples per file.
      suffix: printf-style path pattern with one integer field.
      dumper: ``dumper(obj, file)``; defaults to ``pickle.dump``.

    Returns:
      The list of written file names, e.g. 3 files for 10 samples and ``line_count=4``.

    Raises:
      TypeError: ``dumper`` is not callable.
      DatasetValueError: ``line_count`` is not a positive int.
    """
    _check_callable(dumper, "dumper")
    _check_count(line_count)
    written = []
    for index, chunk in enumerate(_chunks(reader, line_count)):
        name = suffix % index
        with atomic.atomic_write(name) as f:  # a file is complete or absent, never half written
            dumper(chunk, f)
        written.append(name)
    return written


def cluster_files_reader(
    files_pattern: str,
    trainer_count: int,
    trainer_id: int,
    loader: Callable[[Any], Iterable[Any]] = pickle.load,
) -> Reader:
    """Create a reader over this trainer's share of the files written by
    [`split`][paddle_lite.dataset.common.split].

    The files matching ``files_pattern`` are sorted; trainer ``trainer_id`` reads file ``i``
    when ``i % trainer_count == trainer_id``. ``loader(binary_file)`` returns the samples of a
    file. The default ``pickle.load`` executes code found in the file, so use it only on files
    you wrote yourself.

    Args:
      files_pattern: a glob pattern, e.g. ``"/tmp/shards/*.pickle"``.
      trainer_count: number of trainers sharing the files.
      trainer_id: this trainer's index, ``0 <= trainer_id < trainer_count``.
      loader: ``loader(file) -> iterable of samples``.

    Returns:
      A no-argument reader yielding the samples of this trainer's files in order.

    Raises:
      TypeError: ``loader`` is not callable.
      DatasetValueError: ``trainer_id`` is outside ``[0, trainer_count)``.
    """
    _check_callable(loader, "loader")
    if not 0 <= trainer_id < trainer_count:
        raise DatasetValueError(
            f"trainer_id must be in [0, trainer_count); received trainer_id={trainer_id}, "
            f"trainer_count={trainer_count}."
        )

    def reader() -> Iterator[Any]:
        files = sorted(glob.glob(files_pattern))
        for index, name in enumerate(files):
            if index % trainer_count == trainer_id:
                with open(name, "rb") as f:
                    yield from loader(f)

    return reader


def convert(output_path: str, reader: Reader, line_count: int, name_prefix: str) -> list[str]:
    """Write a reader's samples as v2 RecordIO shards, as v2's ``convert`` did.

    Shard ``i`` is ``<output_path>/<name_prefix>-%05d`` and holds up to ``line_count`` samples in
    reader order, each record a pickle of one sample (protocol 2, in the form v2's Python 2
    read; ``safe_pickle.dumps_plain``), uncompressed (v2 compressed with snappy, an optional
    dependency here; v2 reads either). ``paddle.reader.creator.recordio``, ``cloud_reader``
    and v2 read the shards back. Each shard is written to a temporary name and renamed.

    Args:
      output_path: folder for the shards (created if needed).
      reader: a no-argument reader.
      line_count: samples per shard.
      name_prefix: shard file prefix, e.g. ``"mnist_train"``.

    Returns:
      The list of written shard paths.

    Raises:
      DatasetValueError: ``line_count`` is not a positive int.
    """
    _check_count(line_count)
    os.makedirs(output_path, exist_ok=True)
    written = []
    for index, chunk in enumerate(_chunks(reader, line_count)):
        name = os.path.join(output_path, f"{name_prefix}-{index:05d}")
        write_recordio_v2(name, lambda chunk=chunk: iter(chunk))
        written.append(name)
    return written


def _read_records(path: str) -> Iterator[Any]:
    """Yield the samples of one shard written by ``convert``."""
    try:
        yield from read_any_samples(path)
    except DataError as exc:
        raise corrupt(path, str(exc)) from exc


def converted_reader(files_pattern: str | list[str]) -> Reader:
    """Create a reader over shards written by [`convert`][paddle_lite.dataset.common.convert].

    Args:
      files_pattern: a glob pattern or an explicit list of shard paths.

    Returns:
      A no-argument reader yielding the samples of the (sorted) shards in order.
    """

    def reader() -> Iterator[Any]:
        if isinstance(files_pattern, str):
            files = sorted(glob.glob(files_pattern))
        else:
            files = list(files_pattern)
        for path in files:
            yield from _read_records(path)

    return reader


def fetch_all() -> None:
    """Download the files of every data set module into the data home.

    Raises:
      DownloadError: a file could not be downloaded (the message says where to put it).
    """
    for name in _FETCHABLE:
        importlib.import_module(f"paddle_lite._src.dataset.{name}").fetch()
