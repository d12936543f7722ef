"""What a trainer trains beyond the costs and the parameters it was given.

v2's ``trainer.SGD`` built one gradient machine from the costs *and* the
``extra_layers``: it initialised every parameter of that topology itself (the user's
``Parameters`` only overwrote the ones it held) and ran every layer's backward, so a
cost layer among the extras was trained as well. These two functions find what that
adds: the parameters the user's set lacks, and the cost layers the costs do not reach.
"""

from __future__ import annotations

import warnings

from paddle_lite._src.errors import ParameterWarning
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.topology import Topology, collect_params, traverse
from paddle_lite._src.tracebacks import user_stacklevel


def own_parameters(topology: Topology, parameters: Parameters) -> Parameters:
    """The parameters of ``topology`` that ``parameters`` lacks, initialised.

    v2's trainer built its gradient machine from the whole topology (cost and
    ``extra_layers``), which initialised every parameter itself; the user's set only
    overwrote those it held (``Parameters.append_gradient_machine``). So a set created
    from ``cost`` alone trains a network whose ``extra_layers`` own parameters too:
    those are trained but stay out of the user's set (``to_tar`` does not write them).
    """
    own = Parameters(seed=parameters.seed)
    for name, spec in topology.params.items():
        if name not in parameters:
            own.append_spec(spec)
    return own


def warn_if_costs_need(
    own: Parameters, costs: list[Layer], topology: Topology, parameters: Parameters
) -> None:
    """Warn when the set lacks parameters the costs themselves need (not only those of
    ``extra_layers``): v2 trained them from a fresh initialisation as well, but they are
    then missing from the user's set (``to_tar`` does not save them), which is almost
    surely a set made for another network."""
    needed = collect_params(traverse(costs))
    lacking = [name for name in needed if name in own]
    if not lacking:
        return
    foreign = [name for name in parameters.names() if name not in topology.params]
    warnings.warn(
        f"paddle.trainer.SGD: the parameters lack {len(lacking)} of the {len(needed)} "
        f"parameters the cost needs ({lacking[:6]}{' ...' if len(lacking) > 6 else ''}); "
        "the trainer initialises and trains them itself, as v2 did, but they are not in "
        "that Parameters object, so its to_tar() will not save them"
        + (f", and it holds {foreign[:6]}, which this network does not have" if foreign else "")
        + ". Create the parameters with paddle.parameters.create(cost).",
        ParameterWarning,
        stacklevel=user_stacklevel(),
    )


def extra_costs(topology: Topology, costs: list[Layer]) -> list[Layer]:
    """The cost layers of ``topology`` that ``costs`` do not reach (those of
    ``extra_layers``, e.g. GoogLeNet's auxiliary classifiers).

    v2's gradient machine ran the backward of every layer of the topology, and a cost
    layer seeds its own gradient, so these were trained too; the cost it reported
    (``EndIteration.cost``, ``test()``) summed the output layers only.
    """
    reached = {id(node) for node in traverse(costs)}
    return [
        node for node in topology.nodes if id(node) not in reached and get_kind(node.kind).is_cost
    ]


def merged_values(parameters: Parameters, own: Parameters) -> Parameters:
    """A copy of the user's parameters and the trainer's own ones (``own_parameters``),
    as of now."""
    merged = Parameters()
    for held in (parameters, own):
        values = held.values()
        for spec in held.specs():
            merged.append_spec(spec, values[spec.name])
    return merged
