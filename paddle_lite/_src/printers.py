"""Debug printers: v2's ``paddle.layer.printer`` and the ``paddle.evaluator`` printers.

A printer is an :class:`~paddle_lite._src.evaluators.Evaluator` with no metric: it is
declared in the current naming scope (as v2 added a print layer or printer evaluator
to its global config), a trainer picks it up when all its inputs are in the trained
topology, and every training or test batch it prints the values of its inputs to
standard output from inside the jitted step (``jax.debug.callback``; lines may come a
little after the step that produced them). The lines follow v2's content, not its
glog formatting.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.evaluators import (
    Evaluator,
    check_layer,
    declare,
    evaluator_name,
    positive_int,
)
from paddle_lite._src.graph import Layer, next_serial
from paddle_lite._src.layers import _base
from paddle_lite._src.typing import Seq


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
        jax.debug.callback(functools.partial(_emit, render, self), list(values))
        return {}

    def result(self, stats):
        return {}


def _emit(render: Callable[..., str], ev: Printer, values: Sequence[Any]) -> None:
    split = _sequences if ev.attrs.get("per_sequence") else _rows
    print(render(ev, [split(v) for v in values]), flush=True)


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


@_base.layer_function
def printer(input, format=None, name=None):  # noqa: A002
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
    name = _base.layer_name(name, "print")
    inputs = _base.as_layers(input, layer=name)
    if format is None:
        format = "\n".join(f"layer={layer.name} %s" for layer in inputs)  # noqa: A001
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


def value_printer(input, name=None):  # noqa: A002
    """Print the values of ``input`` (a layer or a list) every batch (v2's
    ``value_printer_evaluator``).

    Example:
        >>> paddle.evaluator.value_printer(input=prediction)
    """
    name = evaluator_name(name, "value_printer_evaluator")
    inputs = _base.as_layers(input, layer=name)
    _declare(name, inputs, _render_value)


def _render_maxid(ev: Printer, rows: list[np.ndarray]) -> str:
    k, lines = ev.attrs["num_results"], []
    for layer, r in zip(ev.inputs, rows, strict=True):
        top = np.argsort(-r.reshape(len(r), -1), axis=1, kind="stable")[:, :k]
        lines.append(f"{ev.name}: layer={layer.name} ids=\n{top}")
    return "\n".join(lines)


def maxid_printer(input, num_results=None, name=None):  # noqa: A002
    """Print, per row, the ids of the ``num_results`` largest values (default 1).

    Example:
        >>> paddle.evaluator.maxid_printer(input=prob, num_results=3)
    """
    name = evaluator_name(name, "maxid_printer_evaluator")
    inputs = _base.as_layers(input, layer=name)
    k = 1 if num_results is None else positive_int(num_results, f"'{name}'", "num_results")
    _declare(name, inputs, _render_maxid, num_results=k)


def maxframe_printer(input, num_results=None, name=None):  # noqa: A002
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


def classification_error_printer(input, label, threshold=0.5, name=None):  # noqa: A002
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
