"""WMT16 multimodal task 1 (Multi30K) English-German translation: train / validation / test.

Sources, in order, under ``<data home>/wmt16/``: the archive ``wmt16.tar.gz`` (members
``wmt16/train``, ``wmt16/val``, ``wmt16/test``, each ``<en tokens>\\t<de tokens>`` per line), the
extracted files ``wmt16/wmt16/{train,val,test}``, the raw corpus ``multi30k_task1_raw/``
(``{train,val,test_2016_flickr}.{en,de}.gz``, one untokenised sentence per line), then a
download of the archive.

Raw sentences are split by ``tokenize``, a regular expression that approximates the Moses
``tokenizer.perl`` used for Paddle's archive (punctuation split off, hyphenated words and
decimal numbers kept whole, no escaping), so dictionaries built from the raw corpus are close
to, but not identical with, Paddle's (11,246 vs 11,250 English and 19,151 vs 19,220 German
types on the training set).

Dictionaries are cached as ``<data home>/wmt16/<lang>_<size>.dict``: ``<s>`` = 0, ``<e>`` = 1,
``<unk>`` = 2, then training-set words by ``(-count, word)``. A sample is
``(src_ids, trg_ids, trg_ids_next)``: ``<s>`` + source + ``<e>``; ``<s>`` + target;
target + ``<e>``.
"""

from __future__ import annotations

import collections
import logging
import os
import re
from collections.abc import Callable, Iterator

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.common import DatasetValueError
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import gunzip, read_file, read_text, reading
from paddle_lite._src.files import atomic

logger = logging.getLogger("paddle_lite.dataset.wmt16")

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
DATA_MD5 = "0c38be43600334966403524a40dcd81e"
ARCHIVE = "wmt16.tar.gz"
RAW_DIR = "multi30k_task1_raw"
RAW_SPLITS = {"train": "train", "val": "val", "test": "test_2016_flickr"}
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK = "<s>"
END_MARK = "<e>"
UNK_MARK = "<unk>"

_NUMBER = r"\d+(?:[.,]\d+)+|\.{2,}|\w+(?:-\w+)*"
_TOKEN = {
    "en": re.compile(_NUMBER + r"|'\w+|[^\w\s]"),
    "de": re.compile(_NUMBER + r"|[^\w\s]"),
}

Pair = tuple[list[str], list[str]]
Sample = tuple[list[int], list[int], list[int]]


def tokenize(sentence: str, lang: str) -> list[str]:
    """Split a raw sentence into tokens, approximating Moses ``tokenizer.perl``.

    Punctuation becomes separate tokens; hyphenated words, decimal numbers and ``...`` stay
    whole. In English an apostrophe starts a new token (``don't`` -> ``don 't``); in German it is
    a token of its own.

    Args:
      sentence: one untokenised sentence.
      lang: ``"en"`` or ``"de"``.

    Returns:
      The tokens.

    Example:
      >>> tokenize("Two young, White males are outside.", "en")
      ['Two', 'young', ',', 'White', 'males', 'are', 'outside', '.']
    """
    return _TOKEN[lang].findall(sentence)


def _check_lang(lang: str, what: str = "src_lang") -> None:
    if lang not in ("en", "de"):
        raise DatasetValueError(
            f"{what} must be 'en' (English) or 'de' (German); received {lang!r}."
        )


def _raw_pairs(home: str, split: str) -> list[Pair]:
    """Tokenise the raw Multi30K files of one split into (en, de) token lists."""
    sides = []
    for lang in ("en", "de"):
        path = os.path.join(home, RAW_DIR, f"{RAW_SPLITS[split]}.{lang}.gz")
        with reading(path):
            sides.append(gunzip(read_file(path), path).decode("utf-8").splitlines())
    if len(sides[0]) != len(sides[1]):
        where = os.path.join(home, RAW_DIR)
        raise DatasetValueError(
            f"{where}: {RAW_SPLITS[split]}.en.gz has {len(sides[0])} lines but "
            f"{RAW_SPLITS[split]}.de.gz has {len(sides[1])}; the files must be aligned."
        )
    return [(tokenize(en, "en"), tokenize(de, "de")) for en, de in zip(*sides, strict=True)]


def _tokenized_pairs(source: str, split: str) -> list[Pair]:
    """Read ``wmt16/<split>`` (``en\\tde`` token lines) from the archive or folder."""
    md5 = "" if os.path.isdir(source) else DATA_MD5
    text = read_text(source, f"wmt16/{split}", md5)
    pairs = []
    for line in text.splitlines():
        parts = line.strip().split("\t")
        if len(parts) == 2:
            pairs.append((parts[0].split(), parts[1].split()))
    return pairs


def corpus(split: str) -> list[Pair]:
    """Return the ``(en tokens, de tokens)`` pairs of ``"train"``, ``"val"`` or ``"test"``.

    Raises:
      DownloadError: no archive, extracted files or raw corpus, and no download possible.
    """
    home = module_home("wmt16")
    archive = os.path.join(home, ARCHIVE)
    if os.path.isfile(archive):
        return _tokenized_pairs(archive, split)
    if os.path.isfile(os.path.join(home, "wmt16", split)):
        return _tokenized_pairs(home, split)
    if os.path.isfile(os.path.join(home, RAW_DIR, f"{RAW_SPLITS[split]}.en.gz")):
        return _raw_pairs(home, split)
    alternative = (
        f"The extracted files {os.path.join(home, 'wmt16', split)} or the raw Multi30K files "
        f"{os.path.join(home, RAW_DIR, RAW_SPLITS[split])}.{{en,de}}.gz work too."
    )
    return _tokenized_pairs(
        download_or_explain(DATA_URL, "wmt16", DATA_MD5, ARCHIVE, alternative), split
    )


