"""IMDB movie reviews (aclImdb): binary sentiment, 25,000 training and 25,000 test reviews.

Sources, in order, under ``<data home>/imdb/``: Paddle's ``aclImdb_v1.tar.gz``, the repack
``aclImdb_labeled.tar.gz`` (same member names, labelled reviews only), the extracted folder
``aclImdb/``, then a download of ``aclImdb_v1.tar.gz``. Members are named like
``aclImdb/train/pos/0_9.txt``.

Tokenisation: strip the trailing newline, delete ASCII punctuation, lower-case, split on
whitespace. Labels: pos = 0, neg = 1. Readers alternate one positive and one negative review;
when one class runs out, the rest of the other follows.
"""

from __future__ import annotations

import collections
import os
import re
import string
from collections.abc import Callable, Iterator

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import iter_members

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"
ARCHIVE = "aclImdb_v1.tar.gz"
LABELED_ARCHIVE = "aclImdb_labeled.tar.gz"
FOLDER = "aclImdb"

TRAIN_POS_PATTERN = re.compile(r"aclImdb/train/pos/.*\.txt$")
TRAIN_NEG_PATTERN = re.compile(r"aclImdb/train/neg/.*\.txt$")
TEST_POS_PATTERN = re.compile(r"aclImdb/test/pos/.*\.txt$")
TEST_NEG_PATTERN = re.compile(r"aclImdb/test/neg/.*\.txt$")
ALL_PATTERN = re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")

_DROP_PUNCT = bytes.maketrans(b"", b"")
_PUNCT = string.punctuation.encode("ascii")

Sample = tuple[list[int], int]


def _source() -> str:
    """Return the archive or folder to read, downloading ``aclImdb_v1.tar.gz`` if none exists."""
    home = module_home("imdb")
    for name in (ARCHIVE, LABELED_ARCHIVE):
        if os.path.isfile(os.path.join(home, name)):
            return os.path.join(home, name)
    if os.path.isdir(os.path.join(home, FOLDER)):
        return home
    alternative = (
        f"{os.path.join(home, LABELED_ARCHIVE)} or the extracted folder "
        f"{os.path.join(home, FOLDER)} are accepted too."
    )
    return download_or_explain(URL, "imdb", MD5, save_name=ARCHIVE, alternative=alternative)


def _byte_tokens(raw: bytes) -> list[bytes]:
    """Tokenise review bytes: strip the newline, drop ASCII punctuation, lower-case, split."""
    return raw.rstrip(b"\n\r").translate(_DROP_PUNCT, _PUNCT).lower().split()


def _decoded(tokens: list[bytes]) -> list[str]:
    return [token.decode("utf-8", errors="replace") for token in tokens]


def tokenize_text(raw: bytes) -> list[str]:
    """Tokenise one review as v2 does.

    Args:
      raw: the review file's bytes.

    Returns:
      Lower-case tokens without ASCII punctuation.

    Example:
      >>> tokenize_text(b"It's GREAT, isn't it?\\n")
      ['its', 'great', 'isnt', 'it']
    """
    return _decoded(_byte_tokens(raw))


def _byte_docs(pattern: re.Pattern) -> Iterator[list[bytes]]:
    """Yield the byte tokens of the reviews whose member name matches ``pattern``."""
    source = _source()
    md5 = MD5 if source.endswith(ARCHIVE) else ""
    for _, content in iter_members(source, lambda name: bool(pattern.match(name)), md5):
        yield _byte_tokens(content)


def tokenize(pattern: re.Pattern) -> Iterator[list[str]]:
    """Yield the token lists of the reviews whose member name matches ``pattern``.

    Args:
      pattern: a compiled regex matched against names like ``aclImdb/train/pos/0_9.txt``.

    Returns:
      An iterator of token lists, in archive order.
    """
    for doc in _byte_docs(pattern):
        yield _decoded(doc)


def build_dict(pattern: re.Pattern, cutoff: int) -> dict[str, int]:
    """Build a word dictionary from the reviews matching ``pattern``.

    Args:
      pattern: a compiled regex on member names.
      cutoff: keep words seen more than this many times.

    Returns:
      ``{word: id}`` sorted by ``(-count, word)``, with ``<unk>`` as the last id.
    """
    byte_freq: collections.Counter = collections.Counter()
    for doc in _byte_docs(pattern):
        byte_freq.update(doc)
    freq: collections.Counter = collections.Counter()
    for token, count in byte_freq.items():
        freq[token.decode("utf-8", errors="replace")] += count
    return common.word_ids(freq, cutoff)


def _alternate(first: Iterator, second: Iterator) -> Iterator[tuple[object, int]]:
    """Yield ``(item, 0)`` and ``(item, 1)`` in turn; when one side ends, drain the other."""
    streams = [first, second]
    turn = 0
    while True:
        item = next(streams[turn], None)
        if item is None:
            break
        yield item, turn
        turn = 1 - turn
    other = 1 - turn
    for item in streams[other]:
        yield item, other


def reader_creator(
    pos_pattern: re.Pattern, neg_pattern: re.Pattern, word_idx: dict[str, int]
) -> Callable[[], Iterator[Sample]]:
    """Create a reader alternating positive (label 0) and negative (label 1) reviews.

    Args:
      pos_pattern: member-name regex of the positive reviews.
      neg_pattern: member-name regex of the negative reviews.
      word_idx: dictionary with an ``<unk>`` entry.

    Returns:
      A reader yielding ``([word ids], label)``.
    """
    unk = word_idx["<unk>"]
    byte_idx = {w.encode("utf-8"): i for w, i in word_idx.items()}

    def reader() -> Iterator[Sample]:
        for doc, label in _alternate(_byte_docs(pos_pattern), _byte_docs(neg_pattern)):
            yield [byte_idx.get(w, unk) for w in doc], label

    return reader


def train(word_idx: dict[str, int]) -> Callable[[], Iterator[Sample]]:
    """Create the training reader (25,000 reviews with the full data).

    Args:
      word_idx: dictionary from [`word_dict`][paddle_lite.dataset.imdb.word_dict] or
          [`build_dict`][paddle_lite.dataset.imdb.build_dict].

    Returns:
      A reader yielding ``([word ids], label)``, label 0 = positive, 1 = negative.
    """
    return reader_creator(TRAIN_POS_PATTERN, TRAIN_NEG_PATTERN, word_idx)


def test(word_idx: dict[str, int]) -> Callable[[], Iterator[Sample]]:
    """Create the test reader (25,000 reviews with the full data); see
    [`train`][paddle_lite.dataset.imdb.train]."""
    return reader_creator(TEST_POS_PATTERN, TEST_NEG_PATTERN, word_idx)


def word_dict(cutoff: int = 150) -> dict[str, int]:
    """Build the dictionary over all labelled train and test reviews.

    Args:
      cutoff: keep words seen more than this many times.

    Returns:
      ``{word: id}`` (5,147 entries over the full 50,000 reviews with ``cutoff=150``).
    """
    return build_dict(ALL_PATTERN, cutoff)


def fetch() -> str:
    """Download ``aclImdb_v1.tar.gz`` into the data home and return its path."""
    return download(URL, "imdb", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write the training and test sets as shards under ``path`` (see ``common.convert``)."""
    w = word_dict()
    common.convert(path, train(w), 1000, "imdb_train")
    common.convert(path, test(w), 1000, "imdb_test")
