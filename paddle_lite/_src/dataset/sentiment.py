"""NLTK's movie_reviews corpus (Pang & Lee polarity 2.0): 1,000 negative and 1,000 positive
reviews, read without NLTK.

Sources, in order, under ``<data home>/sentiment/``: NLTK's ``movie_reviews.zip`` (as
``nltk.download`` stores it, also under ``corpora/``), the extracted folder
``movie_reviews/`` (or ``corpora/movie_reviews/``), then an md5-checked download of the zip.
Members are named like ``movie_reviews/neg/cv000_29416.txt``.

Words are NLTK's ``WordPunctTokenizer`` tokens (``\\w+|[^\\w\\s]+``) of each file. The
dictionary ranks every word of the corpus by falling count (ties by the word, where v2's
order was that of a Python 2 dict). Samples alternate one negative (label 0) and one
positive (label 1) review in file-name order; ``train()`` holds the first 1,600 and
``test()`` the last 400. As in v2, ``train()`` and ``test()`` return generators (not
reader creators).
"""

from __future__ import annotations

import collections
import os
import re
from collections.abc import Iterator

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import corrupt, iter_members

URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/movie_reviews.zip"
MD5 = "155de2b77c6834dd8eea7cbe88e93acb"
ARCHIVE = "movie_reviews.zip"
FOLDER = "movie_reviews"
NUM_TRAINING_INSTANCES = 1600
NUM_TOTAL_INSTANCES = 2000

_MEMBER = re.compile(r"(?:.*/)?movie_reviews/(neg|pos)/[^/]+\.txt$")
_PREFIX = re.compile(r"^(?:.*/)?movie_reviews/")
_TOKEN = re.compile(r"\w+|[^\w\s]+")

Sample = tuple[list[int], int]


def _source() -> str:
    """The zip or folder to read, downloading ``movie_reviews.zip`` if none exists."""
    home = module_home("sentiment")
    for rel in (ARCHIVE, os.path.join("corpora", ARCHIVE)):
        if os.path.isfile(os.path.join(home, rel)):
            return os.path.join(home, rel)
    for rel in (FOLDER, os.path.join("corpora", FOLDER)):
        if os.path.isdir(os.path.join(home, rel)):
            return os.path.dirname(os.path.join(home, rel))
    alternative = (
        f"The extracted folder {os.path.join(home, FOLDER)} (with neg/ and pos/) is accepted "
        "too, as is the copy nltk.download('movie_reviews') leaves under corpora/."
    )
    return download_or_explain(URL, "sentiment", MD5, save_name=ARCHIVE, alternative=alternative)


def _reviews() -> dict[str, list[tuple[str, list[str]]]]:
    """``{"neg": [(file, words)], "pos": [...]}`` in file-name order."""
    source = _source()
    found: dict[str, list[tuple[str, list[str]]]] = {"neg": [], "pos": []}
    for name, content in iter_members(source, lambda n: bool(_MEMBER.match(n)), MD5):
        category = _MEMBER.match(name).group(1)
        found[category].append((name, _TOKEN.findall(content.decode("ascii", "replace"))))
    if not found["neg"] or not found["pos"]:
        raise corrupt(source, "it holds no movie_reviews/neg/*.txt or movie_reviews/pos/*.txt")
    for files in found.values():
        files.sort()
    return found


def get_word_dict() -> list[tuple[str, int]]:
    """``[(word, id)]`` of every word in the corpus, most frequent first.

    Example:
        ```python
        words = paddle.dataset.sentiment.get_word_dict()   # [(',', 0), ('the', 1), ...]
        ```
    """
    freq: collections.Counter = collections.Counter()
    for files in _reviews().values():
        for _, words in files:
            freq.update(words)
    ranked = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(word, index) for index, (word, _) in enumerate(ranked)]


def sort_files() -> list[str]:
    """The review files as NLTK names them, negatives and positives alternating (v2's order).

    Example:
        ```python
        paddle.dataset.sentiment.sort_files()[:2]   # ['neg/cv000_29416.txt', 'pos/cv000_29590.txt']
        ```
    """
    reviews = _reviews()
    pairs = zip(reviews["neg"], reviews["pos"], strict=False)
    return [_PREFIX.sub("", name) for pair in pairs for name, _ in pair]


def load_sentiment_data() -> list[Sample]:
    """Every review as ``([word ids], label)``, negatives and positives alternating."""
    reviews = _reviews()
    ids = dict(get_word_dict())
    data = []
    for neg, pos in zip(reviews["neg"], reviews["pos"], strict=False):
        for (_, words), label in ((neg, 0), (pos, 1)):
            data.append(([ids.get(w.lower(), ids[w]) for w in words], label))
    return data


def _generator(data: list[Sample]) -> Iterator[Sample]:
    yield from data


def train() -> Iterator[Sample]:
    """A generator over the first 1,600 samples ``([word ids], label)``, label 0 = negative."""
    return _generator(load_sentiment_data()[:NUM_TRAINING_INSTANCES])


def test() -> Iterator[Sample]:
    """A generator over the samples after the first 1,600 (400 with the full corpus)."""
    return _generator(load_sentiment_data()[NUM_TRAINING_INSTANCES:])


def fetch() -> str:
    """Download ``movie_reviews.zip`` into the data home and return its path."""
    return download(URL, "sentiment", MD5, save_name=ARCHIVE)


def convert(path: str) -> None:
    """Write the training and test sets as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, train, 1000, "sentiment_train")
    common.convert(path, test, 1000, "sentiment_test")
