"""CoNLL-2005 semantic role labelling, public WSJ test set (the data the v2 book trains on).

Sources under ``<data home>/conll05/``: the corpus from the extracted folder
``conll05st-release/`` or from ``conll05st-tests.tar.gz`` (members
``conll05st-release/test.wsj/words/test.wsj.words.gz`` and ``.../props/test.wsj.props.gz``), and
the dictionaries ``wordDict.txt``, ``verbDict.txt``, ``targetDict.txt`` (one entry per line, id =
line number). Files that are absent are downloaded. When ``wordDict.txt`` is absent and cannot be
downloaded, a word dictionary is built from the corpus instead (``<unk>`` = 0, ``bos`` = 1,
``eos`` = 2, then words by ``(-count, word)``) with a ``UserWarning`` naming the missing file;
its ids differ from Paddle's, so ``get_embedding()`` refuses to hand out the pre-trained
table until ``wordDict.txt`` is added.

A sample is one (sentence, predicate) pair: 9 sequences of the sentence's length: word ids,
the ids of the words at predicate -2, -1, 0, +1, +2 (``bos``/``eos`` outside the sentence) each
repeated, the predicate id repeated, a mark (1 within 2 words of the predicate) and label ids.
The WSJ test set gives 5,267 samples.
"""

from __future__ import annotations

import collections
import os
import struct
import warnings
from collections.abc import Callable, Iterator

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import (
    DownloadError,
    download,
    existing_or_download,
    module_home,
)
from paddle_lite._src.dataset.sources import corrupt, gunzip, read_member, reading
from paddle_lite._src.errors import DataError
from paddle_lite._src.tracebacks import user_stacklevel

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
ARCHIVE = "conll05st-tests.tar.gz"
URL_PREFIX = "http://paddlemodels.bj.bcebos.com/conll05st%2F"
WORDDICT_URL = URL_PREFIX + "wordDict.txt"
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = URL_PREFIX + "verbDict.txt"
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = URL_PREFIX + "targetDict.txt"
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = URL_PREFIX + "emb"
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"
WORDS_MEMBER = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS_MEMBER = "conll05st-release/test.wsj/props/test.wsj.props.gz"
UNK_IDX = 0
WORD_DICT_SIZE = 44068
EMB_WIDTH = 32


def load_dict(filename: str) -> dict[str, int]:
    """Read a one-entry-per-line dictionary; the id is the 0-based line number."""
    with open(filename, encoding="utf-8") as f:
        return {line.strip(): i for i, line in enumerate(f)}


