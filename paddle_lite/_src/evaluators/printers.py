"""Debug printers: v2's ``paddle.layer.printer`` and the ``paddle.evaluator`` printers.

A printer is an ``Evaluator`` with no metric: it is
declared in the current naming scope (as v2 added a print layer or printer evaluator
to its global config), a trainer picks it up when all its inputs are in the trained
topology, and every training or test batch it prints the values of its inputs to
standard output from inside the jitted step (``jax.debug.callback``; lines may come a
little after the step that produced them). The lines follow v2's content, not its
glog formatting.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.evaluators.classification import (
    Evaluator,
    check_layer,
    declare,
    evaluator_name,
    positive_int,
)
from paddle_lite._src.graph import Layer, next_serial
from paddle_lite._src.layers import base
from paddle_lite._src.values import Seq


def _rows(value: Any) -> np.ndarray:
    """The valid rows of a value: ``[B, ...]``, or every valid step of a sequence."""
    if isinstance(value, Seq):
        data, lengths = np.asarray(value.data), np.asarray(value.lengths)
        if value.sub_lengths is not None:
            subs = np.asarray(value.sub_lengths)
            return np.concatenate(
                [data[b, s, : subs[b, s]] for b in range(len(lengths)) for s in range(lengths[b])]
                or [data[:0, 0, 0]]
            )
        return np.concatenate([data[b, :n] for b, n in enumerate(lengths)] or [data[:0, 0]])
    return np.asarray(value)


class Printer(Evaluator):
    """Prints ``attrs["render"](name, [rows of each input])`` every batch; no metric."""

    type = "printer"

    def batch_stats(self, values, valid=None):
        render: Callable[..., str] = self.attrs["render"]
        jax.debug.callback(functools.partial(_emit, render, self), list(values), valid)
        return {}

    def result(self, stats):
        return {}


def _real(value: Any, valid: Any) -> Any:
    """``value`` (numpy, a ``Seq`` kept) without the padding rows of a padded batch."""
    if valid is None:
        return jax.tree_util.tree_map(np.asarray, value)
    keep = np.asarray(valid, bool)
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[keep], value)


def _emit(
    render: Callable[..., str], ev: Printer, values: Sequence[Any], valid: Any = None
) -> None:
    values = [_real(v, valid) for v in values]
    if ev.attrs.get("raw"):  # the render reads the values (numpy, Seq kept) itself
        text = render(ev, values)
    else:
        split = _sequences if ev.attrs.get("per_sequence") else _rows
        text = render(ev, [split(v) for v in values])
    path = ev.attrs.get("result_file")
    if path is None:
        print(text, flush=True)
        return
    with open(path, "a", encoding="utf-8") as out:  # v2 streamed into the file it opened
        out.write(text)


def _sequences(value: Any) -> list[np.ndarray]:
    """The valid steps of each sequence (one row each for a non-sequence)."""
    if not isinstance(value, Seq):
        return [row[None] for row in np.asarray(value)]
    data, lengths = np.asarray(value.data), np.asarray(value.lengths)
    return [data[b, :n] for b, n in enumerate(lengths)]


def _declare(name: str, inputs: Sequence[Layer], render: Callable[..., str], **attrs: Any) -> None:
    declare(Printer(name, inputs, dict(attrs, render=render)))


# paddle.layer.printer --------------------------------------------------------------
def _render_print(ev: Printer, rows: list[np.ndarray]) -> str:
    return ev.attrs["format"] % tuple(np.array2string(r, threshold=1 << 30) for r in rows)


@base.layer_function
def printer(
    input: Layer | Sequence[Layer],
    format: str | None = None,
    name: str | None = None,
) -> None:
    """Print the values of ``input`` (a layer or a list) every batch, for debugging.

    As in v2 the printer is not a layer: it returns None, cannot feed other layers,
    and runs in training and testing when all its inputs are part of the topology.
    Each batch prints ``format % (values of input 0, values of input 1, ...)``: the
    valid rows of each input (every valid step of a sequence).

    Args:
        input: a layer or a list of layers.
        format: a str with one ``%s`` per input (default ``"layer=<name> %s"`` per
            input, one per line).
        name: the printer's name (default ``__print_<n>__``).

    Returns:
        None.

    Example:
        >>> paddle.layer.printer(input=[x, prob])
    """
    name = base.layer_name(name, "print")
    inputs = base.as_layers(input, layer=name)
    if format is None:
        format = "\n".join(f"layer={layer.name} %s" for layer in inputs)
    if not isinstance(format, str) or format.count("%s") != len(inputs):
        raise LayerTypeError(
            f"printer '{name}': format must be a str with one %s per input ({len(inputs)}); "
            f"received {format!r}."
        )
    _declare(name, inputs, _render_print, format=format, serial=next_serial())


# paddle.evaluator printers ---------------------------------------------------------
def _render_value(ev: Printer, rows: list[np.ndarray]) -> str:
    return "\n".join(
        f"{ev.name}: layer={layer.name} value=\n{np.array2string(r, threshold=1 << 30)}"
        for layer, r in zip(ev.inputs, rows, strict=True)
    )


def value_printer(input: Layer, name: str | None = None) -> Evaluator:
    """Print the values of ``input`` (a layer or a list) every batch (v2's
    ``value_printer_evaluator``).

    Example:
        >>> paddle.evaluator.value_printer(input=prediction)
    """
    name = evaluator_name(name, "value_printer_evaluator")
    inputs = base.as_layers(input, layer=name)
    _declare(name, inputs, _render_value)


def _render_maxid(ev: Printer, rows: list[np.ndarray]) -> str:
    k, lines = ev.attrs["num_results"], []
    for layer, r in zip(ev.inputs, rows, strict=True):
        top = np.argsort(-r.reshape(len(r), -1), axis=1, kind="stable")[:, :k]
        lines.append(f"{ev.name}: layer={layer.name} ids=\n{top}")
    return "\n".join(lines)


def maxid_printer(
    input: Layer,
    num_results: int | None = None,
    name: str | None = None,
) -> Evaluator:
    """Print, per row, the ids of the ``num_results`` largest values (default 1).

    Example:
        >>> paddle.evaluator.maxid_printer(input=prob, num_results=3)
    """
    name = evaluator_name(name, "maxid_printer_evaluator")
    inputs = base.as_layers(input, layer=name)
    k = 1 if num_results is None else positive_int(num_results, f"'{name}'", "num_results")
    _declare(name, inputs, _render_maxid, num_results=k)


def maxframe_printer(
    input: Layer,
    num_results: int | None = None,
    name: str | None = None,
) -> Evaluator:
    """Print, per sequence of a size-1 sequence layer, the positions of its
    ``num_results`` largest frames (default 1).

    Example:
        >>> paddle.evaluator.maxframe_printer(input=frame_scores, num_results=2)
    """
    name = evaluator_name(name, "maxframe_printer_evaluator")
    inp = check_layer(input, f"evaluator '{name}'", "input", size=1, why=" (one score per frame)")
    k = 1 if num_results is None else positive_int(num_results, f"'{name}'", "num_results")
    _declare(name, [inp], _render_maxframe, num_results=k, per_sequence=True)


def _render_maxframe(ev: Printer, frames: list[list[np.ndarray]]) -> str:
    k = ev.attrs["num_results"]
    tops = [np.argsort(-f.reshape(-1), kind="stable")[:k].tolist() for f in frames[0]]
    return f"{ev.name}: layer={ev.inputs[0].name} frames={tops}"


def _render_error(ev: Printer, rows: list[np.ndarray]) -> str:
    pred, label = rows
    if pred.shape[-1] == 1:
        guess = (pred[:, 0] > ev.attrs["threshold"]).astype(np.int64)
    else:
        guess = pred.argmax(axis=-1)
    wrong = (guess != label.reshape(len(label), -1)[:, 0]).astype(np.int64)
    return f"{ev.name}: errors=\n{wrong}"


def classification_error_printer(
    input: Layer,
    label: Layer,
    threshold: float = 0.5,
    name: str | None = None,
) -> Evaluator:
    """Print, per row, 1 where the prediction (argmax, or ``value > threshold`` for a
    size-1 input) differs from ``label`` and 0 where it agrees.

    Example:
        >>> paddle.evaluator.classification_error_printer(input=prob, label=lbl)
    """
    name = evaluator_name(name, "classification_error_printer_evaluator")
    where = f"evaluator '{name}'"
    inp = check_layer(input, where, "input")
    lbl = check_layer(label, where, "label", mode="dense_or_ids")
    _declare(name, [inp, lbl], _render_error, threshold=float(threshold))


# seqtext_printer ---------------------------------------------------------------------
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
    _declare(
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


# gradient_printer --------------------------------------------------------------------
class GradientPrinter(Printer):
    """Prints the gradient of the summed cost with respect to each input's output, every
    training batch, from the backward pass (``grad_taps``); a test batch prints nothing
    (it has no backward pass)."""

    type = "gradient_printer"

    def batch_stats(self, values, valid=None):
        return {}

    def grad_taps(self):
        return {layer.name: functools.partial(_grad_tap, layer.name) for layer in self.inputs}


def _grad_tap(layer_name: str, value: Any, weights: Any = None) -> Any:
    """``value`` unchanged; its cotangent is printed when the backward pass reaches it
    (the rows of weight 0 of a padded batch left out)."""
    if isinstance(value, Seq):
        data = _tap(layer_name, value.data, ((value.lengths, value.sub_lengths), weights))
        return Seq(data, value.lengths, value.sub_lengths)
    if not jnp.issubdtype(value.dtype, jnp.floating):  # ids carry no gradient
        return value
    return _tap(layer_name, value, (None, weights))


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _tap(layer_name: str, data: Any, structure: Any) -> Any:
    return data


def _tap_fwd(layer_name: str, data: Any, structure: Any) -> tuple[Any, Any]:
    return data, structure


def _tap_bwd(layer_name: str, structure: Any, grad: Any) -> tuple[Any, None]:
    jax.debug.callback(functools.partial(_print_grad, layer_name), grad, structure)
    return grad, None


_tap.defvjp(_tap_fwd, _tap_bwd)


def _print_grad(layer_name: str, grad: Any, structure: Any) -> None:
    """v2's GradientPrinter: the gradient rows, and a sequence's start positions."""
    seq, weights = structure
    grad, seq = _real((grad, seq), weights)
    if seq is None:
        print(f"layer={layer_name} grad matrix:\n{_matrix(grad)}", flush=True)
        return
    lengths, sub = seq
    rows = _rows(Seq(grad, lengths, sub))
    starts = np.concatenate([[0], np.cumsum(lengths)])
    print(
        f"layer={layer_name} grad matrix:\n{_matrix(rows)}\n"
        f"layer={layer_name} sequence pos vector:\n{starts}",
        flush=True,
    )


def _matrix(rows: np.ndarray) -> str:
    return np.array2string(rows.reshape(len(rows), -1), threshold=1 << 30)


def gradient_printer(input: Layer, name: str | None = None) -> Evaluator:
    """Print, every training batch, the gradient of the cost with respect to the
    output of each layer in ``input`` (v2's ``gradient_printer_evaluator``): one row
    per sample, or per step of a sequence (then also the sequences' start positions).

    Example:
        >>> paddle.evaluator.gradient_printer(input=hidden)
    """
    name = evaluator_name(name, "gradient_printer_evaluator")
    inputs = base.as_layers(input, layer=name)
    declare(GradientPrinter(name, inputs, {"render": None}))
