"""WMT14 French-English translation, Paddle's shrunk ``wmt14.tgz`` (train / test / gen splits).

Sources, in order, under ``<data home>/wmt14/``: the archive ``wmt14.tgz`` (any tar holding the
members below), the same files extracted into that folder, then a download. The members whose
names end in ``src.dict`` and ``trg.dict`` are the dictionaries (one word per line, id = line
number, starting ``<s>``, ``<e>``, ``<unk>``); those ending in ``train/train``, ``test/test`` and
``gen/gen`` hold ``<source tokens>\\t<target tokens>`` lines.

A sample is ``(src_ids, trg_ids, trg_ids_next)``: ``<s>`` + source + ``<e>``; ``<s>`` + target;
target + ``<e>``. Pairs whose source (with marks) or target has more than 80 ids are dropped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, download_or_explain, module_home
from paddle_lite._src.dataset.sources import corrupt, iter_members

if TYPE_CHECKING:
    from paddle_lite._src.parameters import Parameters

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
ARCHIVE = "wmt14.tgz"
START = "<s>"
END = "<e>"
UNK = "<unk>"
UNK_IDX = 2
MAX_LENGTH = 80
URL_MODEL = "http://paddlepaddle.bj.bcebos.com/demo/wmt_14/wmt14_model.tar.gz"
MD5_MODEL = "0cb4a5366189b6acba876491c8724fa3"

Sample = tuple[list[int], list[int], list[int]]


def _source() -> str:
    """Return the archive or folder holding the wmt14 files, downloading if needed."""
    home = module_home("wmt14")
    archive = os.path.join(home, ARCHIVE)
    if os.path.isfile(archive):
        return archive
    if os.path.isdir(home) and any(
        f.endswith("src.dict") for _, _, files in os.walk(home) for f in files
    ):
        return home
    alternative = f"The extracted files (src.dict, trg.dict, train/train, ...) in {home} work too."
    return download_or_explain(URL_TRAIN, "wmt14", MD5_TRAIN, ARCHIVE, alternative)


def _members(source: str, suffix: str) -> Iterator[tuple[str, bytes]]:
    md5 = "" if os.path.isdir(source) else MD5_TRAIN
    return iter_members(source, lambda name: name.endswith(suffix), md5)


def _to_dict(content: bytes, size: int) -> dict[str, int]:
    """Map the first ``size`` lines of a dictionary file to their line numbers."""
    lines = content.decode("utf-8").splitlines()[:size]
    return {line.strip(): i for i, line in enumerate(lines)}


def read_to_dict(source: str, dict_size: int) -> tuple[dict[str, int], dict[str, int]]:
    """Read the source and target dictionaries, truncated to ``dict_size`` entries.

    Args:
      source: the archive or folder.
      dict_size: number of leading lines to keep.

    Returns:
      ``(src_dict, trg_dict)`` mapping word to id.

    Raises:
      CorruptFileError: there is not exactly one ``src.dict`` and one ``trg.dict``.
    """
    out = []
    for suffix in ("src.dict", "trg.dict"):
        found = list(_members(source, suffix))
        if len(found) != 1:
            names = [name for name, _ in found]
            raise corrupt(source, f"expected exactly one member ending in {suffix}, found {names}")
        words = _to_dict(found[0][1], dict_size)
        if START not in words or END not in words:
            raise corrupt(
                f"{source}:{found[0][0]}",
                f"the first entries must be {START}, {END}, {UNK}; dict_size={dict_size} "
                "must be at least 3",
            )
        out.append(words)
    return out[0], out[1]


def _samples(content: bytes, src_dict, trg_dict) -> Iterator[Sample]:
    for line in content.decode("utf-8").splitlines():
        parts = line.strip().split("\t")
        if len(parts) != 2:
            continue
        src_ids = [src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
        trg_ids = [trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
        if len(src_ids) > MAX_LENGTH or len(trg_ids) > MAX_LENGTH:
            continue
        yield src_ids, [trg_dict[START], *trg_ids], [*trg_ids, trg_dict[END]]


def reader_creator(source: str, file_name: str, dict_size: int) -> Callable[[], Iterator[Sample]]:
    """Create a reader over the members whose names end in ``file_name``.

    Args:
      source: the archive or folder.
      file_name: ``"train/train"``, ``"test/test"`` or ``"gen/gen"``.
      dict_size: dictionary size for both languages.

    Returns:
      A reader yielding ``(src_ids, trg_ids, trg_ids_next)``.
    """

    def reader() -> Iterator[Sample]:
        src_dict, trg_dict = read_to_dict(source, dict_size)
        for _, content in _members(source, file_name):
            yield from _samples(content, src_dict, trg_dict)

    return reader


def train(dict_size: int) -> Callable[[], Iterator[Sample]]:
    """Create the training reader (``train/train``; 193,319 pairs in Paddle's archive)."""
    return reader_creator(_source(), "train/train", dict_size)


def test(dict_size: int) -> Callable[[], Iterator[Sample]]:
    """Create the test reader (``test/test``; 6,003 pairs in Paddle's archive)."""
    return reader_creator(_source(), "test/test", dict_size)


def gen(dict_size: int) -> Callable[[], Iterator[Sample]]:
    """Create the generation reader (``gen/gen``)."""
    return reader_creator(_source(), "gen/gen", dict_size)


def get_dict(dict_size: int, reverse: bool = True) -> tuple[dict, dict]:
    """Return ``(src_dict, trg_dict)``.

    Args:
      dict_size: number of entries to keep.
      reverse: when true (the v2 default) map id to word, else word to id.

    Returns:
      The source and target dictionaries.
    """
    src_dict, trg_dict = read_to_dict(_source(), dict_size)
    if reverse:
        src_dict = {v: k for k, v in src_dict.items()}
        trg_dict = {v: k for k, v in trg_dict.items()}
    return src_dict, trg_dict


def model() -> Parameters:
    """The pre-trained chapter 8 parameters (``wmt14_model.tar.gz``, BLEU 26.92 in v2's book).

    Read from ``<data home>/wmt14/wmt14_model.tar.gz`` when present, else downloaded.

    Returns:
        A ``paddle.parameters.Parameters`` for ``seq_to_seq_net`` with dictionaries of 30,000.
    """
    path = download(URL_MODEL, "wmt14", MD5_MODEL)
    # Imported late so the dataset package stays free of the compute stack at import.
    from paddle_lite._src.parameters import Parameters

    return Parameters.from_tar(path)


def fetch() -> str:
    """Download ``wmt14.tgz`` into the data home and return its path."""
    return download(URL_TRAIN, "wmt14", MD5_TRAIN, ARCHIVE)


def convert(path: str) -> None:
    """Write the training and test sets (dictionary size 30,000) as shards under ``path``."""
    dict_size = 30000
    common.convert(path, train(dict_size), 1000, "wmt14_train")
    common.convert(path, test(dict_size), 1000, "wmt14_test")