def load_label_dict(filename: str) -> dict[str, int]:
    """Build the label dictionary from the tags in ``targetDict.txt``.

    Every tag ``X`` of a ``B-X``/``I-X`` line gets the ids ``B-X`` = 2k and ``I-X`` = 2k+1, in
    order of first appearance; ``O`` gets the last id.

    Args:
      filename: the ``targetDict.txt`` file.

    Returns:
      ``{label: id}``.
    """
    tags: list[str] = []
    with open(filename, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line[:2] in ("B-", "I-") and line[2:] not in tags:
                tags.append(line[2:])
    labels = {}
    for tag in tags:
        labels["B-" + tag] = len(labels)
        labels["I-" + tag] = len(labels)
    labels["O"] = len(labels)
    return labels


def _corpus_source() -> str:
    """Return the folder or archive holding the WSJ test words and props."""
    home = module_home("conll05")
    if os.path.isfile(os.path.join(home, WORDS_MEMBER)):
        return home
    alternative = f"The extracted files under {os.path.join(home, 'conll05st-release')} work too."
    return existing_or_download(DATA_URL, "conll05", DATA_MD5, ARCHIVE, alternative)


def _corpus_lines(source: str) -> tuple[list[str], list[str]]:
    """Return the decoded lines of the words and props files."""
    md5 = "" if os.path.isdir(source) else DATA_MD5
    out = []
    for member in (WORDS_MEMBER, PROPS_MEMBER):
        where = f"{source}:{member}"
        with reading(where, md5):
            data = gunzip(read_member(source, member, md5), where, md5)
            out.append(data.decode("utf-8").splitlines())
    return out[0], out[1]


def _bio_labels(column: list[str], where: str) -> list[str]:
    """Turn one props column of bracketed spans into B-/I-/O labels."""
    labels, tag, inside = [], "O", False
    for cell in column:
        if cell == "*":
            labels.append("I-" + tag if inside else "O")
        elif cell == "*)":
            labels.append("I-" + tag)
            inside = False
        elif cell.startswith("(") and "*" in cell:
            tag = cell[1 : cell.index("*")]
            labels.append("B-" + tag)
            inside = not cell.endswith(")")
        else:
            raise corrupt(where, f"unexpected label cell {cell!r}")
    return labels


def _sentences(source: str) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Yield ``(words, props rows)`` per sentence (a blank props line ends a sentence)."""
    words_lines, props_lines = _corpus_lines(source)
    if len(words_lines) != len(props_lines):
        raise corrupt(
            f"{source}:{PROPS_MEMBER}",
            f"{len(props_lines)} props lines for {len(words_lines)} words lines",
            "" if os.path.isdir(source) else DATA_MD5,
        )
    words: list[str] = []
    rows: list[list[str]] = []
    for word, prop in zip(words_lines, props_lines, strict=True):
        cells = prop.split()
        if cells:
            words.append(word.strip())
            rows.append(cells)
        elif rows:
            yield words, rows
            words, rows = [], []
    if rows:
        yield words, rows


def corpus_reader(source: str | None = None):
    """Create a reader of ``(words, predicate lemma, B-/I-/O labels)`` per predicate.

    Args:
      source: the folder or archive; resolved from the data home when ``None``.

    Returns:
      A reader yielding one triple per predicate of every sentence.
    """

    def reader() -> Iterator[tuple[list[str], str, list[str]]]:
        src = source or _corpus_source()
        where = f"{src}:{PROPS_MEMBER}"
        for words, rows in _sentences(src):
            if len({len(r) for r in rows}) != 1:
                raise corrupt(where, f"ragged columns in the sentence {' '.join(words)!r}")
            columns = list(zip(*rows, strict=True))
            verbs = [v for v in columns[0] if v != "-"]
            if len(verbs) != len(columns) - 1:
                raise corrupt(where, f"{len(verbs)} predicates but {len(columns) - 1} columns")
            for verb, column in zip(verbs, columns[1:], strict=True):
                yield words, verb, _bio_labels(list(column), where)

    return reader


def _context(sentence: list[str], labels: list[str], where: str):
    """Return ``(ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2, mark)`` around the ``B-V`` label."""
    if "B-V" not in labels:
        raise corrupt(where, f"a predicate without a B-V label in {' '.join(sentence)!r}")
    v = labels.index("B-V")
    n = len(labels)
    mark = [1 if abs(i - v) <= 2 else 0 for i in range(n)]
    ctx = [sentence[i] if 0 <= i < n else ("bos" if i < 0 else "eos") for i in range(v - 2, v + 3)]
    return (*ctx, mark)


def reader_creator(corpus, word_dict, predicate_dict, label_dict):
    """Turn a ``corpus_reader`` into the 9-sequence SRL samples.

    Args:
      corpus: a corpus reader.
      word_dict: ``{word: id}``; unknown words map to ``UNK_IDX`` (0).
      predicate_dict: ``{verb lemma: id}``.
      label_dict: ``{label: id}``.

    Returns:
      A reader yielding 9 lists of equal length (see the module docstring).
    """

    def reader() -> Iterator[tuple[list[int], ...]]:
        for sentence, predicate, labels in corpus():
            *ctx, mark = _context(sentence, labels, "conll05 corpus")
            n = len(sentence)
            word_idx = [word_dict.get(w, UNK_IDX) for w in sentence]
            ctx_idx = [[word_dict.get(w, UNK_IDX)] * n for w in ctx]
            pred_idx = [predicate_dict.get(predicate, UNK_IDX)] * n
            label_idx = [_label_id(label_dict, lab) for lab in labels]
            yield (word_idx, *ctx_idx, pred_idx, mark, label_idx)

    return reader


def _label_id(label_dict: dict[str, int], label: str) -> int:
    if label not in label_dict:
        raise corrupt("targetDict.txt", f"label {label!r} of the corpus is not in the dictionary")
    return label_dict[label]


def _build_word_dict(source: str) -> dict[str, int]:
    """Build ``{word: id}`` from the corpus: ``<unk>``, ``bos``, ``eos``, then by count."""
    freq = collections.Counter()
    for words, _ in _sentences(source):
        freq.update(words)
    vocab = {"<unk>": 0, "bos": 1, "eos": 2}
    for w in common.ranked_words(freq):
        vocab.setdefault(w, len(vocab))
    return vocab


def _word_dict() -> dict[str, int]:
    """Load ``wordDict.txt``, or build a dictionary from the corpus when it is unavailable
    (with a ``UserWarning``: its ids do not fit the pre-trained embedding)."""
    try:
        return load_dict(existing_or_download(WORDDICT_URL, "conll05", WORDDICT_MD5))
    except DownloadError:
        built = _build_word_dict(_corpus_source())
        warnings.warn(
            f"conll05: {_word_dict_path()} is missing and cannot be downloaded, so get_dict() "
            f"builds the word dictionary from the test corpus: {len(built):,} words instead of "
            f"wordDict.txt's {WORD_DICT_SIZE:,}, with other ids, so get_embedding()'s table "
            f"does not fit it. Add wordDict.txt (md5 {WORDDICT_MD5}) to that folder to use "
            "v2's dictionary.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return built


def _word_dict_path() -> str:
    return os.path.join(module_home("conll05"), "wordDict.txt")


def _embedding_rows(path: str, width: int = EMB_WIDTH) -> int:
    """Rows of a v2 parameter file (16-byte header, float32 values) of ``width`` columns."""
    with open(path, "rb") as f:
        header = f.read(16)
    if len(header) < 16:
        raise corrupt(path, "it is shorter than the 16-byte parameter header", EMB_MD5)
    count = struct.unpack("<IIQ", header)[2]
    return count // width


def get_dict() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Return ``(word_dict, verb_dict, label_dict)``.

    Returns:
      The word dictionary (``wordDict.txt``, 44,068 words; or built from the corpus), the
      predicate dictionary (``verbDict.txt``, 3,162 verbs) and the label dictionary (B-/I- per
      tag of ``targetDict.txt`` plus ``O``).
    """
    verb_dict = load_dict(existing_or_download(VERBDICT_URL, "conll05", VERBDICT_MD5))
    label_dict = load_label_dict(existing_or_download(TRGDICT_URL, "conll05", TRGDICT_MD5))
    return _word_dict(), verb_dict, label_dict


def get_embedding() -> str:
    """Return the path of the pre-trained word embedding ``emb`` (44,068 x 32 float32).

    The table's rows are the ids of ``wordDict.txt``; the dictionary is checked against it.

    Raises:
      DownloadError: ``emb`` is absent and cannot be downloaded; the message gives its md5.
      DataError: ``wordDict.txt`` is missing (``get_dict()`` then builds another dictionary
        that the table does not fit) or has another number of words than the table's rows;
        the message names the file to add.
    """
    path = existing_or_download(EMB_URL, "conll05", EMB_MD5)
    rows = _embedding_rows(path)
    try:
        words = len(load_dict(existing_or_download(WORDDICT_URL, "conll05", WORDDICT_MD5)))
    except DownloadError as exc:
        raise DataError(
            f"conll05: the embedding {path} has {rows:,} rows, one per word of wordDict.txt, "
            f"but {_word_dict_path()} is missing, so get_dict() builds a different dictionary "
            f"from the corpus and the table would not fit it. Add wordDict.txt (md5 "
            f"{WORDDICT_MD5}) to {module_home('conll05')}. ({exc})"
        ) from None
    if words != rows:
        raise DataError(
            f"conll05: the embedding {path} has {rows:,} rows but {_word_dict_path()} has "
            f"{words:,} words; they must come from the same release (v2's: {WORD_DICT_SIZE:,} "
            f"words; emb md5 {EMB_MD5}, wordDict.txt md5 {WORDDICT_MD5})."
        )
    return path


def test() -> Callable[[], Iterator[tuple[list[int], ...]]]:
    """Create the WSJ test-set reader (5,267 samples), the set the v2 book trains on.

    Returns:
      A reader yielding 9 equal-length id lists per (sentence, predicate).
    """
    word_dict, verb_dict, label_dict = get_dict()
    return reader_creator(corpus_reader(_corpus_source()), word_dict, verb_dict, label_dict)


def fetch() -> None:
    """Download the corpus archive, the three dictionaries and the embedding."""
    download(DATA_URL, "conll05", DATA_MD5, ARCHIVE)
    for url, md5 in (
        (WORDDICT_URL, WORDDICT_MD5),
        (VERBDICT_URL, VERBDICT_MD5),
        (TRGDICT_URL, TRGDICT_MD5),
        (EMB_URL, EMB_MD5),
    ):
        download(url, "conll05", md5)


def convert(path: str) -> None:
    """Write the test set as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, test(), 1000, "conll05_test")
