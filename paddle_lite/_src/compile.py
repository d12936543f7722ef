"""Lower layers to pure jax functions of ``(params, feeds, key)``.

``forward`` interprets the sub-graph the requested outputs depend on; under
``jax.jit`` it traces once per input signature.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import jax

from paddle_lite._src.errors import DataError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import run
from paddle_lite._src.topology import traverse


def layer_key(key: Any, layer: Layer) -> Any:
    """A per-layer PRNG key, stable under graph edits elsewhere."""
    if key is None:
        return None
    return jax.random.fold_in(key, zlib.crc32(layer.name.encode()) & 0x7FFFFFFF)


def forward(
    outputs: Sequence[Layer],
    params: Mapping[str, Any],
    feeds: Mapping[str, Any],
    key: Any = None,
    mode: str = "test",
) -> tuple[list[Any], dict[str, Any]]:
    """Compute ``outputs`` from ``feeds`` (``{data layer name: value}``).

    Returns:
        ``(values, state_updates)``: one value per output, and the new values of
        static state parameters (batch-norm moving statistics) in training mode.
    """
    values: dict[int, Any] = {}
    updates: dict[str, Any] = {}
    for node in traverse(outputs):
        if node.kind == "data":
            if node.name not in feeds:
                raise DataError(
                    f"data layer '{node.name}' is needed for {[o.name for o in outputs]} but was "
                    f"not fed; fed: {sorted(feeds)}."
                )
            values[id(node)] = feeds[node.name]
            continue
        inputs = [values[id(i)] for i in node.inputs]
        out, state = run(node, params, inputs, key=layer_key(key, node), mode=mode)
        values[id(node)] = out
        updates.update(state)
    return [values[id(o)] for o in outputs], updates