def _dict_words(lang: str, dict_size: int) -> list[str]:
    """The first ``dict_size`` dictionary entries: marks, then training words by count."""
    column = 0 if lang == "en" else 1
    freq = collections.Counter(w for pair in corpus("train") for w in pair[column])
    return [START_MARK, END_MARK, UNK_MARK, *common.ranked_words(freq)][:dict_size]


def _write_atomic(path: str, lines: list[str]) -> None:
    atomic.write_text(path, "".join(w + "\n" for w in lines), makedirs=True)


def _load_words(lang: str, dict_size: int) -> list[str]:
    """Return the dictionary entries, reading the cache file or building and caching it."""
    path = os.path.join(module_home("wmt16"), f"{lang}_{dict_size}.dict")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            words = [line.rstrip("\n") for line in f]
        # a shorter file means the training vocabulary ran out before dict_size entries
        if 3 <= len(words) <= dict_size and words[:3] == [START_MARK, END_MARK, UNK_MARK]:
            return words
    words = _dict_words(lang, dict_size)
    try:
        _write_atomic(path, words)
    except OSError as exc:
        logger.info("wmt16: cannot cache the dictionary at %s (%s); using it in memory.", path, exc)
    return words


def _capped(lang: str, dict_size: int) -> int:
    return min(dict_size, TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)


def get_dict(lang: str, dict_size: int, reverse: bool = False) -> dict:
    """Return the dictionary of one language, building and caching it when needed.

    Args:
      lang: ``"en"`` or ``"de"``.
      dict_size: number of entries (capped at 11,250 for en and 19,220 for de).
      reverse: when true map id to word, else word to id.

    Returns:
      ``{word: id}`` (or ``{id: word}``) starting ``<s>`` = 0, ``<e>`` = 1, ``<unk>`` = 2.
    """
    _check_lang(lang, "lang")
    words = _load_words(lang, _capped(lang, dict_size))
    if reverse:
        return dict(enumerate(words))
    return {w: i for i, w in enumerate(words)}


def reader_creator(split: str, src_dict_size: int, trg_dict_size: int, src_lang: str):
    """Create a reader over one split.

    Args:
      split: ``"train"``, ``"val"`` or ``"test"``.
      src_dict_size: source dictionary size.
      trg_dict_size: target dictionary size.
      src_lang: ``"en"`` (English to German) or ``"de"`` (German to English).

    Returns:
      A reader yielding ``(src_ids, trg_ids, trg_ids_next)``.
    """
    _check_lang(src_lang)
    trg_lang = "de" if src_lang == "en" else "en"

    def reader() -> Iterator[Sample]:
        src_dict = get_dict(src_lang, src_dict_size)
        trg_dict = get_dict(trg_lang, trg_dict_size)
        start, end, unk = (src_dict[m] for m in (START_MARK, END_MARK, UNK_MARK))
        src_col = 0 if src_lang == "en" else 1
        for pair in corpus(split):
            src_ids = [start, *(src_dict.get(w, unk) for w in pair[src_col]), end]
            trg_ids = [trg_dict.get(w, unk) for w in pair[1 - src_col]]
            yield src_ids, [start, *trg_ids], [*trg_ids, end]

    return reader


def train(
    src_dict_size: int, trg_dict_size: int, src_lang: str = "en"
) -> Callable[[], Iterator[Sample]]:
    """Create the training reader (29,000 pairs).

    Args:
      src_dict_size: source dictionary size.
      trg_dict_size: target dictionary size.
      src_lang: ``"en"`` or ``"de"``; anything else raises ``ValueError``.

    Returns:
      A reader yielding ``(src_ids, trg_ids, trg_ids_next)``.
    """
    return reader_creator("train", src_dict_size, trg_dict_size, src_lang)


def test(
    src_dict_size: int, trg_dict_size: int, src_lang: str = "en"
) -> Callable[[], Iterator[Sample]]:
    """Create the test reader (1,000 pairs); arguments as
    [`train`][paddle_lite.dataset.wmt16.train]."""
    return reader_creator("test", src_dict_size, trg_dict_size, src_lang)


def validation(
    src_dict_size: int, trg_dict_size: int, src_lang: str = "en"
) -> Callable[[], Iterator[Sample]]:
    """Create the validation reader (1,014 pairs); arguments as
    [`train`][paddle_lite.dataset.wmt16.train]."""
    return reader_creator("val", src_dict_size, trg_dict_size, src_lang)


def fetch() -> str:
    """Download ``wmt16.tar.gz`` into the data home and return its path."""
    return download(DATA_URL, "wmt16", DATA_MD5, ARCHIVE)


def convert(
    path: str, src_dict_size: int = 30000, trg_dict_size: int = 30000, src_lang: str = "en"
) -> None:
    """Write the three splits as shards under ``path`` (see ``common.convert``)."""
    for name, make in (("train", train), ("test", test), ("validation", validation)):
        reader = make(src_dict_size, trg_dict_size, src_lang)
        common.convert(path, reader, 1000, f"wmt16_{name}")
