"""v2's printer evaluators of values: ``value_printer``, ``maxid_printer``,
``maxframe_printer`` and ``classification_error_printer`` (see ``printers``).
"""

from __future__ import annotations

import numpy as np

from paddle_lite._src.evaluators.base import (
    Evaluator,
    check_layer,
    evaluator_name,
    positive_int,
)
from paddle_lite._src.evaluators.printers import Printer, declare_printer
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base


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
    declare_printer(name, inputs, _render_value)


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
    declare_printer(name, inputs, _render_maxid, num_results=k)


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
    declare_printer(name, [inp], _render_maxframe, num_results=k, per_sequence=True)


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
    declare_printer(name, [inp, lbl], _render_error, threshold=float(threshold))
