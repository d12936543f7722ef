"""Compute one layer: its kind's ``apply``, then the layer's activation, dropout and
error clipping (``ExtraAttr``), which every kind shares.

``compile`` runs a topology's layers with ``run``; a recurrent group's step
(``step_graph``) and its tail (``recurrent.tail``) run theirs the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import UNRUNNABLE, get_kind
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.values import (
    Seq,
    data_of,
    lengths_agree,
    nan_unless,
    step_mask,
    steps_alike,
    with_data,
)


def run(
    layer: Layer,
    params: Mapping[str, Any],
    inputs: Sequence[Any],
    *,
    key,
    mode: str,
    row_weights: Any = None,
):
    """Compute ``layer``: its kind's ``apply``, then activation, dropout and error clipping.

    ``row_weights`` (``[batch]``, 0 on padding rows, or None) reach kinds that declare
    ``uses_row_weights``. A kind whose ``host.aligns_rows`` gets its rows checked, and its
    output is NaN for the samples whose aligned inputs differ in length.

    Returns ``(value, state_updates)``; ``state_updates`` maps global parameter
    names to new values (empty unless the kind is stateful and ``mode == "train"``).
    """
    kind = get_kind(layer.kind)
    if layer.attrs.get(UNRUNNABLE):  # a configuration v2 built but could not run
        raise LayerConfigError(
            f"layer '{layer.name}' ({layer.kind}) cannot run: {layer.attrs[UNRUNNABLE]}"
        )
    agree = None
    if kind.host.aligns_rows:
        _check_rows(layer, inputs)
        inputs = steps_alike(list(inputs))
        aligned = kind.host.aligned_inputs([x.spec for x in layer.inputs], layer.attrs)
        agree = lengths_agree([inputs[i] for i in aligned if isinstance(inputs[i], Seq)], True)
    local = {p.role: params[p.name] for p in layer.params}
    extra = {"row_weights": row_weights} if kind.uses_row_weights else {}
    out = kind.apply(local, list(inputs), layer.attrs, key=key, mode=mode, **extra)
    updates: dict[str, Any] = {}
    if kind.stateful:
        out, state = out
        by_role = {p.role: p.name for p in layer.params}
        updates = {by_role[role]: v for role, v in state.items()}
    act = layer.attrs.get("act")
    if act is not None:
        out = _apply_activation(act, out)
    drop_rate = layer.attrs.get("drop_rate")
    if drop_rate:
        out = _dropout(out, drop_rate, key=key, mode=mode)
    threshold = layer.attrs.get("error_clipping_threshold")
    if threshold:
        out = with_data(out, clip_gradient(data_of(out), float(threshold)))
    return nan_unless(out, agree), updates


def _check_rows(layer: Layer, inputs: Sequence[Any]) -> None:
    """A layer that pairs its inputs' rows needs as many of them in each (a ``resize``
    before it changes the count; v2 stopped on the first such batch)."""
    named = zip(layer.inputs, inputs, strict=False)
    rows = {x.name: getattr(data_of(v), "shape", ())[:1] for x, v in named}
    if len({r for r in rows.values() if r}) > 1:
        counts = {name: r[0] for name, r in rows.items() if r}
        raise LayerConfigError(
            f"layer '{layer.name}' ({layer.kind}) cannot run: it pairs its inputs row by row, "
            f"but they have {counts} rows in this batch; each needs one row per sample (a "
            "layer such as resize before it changes the count)."
        )


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, threshold: float):
    """The identity, whose gradient is clipped to ``[-threshold, threshold]`` (v2's
    ``ExtraAttr(error_clipping_threshold=...)``: the error reaching a layer's output)."""
    return x


def _clip_fwd(x, threshold):
    return x, None


def _clip_bwd(threshold, _, g):
    return (jnp.clip(g, -threshold, threshold),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def _apply_activation(act, out):
    if isinstance(out, ChannelsLast):  # element-wise only (``channels_last.joins``)
        return ChannelsLast(act.apply(out.data))
    if isinstance(out, Seq):
        return out._replace(data=act.apply(out.data, mask=step_mask(out)))
    return act.apply(out)


def _dropout(out, rate: float, *, key, mode: str):
    """v2 dropout is not inverted: a 0/1 mask in training, a ``(1 - rate)`` scale in test."""
    data = data_of(out)
    if mode == "train":
        if key is None:
            raise LayerConfigError("dropout in training mode needs a PRNG key; none was given.")
        keep = jax.random.bernoulli(key, 1.0 - rate, data.shape)
        data = jnp.where(keep, data, 0.0)
    else:
        data = data * (1.0 - rate)
    return with_data(out, data)
