"""Lower layers to pure jax functions of ``(params, feeds, key)``.

``forward`` interprets the sub-graph the requested outputs depend on; under
``jax.jit`` it traces once per input signature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paddle_lite._src.config import enable_compilation_cache
from paddle_lite._src.errors import DataError
from paddle_lite._src.graph import Layer
from paddle_lite._src.initializers import name_key
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.lowering import channels_last, xla_options
from paddle_lite._src.lowering import precision as precision_mod
from paddle_lite._src.run_layer import run
from paddle_lite._src.topology import traverse
from paddle_lite._src.values import VALID, data_of, paired_rows


def layer_key(key: Any, layer: Layer) -> Any:
    """A per-layer PRNG key, stable under graph edits elsewhere."""
    return None if key is None else name_key(key, layer.name)


def forward(
    outputs: Sequence[Layer],
    params: Mapping[str, Any],
    feeds: Mapping[str, Any],
    key: Any = None,
    mode: str = "test",
    float32_layers: frozenset[str] = frozenset(),
    taps: Mapping[str, Any] | None = None,
) -> tuple[list[Any], dict[str, Any]]:
    """Compute ``outputs`` from ``feeds`` (``{data layer name: value}``).

    The layers named in ``float32_layers`` (the costs, under mixed precision) receive
    their inputs cast to float32. ``taps`` maps layer names to functions of those
    layers' outputs and the batch's row weights (identities that hook the backward
    pass, for printers).

    Returns:
        ``(values, state_updates)``: one value per output, and the new values of
        static state parameters (batch-norm moving statistics) in training mode. Layers
        that share such a parameter (``mean_var_names``) update it in turn, each from
        the value the layer before it left, as v2's layers did on one buffer.
    """
    values: dict[int, Any] = {}
    updates: dict[str, Any] = {}
    weights = feeds.get(VALID)  # rows of weight 0 pad the batch (see Kind.uses_row_weights)
    for node in traverse(outputs):
        if node.kind == "data":
            if node.name not in feeds:
                raise DataError(
                    f"data layer '{node.name}' is needed for {[o.name for o in outputs]} but was "
                    f"not fed; fed: {sorted(feeds)}."
                )
            values[id(node)] = feeds[node.name]
            continue
        excluded = node.name in float32_layers or bool(taps and node.name in taps)
        kind = get_kind(node.kind)
        inputs = channels_last.prepare(node, kind, [values[id(i)] for i in node.inputs], excluded)
        if node.name in float32_layers:
            inputs = precision_mod.to_float32(inputs)
        current = {**params, **updates} if updates else params  # shared statistics in turn
        out, state = run(
            node, current, inputs, key=layer_key(key, node), mode=mode, row_weights=weights
        )
        if taps and node.name in taps:
            out = taps[node.name](out, weights)
        values[id(node)] = channels_last.settled(out, inputs)
        updates.update(state)
    return [channels_last.to_flat(values[id(o)]) for o in outputs], updates


def per_sample_cost(value: Any) -> Any:
    """A cost layer's value as ``[batch]`` (cost layers output ``[batch, 1]``)."""
    data = data_of(value)
    return data.reshape(data.shape[0], -1).sum(axis=1)


def cost_sum(values: Sequence[Any], n_costs: int, weights: Any = None) -> Any:
    """The summed cost of the first ``n_costs`` values (the cost layers); ``weights``
    (``[batch]``, optional) weigh the samples (0 for padding rows)."""
    if weights is None:
        return sum(per_sample_cost(v).sum() for v in values[:n_costs])
    return sum((per_sample_cost(v) * weights).sum() for v in values[:n_costs])


def outputs_for(
    costs: Sequence[Layer], evaluators: Sequence[Any]
) -> tuple[list[Layer], list[list[int]]]:
    """The layers to compute (costs first) and, per evaluator, the indices of its inputs."""
    outputs = list(costs)
    index = {id(layer): i for i, layer in enumerate(outputs)}
    slots = []
    for ev in evaluators:
        for layer in ev.inputs:
            if id(layer) not in index:
                index[id(layer)] = len(outputs)
                outputs.append(layer)
        slots.append([index[id(layer)] for layer in ev.inputs])
    return outputs, slots


def evaluate(values: Sequence[Any], slots, evaluators, weights: Any = None) -> list[Any]:
    """Each evaluator's statistics of the batch; rows of ``weights`` 0 count nowhere."""
    valid = None if weights is None else weights > 0
    out = []
    for ev, s in zip(evaluators, slots, strict=True):
        vals = [values[i] for i in s]
        if ev.attrs.get("paired"):  # a cost's, pairing sequences of one row with plain rows
            vals = paired_rows(vals)[0]
        out.append(ev.batch_stats(vals, valid=valid))
    return out


def make_infer(outputs: Sequence[Layer], precision: str = "float32"):
    """Jitted ``(params, feeds) -> [value per output]`` in test mode, at ``precision``
    (float outputs come back as float32)."""
    enable_compilation_cache()
    outputs = list(outputs)

    def infer(params, feeds):
        return forward(outputs, params, feeds, None, "test")[0]

    return xla_options.jit(precision_mod.computed_at(precision, infer))
