"""Debug printers: v2's ``paddle.layer.printer`` and the ``paddle.evaluator`` printers.

A printer is an ``Evaluator`` with no metric: it is
declared in the current naming scope (as v2 added a print layer or printer evaluator
to its global config), a trainer picks it up when all its inputs are in the trained
topology, and every training or test batch it prints the values of its inputs to
standard output from inside the jitted step (``jax.debug.callback``; lines may come a
little after the step that produced them). The lines follow v2's content, not its
glog formatting.

This module holds the ``Printer`` evaluator, what every printer shares (the valid rows
of a value, the line written) and ``paddle.layer.printer``; the ``paddle.evaluator``
printers are in ``value_printers``, ``seqtext_printer`` and ``gradient_printer``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    declare,
)
from paddle_lite._src.graph import Layer, next_serial
from paddle_lite._src.layers import base
from paddle_lite._src.values import Seq


def valid_rows(value: Any) -> np.ndarray:
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
        jax.debug.callback(functools.partial(emit, render, self), list(values), valid)
        return {}

    def result(self, stats):
        return {}


def without_padding(value: Any, valid: Any) -> Any:
    """``value`` (numpy, a ``Seq`` kept) without the padding rows of a padded batch."""
    if valid is None:
        return jax.tree_util.tree_map(np.asarray, value)
    keep = np.asarray(valid, bool)
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[keep], value)


def emit(render: Callable[..., str], ev: Printer, values: Sequence[Any], valid: Any = None) -> None:
    values = [without_padding(v, valid) for v in values]
    if ev.attrs.get("raw"):  # the render reads the values (numpy, Seq kept) itself
        text = render(ev, values)
    else:
        split = per_sequence_rows if ev.attrs.get("per_sequence") else valid_rows
        text = render(ev, [split(v) for v in values])
    path = ev.attrs.get("result_file")
    if path is None:
        print(text, flush=True)
        return
    with open(path, "a", encoding="utf-8") as out:  # v2 streamed into the file it opened
        out.write(text)


def per_sequence_rows(value: Any) -> list[np.ndarray]:
    """The valid steps of each sequence (one row each for a non-sequence)."""
    if not isinstance(value, Seq):
        return [row[None] for row in np.asarray(value)]
    data, lengths = np.asarray(value.data), np.asarray(value.lengths)
    return [data[b, :n] for b, n in enumerate(lengths)]


def declare_printer(
    name: str, inputs: Sequence[Layer], render: Callable[..., str], **attrs: Any
) -> None:
    declare(Printer(name, inputs, dict(attrs, render=render)))


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
    declare_printer(name, inputs, _render_print, format=format, serial=next_serial())
