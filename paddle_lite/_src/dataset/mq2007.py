"""LETOR 4.0 MQ2007 (learning to rank): queries, documents with 46 features, relevance 0-2.

Sources, in order, under ``<data home>/mq2007/``: the extracted ``MQ2007/Fold1/train.txt``
and ``test.txt`` (also one level deeper, ``MQ2007/MQ2007/Fold1/``, as the official
``MQ2007.rar`` extracts). The rar itself needs an unrar tool, which paddle_lite does not
bundle: a downloaded or copied ``MQ2007.rar`` is checked (md5) and the error says how to
extract it.

A line reads ``rel qid:Q 1:v ... 46:v #comment``; lines without exactly 48 fields before
``#`` are skipped, as v2 did. Documents of one query are consecutive; queries whose
relevances are all 0 are dropped. Within a query, documents are ranked by falling
relevance (a stable sort). Formats, as v2's ``__reader__``:

- ``pairwise``: ``(array([1]), better[46], worse[46])`` for every pair of documents with
  different relevance;
- ``listwise``: ``(relevances [n, 1], features [n, 46])`` per query;
- ``pointwise``: ``(relevance, features[46])`` and ``plain_txt``: ``(qid, relevance,
  features[46])`` — for the first (most relevant) document of each query only, as v2's
  ``yield next(...)`` gave.

``train()`` and ``test()`` are generator functions themselves (v2), so ``mq2007.train``
can be passed where a reader is expected.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.common import DatasetValueError
from paddle_lite._src.dataset.download import download, module_home
from paddle_lite._src.dataset.sources import corrupt, read_file
from paddle_lite._src.errors import DataError

URL = (
    "http://www.bigdatalab.ac.cn/benchmark/upload/download_source/"
    "7b6dbbe2-842c-11e4-a536-bcaec51b9163_MQ2007.rar"
)
MD5 = "7be1640ae95c6408dab0ae7207bdc706"
ARCHIVE = "MQ2007.rar"
FORMATS = ("pairwise", "pointwise", "listwise", "plain_txt")
N_FEATURES = 46

Query = tuple[int, int, list[float]]  # (qid, relevance, features)


def _fold_file(name: str) -> str:
    """The extracted ``Fold1/<name>``; without it, the reason and the fix."""
    home = module_home("mq2007")
    for rel in ("MQ2007", os.path.join("MQ2007", "MQ2007"), ""):
        path = os.path.join(home, rel, "Fold1", name)
        if os.path.isfile(path):
            return path
    rar = os.path.join(home, ARCHIVE)
    where = os.path.join(home, "MQ2007", "Fold1", name)
    if os.path.isfile(rar):
        raise DataError(
            f"mq2007 reads the extracted {where}; {rar} is a rar archive, which paddle_lite "
            f"cannot open. Extract it there (unrar x {rar} {home}{os.sep})."
        )
    raise DataError(
        f"mq2007: {where} is missing. Download MQ2007.rar (md5 {MD5}) with "
        "paddle.dataset.mq2007.fetch() or from the LETOR 4.0 site, and extract it into "
        f"{home}{os.sep}."
    )


def parse_line(line: str) -> Query | None:
    """``(qid, relevance, features)`` of one line, or None for a malformed line (v2)."""
    parts = line.split("#", 1)[0].split()
    if len(parts) != N_FEATURES + 2:
        return None
    return (
        int(parts[1].split(":")[1]),
        int(parts[0]),
        [float(p.split(":")[1]) for p in parts[2:]],
    )


def load_from_text(path: str) -> list[list[Query]]:
    """The queries of a fold file, each a list of its documents in file order."""
    lists: list[list[Query]] = []
    text = read_file(path).decode("utf-8", errors="replace")
    for line in text.splitlines():
        query = parse_line(line)
        if query is None:
            continue
        if not lists or lists[-1][0][0] != query[0]:
            lists.append([])
        lists[-1].append(query)
    if not lists:
        raise corrupt(path, "no line has a relevance, qid:<id> and 46 features")
    return lists


def _ranked(docs: list[Query]) -> list[Query]:
    return sorted(docs, key=lambda d: -d[1])


def _pairs(docs: list[Query]) -> Iterator[tuple[Any, ...]]:
    for i, left in enumerate(docs):
        for right in docs[i + 1 :]:
            if left[1] != right[1]:
                better, worse = (left, right) if left[1] > right[1] else (right, left)
                yield np.array([1]), np.array(better[2]), np.array(worse[2])


def _samples(docs: list[Query], format: str) -> Iterator[tuple[Any, ...]]:
    docs = _ranked(docs)
    if format == "pairwise":
        yield from _pairs(docs)
    elif format == "listwise":
        yield np.array([[d[1]] for d in docs]), np.array([d[2] for d in docs])
    elif format == "pointwise":
        yield docs[0][1], np.array(docs[0][2])
    else:
        yield docs[0][0], docs[0][1], np.array(docs[0][2])


def _reader(name: str, format: str, shuffle: bool, fill_missing: Any) -> Iterator[Any]:
    if format not in FORMATS:
        raise DatasetValueError(f"mq2007: format must be one of {FORMATS}; received {format!r}.")
    queries = [q for q in load_from_text(_fold_file(name)) if sum(d[1] for d in q) != 0]
    if shuffle:
        np.random.shuffle(queries)
    for docs in queries:
        yield from _samples(docs, format)


def train(
    format: str = "pairwise",
    shuffle: bool = True,
    fill_missing: float = -1,
) -> Iterator[tuple[Any, ...]]:
    """Generate the samples of ``Fold1/train.txt`` in ``format`` (see the module docstring).

    ``shuffle`` shuffles the order of the queries (``numpy.random``); ``fill_missing`` is
    accepted for v2 compatibility (MQ2007 has no missing features).

    Example:
        ```python
        reader = paddle.batch(paddle.dataset.mq2007.train, batch_size=32)
        ```
    """
    return _reader("train.txt", format, shuffle, fill_missing)


def test(
    format: str = "pairwise",
    shuffle: bool = True,
    fill_missing: float = -1,
) -> Iterator[tuple[Any, ...]]:
    """Generate the samples of ``Fold1/test.txt`` in ``format``; see
    [`train`][paddle_lite.dataset.mq2007.train].

    As in v2 (both are ``functools.partial`` of one reader), the queries are shuffled
    unless ``shuffle=False``.
    """
    return _reader("test.txt", format, shuffle, fill_missing)


def fetch() -> str:
    """Download ``MQ2007.rar`` into the data home (extract it there to read it)."""
    return download(URL, "mq2007", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write the pairwise train and test sets as shards under ``path`` (``common.convert``)."""
    common.convert(path, train, 1000, "mq2007_train")
    common.convert(path, test, 1000, "mq2007_test")
