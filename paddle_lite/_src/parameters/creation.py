"""``create``: the parameter set of one or several networks, initialised.

Equal names share one array, conflicting declarations are an error naming both layers
(``topology.collect_params``), and values are initialised at once, deterministically from
a seed and the parameter's name (so building layers in another order gives the same
values).
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src.graph import Layer
from paddle_lite._src.parameters.parameter_set import Parameters
from paddle_lite._src.topology import Topology, collect_params
from paddle_lite._src.tracebacks import api_boundary


@api_boundary
def create(layers: Any, seed: int | None = None) -> Parameters:
    """The parameters of one or several networks, initialised.

    Args:
        layers: an output layer, a [`Topology`][paddle_lite.topology.Topology], or a list of layers
            and/or topologies (several networks, e.g. a GAN's generator and discriminator, whose
            layers share parameters by ``Param(name=...)``).
        seed: the initialisation seed (default: ``paddle.init(seed=...)``, else 0).
            Each value depends only on the seed and the parameter's name.

    Returns:
        A [`Parameters`][paddle_lite.parameters.Parameters] holding every parameter in creation
        order.

    Example:
        ```python
        params = paddle.parameters.create(cost)
        params.get_shape("___fc_layer_0__.w0")   # (13, 1)
        ```
    """
    items = list(layers) if isinstance(layers, (list, tuple)) else [layers]
    topologies = [item for item in items if isinstance(item, Topology)]
    outputs = [item for item in items if not isinstance(item, Topology)]
    if outputs:
        topologies.append(Topology(outputs))
    nodes: list[Layer] = [node for topo in topologies for node in topo.nodes]
    params = Parameters(seed=seed)
    for spec in collect_params(nodes).values():
        params.append_spec(spec)
    return params
