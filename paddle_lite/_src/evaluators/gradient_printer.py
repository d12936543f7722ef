"""v2's ``gradient_printer`` evaluator: the gradient of the cost with respect to layer
outputs, printed from the backward pass of every training batch (see ``printers``).

Each input's output goes through an identity with a custom VJP (``grad_taps``) whose
backward pass prints the cotangent it receives.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.evaluators.base import Evaluator, declare, evaluator_name
from paddle_lite._src.evaluators.printers import Printer, valid_rows, without_padding
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.values import Seq


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
    grad, seq = without_padding((grad, seq), weights)
    if seq is None:
        print(f"layer={layer_name} grad matrix:\n{_matrix(grad)}", flush=True)
        return
    lengths, sub = seq
    rows = valid_rows(Seq(grad, lengths, sub))
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
