"""Where a non-finite training step went wrong: the first layer whose output is not finite.

The fast path only flags a step whose cost, gradients or update (new parameters and
optimizer state) are not all finite (inside the jitted step, see ``steps``). Once the
trainer sees the flag it re-runs that one batch here, eagerly, with the parameters
the step started from (the state keeps them), and names the first layer in
topological order whose output holds a NaN or an infinity on a valid (non-padding)
step, or, when every output is finite, the parameters whose gradients are not, or,
when those are finite too, the parameters and optimizer slots the update overflowed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.compile import cost_sum, forward
from paddle_lite._src.errors import DataError
from paddle_lite._src.feeding.lengths import device_mismatch
from paddle_lite._src.graph import Layer
from paddle_lite._src.topology import traverse
from paddle_lite._src.values import VALID, Seq, Sparse, step_mask


def _finite(value: Any) -> bool:
    if isinstance(value, Sparse):
        return bool(np.all(np.isfinite(np.asarray(value.values))))
    if isinstance(value, Seq):
        valid = np.asarray(value.data)[np.asarray(step_mask(value))]  # padding may hold anything
        return bool(np.all(np.isfinite(valid)))
    if isinstance(value, tuple):  # a recurrent group's outputs
        return all(_finite(v) for v in value)
    data = np.asarray(value)
    return not np.issubdtype(data.dtype, np.floating) or bool(np.all(np.isfinite(data)))


def _layer_report(node: Layer, values: dict[str, Any], params: dict[str, Any]) -> str:
    inputs = [
        f"'{i.name}' ({'finite' if _finite(values[i.name]) else 'not finite'})" for i in node.inputs
    ]
    bad_params = [p.name for p in node.params if not _finite(params[p.name])]
    text = f"the first layer whose output is not finite is '{node.name}' ({node.kind})"
    text += f"; its inputs: {', '.join(inputs) or 'none'}"
    if bad_params:
        text += f"; its parameters {bad_params} are not finite"
    return text


def _refuse_lengths(node: Layer, values: dict[str, Any]) -> None:
    """Raise ``DataError`` when ``node`` (a recurrent group, or a layer pairing
    rows) went NaN because its inputs (lengths computed on the device) differ in length."""
    mismatch = device_mismatch(node, values)
    if mismatch is not None:
        raise DataError(mismatch + ".")


def _update_report(update: Callable[[dict[str, Any]], tuple[Any, Any]], grads: dict) -> str:
    """The parameters and optimizer slots that ``update(grads)`` makes non-finite."""
    trainable, opt_state = update(grads)
    params = [n for n, v in trainable.items() if not _finite(v)]
    slots = [
        jax.tree_util.keystr(path)
        for path, leaf in jax.tree_util.tree_flatten_with_path(opt_state)[0]
        if not _finite(leaf)
    ]
    return (
        "the cost and every gradient are finite but the update is not: it overflows "
        f"the new values of the parameters {params} and the optimizer state {slots}"
    )


def diagnose(
    costs: Sequence[Layer],
    params: dict[str, Any],
    feeds: Any,
    key: Any,
    update: Callable[[dict[str, Any]], tuple[Any, Any]] | None = None,
) -> str:
    """A sentence naming where the step over ``feeds`` first went non-finite.

    ``update(grads)``: the step's ``(new trainable parameters, new optimizer state)``
    from the gradients of all floating parameters, to name what an overflowing update
    made non-finite.
    """
    nodes = list(traverse(costs))
    cost_names = frozenset(c.name for c in costs)
    computed = [n for n in nodes if n.kind != "data"]
    outs, _ = forward(computed, params, feeds, key, "train", cost_names)
    values = {
        **{n.name: feeds[n.name] for n in nodes if n.kind == "data"},
        **{n.name: v for n, v in zip(computed, outs, strict=True)},
    }
    for node in computed:
        if not _finite(values[node.name]):
            _refuse_lengths(node, values)
            return _layer_report(node, values, params)

    def loss(p: dict[str, Any]) -> Any:
        vals, _ = forward(list(costs), {**params, **p}, feeds, key, "train", cost_names)
        return cost_sum(vals, len(costs), feeds.get(VALID))  # the step's own cost

    trainable = {n: v for n, v in params.items() if jnp.issubdtype(v.dtype, jnp.floating)}
    grads = jax.grad(loss)(trainable)
    bad = [n for n, g in grads.items() if not _finite(g)]
    if not bad and update is not None:
        return _update_report(update, grads)
    return (
        "every layer's output is finite but the gradients of the parameters "
        f"{bad} are not (a derivative overflowed, e.g. of sqrt or log at 0)"
    )
