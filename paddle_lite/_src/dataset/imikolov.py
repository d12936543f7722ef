"""Penn Treebank language-model data (Mikolov's ``simple-examples``): n-grams or sequences.

``train`` reads ``simple-examples/data/ptb.train.txt`` and ``test`` reads ``ptb.valid.txt``.
Sources, in order: the extracted folder ``<data home>/imikolov/simple-examples/``, the archive
``<data home>/imikolov/simple-examples.tgz`` (any tar with those members), then a download.

Dictionary (``build_dict``): word counts over ``ptb.train.txt`` and ``ptb.valid.txt``, with
``<s>`` and ``<e>`` counted once per line; the corpus's own ``<unk>`` is dropped; words with
count ``> min_word_freq`` are sorted by ``(-count, word)`` and numbered from 0; ``<unk>`` gets the
last id. With the real files and ``min_word_freq=50`` the dictionary has 2,073 entries.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable, Iterator

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.common import DatasetValueError
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import read_text

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"
ARCHIVE = "simple-examples.tgz"
TRAIN_MEMBER = "simple-examples/data/ptb.train.txt"
TEST_MEMBER = "simple-examples/data/ptb.valid.txt"


class DataType:
    """How [`train`][paddle_lite.dataset.imikolov.train]/[`test`][paddle_lite.dataset.imikolov.test]
    cut lines into samples."""

    NGRAM = 1
    SEQ = 2


def _source() -> str:
    """Return the folder or archive holding the PTB files, downloading if needed."""
    home = module_home("imikolov")
    if os.path.isfile(os.path.join(home, TRAIN_MEMBER)):
        return home
    archive = os.path.join(home, ARCHIVE)
    if os.path.isfile(archive):
        return archive
    alternative = (
        f"The extracted files {os.path.join(home, TRAIN_MEMBER)} and "
        f"{os.path.join(home, TEST_MEMBER)} are accepted too."
    )
    return download_or_explain(URL, "imikolov", MD5, save_name=ARCHIVE, alternative=alternative)


def _lines(source: str, member: str) -> list[str]:
    """Return the decoded lines of one PTB member."""
    return read_text(source, member, MD5).splitlines()


def word_count(lines: list[str], word_freq: collections.Counter | None = None):
    """Count words, adding one ``<s>`` and one ``<e>`` per line.

    Args:
      lines: text lines of space-separated tokens.
      word_freq: counts to add to; a new counter when ``None``.

    Returns:
      The updated ``collections.Counter``.
    """
    freq = collections.Counter() if word_freq is None else word_freq
    for line in lines:
        freq.update(line.split())
        freq["<s>"] += 1
        freq["<e>"] += 1
    return freq


def build_dict(min_word_freq: int = 50) -> dict[str, int]:
    """Build the word dictionary from ``ptb.train.txt`` and ``ptb.valid.txt``.

    Args:
      min_word_freq: keep words seen more than this many times.

    Returns:
      ``{word: id}`` with ids ``0..len-1`` by ``(-count, word)`` and ``<unk>`` last
      (2,073 entries for the real data and ``min_word_freq=50``).
    """
    source = _source()
    freq = word_count(_lines(source, TEST_MEMBER), word_count(_lines(source, TRAIN_MEMBER)))
    freq.pop("<unk>", None)
    return common.word_ids(freq, min_word_freq)


def _ngrams(ids: list[int], n: int) -> Iterator[tuple[int, ...]]:
    for end in range(n, len(ids) + 1):
        yield tuple(ids[end - n : end])


def reader_creator(member: str, word_idx: dict[str, int], n: int, data_type: int):
    """Create a reader over one PTB file.

    Args:
      member: ``simple-examples/data/ptb.train.txt`` or ``ptb.valid.txt``.
      word_idx: dictionary from ``build_dict``; must contain ``<unk>`` (and ``<s>``/``<e>``).
      n: n-gram length (NGRAM), or the maximum source length (SEQ; ``n <= 0`` keeps all).
      data_type: ``DataType.NGRAM`` or ``DataType.SEQ``.

    Returns:
      A reader yielding n-tuples of ids (NGRAM) or ``(src_ids, trg_ids)`` (SEQ).

    Raises:
      DatasetValueError: unknown ``data_type``, ``n < 1`` for NGRAM, or ``word_idx`` lacks
        ``<unk>`` (or ``<s>``/``<e>`` for SEQ).
    """
    if data_type not in (DataType.NGRAM, DataType.SEQ):
        raise DatasetValueError(
            f"data_type must be DataType.NGRAM (1) or DataType.SEQ (2); received {data_type!r}."
        )
    if data_type == DataType.NGRAM and n < 1:
        raise DatasetValueError(f"NGRAM samples need n >= 1; received n={n}.")
    needed = ("<unk>",) if data_type == DataType.NGRAM else ("<unk>", "<s>", "<e>")
    missing = [w for w in needed if w not in word_idx]
    if missing:
        raise DatasetValueError(f"word_idx lacks {missing}; build it with imikolov.build_dict().")
    source = _source()

    def reader() -> Iterator:
        unk = word_idx["<unk>"]
        for line in _lines(source, member):
            if data_type == DataType.NGRAM:
                words = ["<s>", *line.split(), "<e>"]
                if len(words) >= n:
                    yield from _ngrams([word_idx.get(w, unk) for w in words], n)
                continue
            ids = [word_idx.get(w, unk) for w in line.split()]
            src, trg = [word_idx["<s>"], *ids], [*ids, word_idx["<e>"]]
            if n > 0 and len(src) > n:
                continue
            yield src, trg

    return reader


def train(
    word_idx: dict[str, int], n: int, data_type: int = DataType.NGRAM
) -> Callable[[], Iterator[tuple[int, ...]]]:
    """Create the training reader over ``ptb.train.txt``.

    Args:
      word_idx: dictionary from [`build_dict`][paddle_lite.dataset.imikolov.build_dict].
      n: n-gram length (NGRAM) or maximum sequence length (SEQ, ``<= 0`` for no limit).
      data_type: ``DataType.NGRAM`` (default) or ``DataType.SEQ``.

    Returns:
      A reader yielding n-tuples of word ids, or ``([<s>] + ids, ids + [<e>])`` pairs.
    """
    return reader_creator(TRAIN_MEMBER, word_idx, n, data_type)


def test(
    word_idx: dict[str, int], n: int, data_type: int = DataType.NGRAM
) -> Callable[[], Iterator[tuple[int, ...]]]:
    """Create the test reader over ``ptb.valid.txt`` (same samples as
    [`train`][paddle_lite.dataset.imikolov.train])."""
    return reader_creator(TEST_MEMBER, word_idx, n, data_type)


def fetch() -> str:
    """Download ``simple-examples.tgz`` into the data home and return its path."""
    return download(URL, "imikolov", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write 5-gram training and test sets as shards under ``path`` (see ``common.convert``)."""
    n = 5
    word_dict = build_dict()
    common.convert(path, train(word_dict, n), 1000, "imikolov_train")
    common.convert(path, test(word_dict, n), 1000, "imikolov_test")
