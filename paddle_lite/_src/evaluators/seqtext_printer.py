"""v2's ``seqtext_printer`` evaluator: id sequences written as text (words from a
dictionary file) to a result file every batch (see ``printers``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.evaluators.base import Evaluator, check_layer, evaluator_name
from paddle_lite._src.evaluators.printers import Printer, declare_printer
from paddle_lite._src.graph import Layer
from paddle_lite._src.values import Seq


def _id_sequences(value: Any) -> list[list[list[int]]]:
    """Per sample, its id sequences: one (or one per sub-sequence when nested)."""
    if not isinstance(value, Seq):
        return [[[int(i)]] for i in np.asarray(value).reshape(len(value), -1)[:, 0]]
    data, lengths = np.asarray(value.data), np.asarray(value.lengths)
    if value.sub_lengths is None:
        return [[data[b, :n].reshape(-1).tolist()] for b, n in enumerate(lengths)]
    subs = np.asarray(value.sub_lengths)
    return [
        [data[b, s, : subs[b, s]].reshape(-1).tolist() for s in range(n)]
        for b, n in enumerate(lengths)
    ]


def _render_seqtext(ev: Printer, values: list[Any]) -> str:
    """v2's SequenceTextPrinter lines: ``id`` then, per input, a tab and its tokens."""
    words, space = ev.attrs["dictionary"], " " if ev.attrs["delimited"] else ""
    has_id = ev.attrs["has_id"]
    texts = [
        (_id_sequences(v), isinstance(v, Seq) and v.sub_lengths is not None)
        for v in values[1 if has_id else 0 :]
    ]
    ids = np.asarray(values[0]).reshape(-1).tolist() if has_id else None
    lines = []
    for i in range(len(texts[0][0])):
        line = [str(ids[i] if has_id else i)]
        for text, nested in texts:
            for seq in text[i]:  # a nested sequence: one line per sub-sequence
                line.append("\t" + "".join(space + _token(words, t, ev) for t in seq))
                line.append("\n" if nested else "")
        lines.append("".join(line) + "\n")
    return "".join(lines)


def _token(words: tuple[str, ...], token: int, ev: Printer) -> str:
    if not words:
        return str(token)
    if not 0 <= token < len(words):
        raise IndexError(
            f"seqtext_printer '{ev.name}': id {token} is outside the dictionary of "
            f"{len(words)} words ({ev.attrs['dict_file']})."
        )
    return words[token]


def seqtext_printer(
    input: Layer,
    result_file: str,
    id_input: Layer | None = None,
    dict_file: str | None = None,
    delimited: bool | None = None,
    name: str | None = None,
) -> Evaluator:
    """Write id sequences as text to ``result_file`` every batch (v2's
    ``seqtext_printer_evaluator``), e.g. the words a model predicts.

    Each sample gives one line: its id (the ``id_input`` value, else its index in
    the batch), then a tab and its tokens, each preceded by a space when
    ``delimited`` (default True); with ``dict_file`` (one word per line, line ``i``
    for id ``i``) a token is its word, else the id. A nested sequence writes one
    tab-led line per sub-sequence. As when v2 opened it, the file is emptied when
    the printer is declared; lines are appended as batches run (in training and
    ``test``).

    Example:
        >>> paddle.evaluator.seqtext_printer(input=guess, result_file=path)
    """
    name = evaluator_name(name, "seqtext_printer_evaluator")
    where = f"evaluator '{name}'"
    inp = check_layer(input, where, "input", mode="ids")
    if not isinstance(result_file, (str, os.PathLike)) or not os.fspath(result_file):
        raise LayerTypeError(f"{where}: result_file must be a file path; received {result_file!r}.")
    inputs = (
        [inp] if id_input is None else [check_layer(id_input, where, "id_input", mode="ids"), inp]
    )
    words: tuple[str, ...] = ()
    if dict_file:
        with open(dict_file, encoding="utf-8") as f:
            words = tuple(line.rstrip("\r\n") for line in f)
    path = os.fspath(result_file)
    open(path, "w").close()
    declare_printer(
        name,
        inputs,
        _render_seqtext,
        raw=True,
        result_file=path,
        dictionary=words,
        dict_file=dict_file,
        has_id=id_input is not None,
        delimited=True if delimited is None else bool(delimited),
    )
