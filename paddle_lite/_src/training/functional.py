"""The design doc's functional API: ``paddle.train``, ``paddle.test`` (v2's design doc).

Each call reuses a trainer cached on the ``Parameters`` per (outputs, update
equation), so calling ``paddle.train`` again compiles nothing new.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from paddle_lite._src.arg_checks import require_parameters
from paddle_lite._src.graph import Layer
from paddle_lite._src.optim.rules import Momentum
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.topology import Topology
from paddle_lite._src.tracebacks import api_boundary
from paddle_lite._src.training import events
from paddle_lite._src.training.trainer import SGD


@api_boundary
def train_fn(
    topology: Any,
    parameters: Parameters,
    reader: Callable[[], Iterable[Any]],
    update_equation: Any = None,
    event_handler: Any = None,
    feeding: Any = None,
    num_passes: int = 1,
    immutable_parameters: Any = None,
) -> Any:
    """The design doc's ``paddle.train``: train ``topology`` (cost layers) in place;
    returns the ``History`` of ``SGD.train``.

    A trainer is kept per (topology outputs, update equation) on the parameters, so a
    second call compiles nothing new. With no ``update_equation``, plain SGD
    (``Momentum(momentum=0)``, learning rate 1e-3) is used.
    """
    trainer = _cached_trainer(topology, parameters, update_equation)
    return trainer.train(
        reader,
        num_passes=num_passes,
        event_handler=event_handler,
        feeding=feeding,
        immutable_parameters=immutable_parameters,
    )


@api_boundary
def test_fn(
    topology: Any, parameters: Parameters, reader: Callable[[], Iterable[Any]], feeding: Any = None
) -> events.TestResult:
    """The design doc's ``paddle.test``: cost and metrics of ``topology`` over ``reader``."""
    return _cached_trainer(topology, parameters, None).test(reader, feeding=feeding)


test_fn.__test__ = False  # type: ignore[attr-defined]  # pytest: not a test (a function attribute)


def _outputs_of(topology: Any) -> list[Layer]:
    if isinstance(topology, Topology):
        return list(topology.layers)
    return list(topology) if isinstance(topology, (list, tuple)) else [topology]


def _cached_trainer(topology: Any, parameters: Parameters, update_equation: Any) -> SGD:
    require_parameters(parameters, "paddle.trainer")
    outputs = _outputs_of(topology)
    cache: dict[Any, SGD] = parameters.cache("trainers")
    key = (tuple(id(o) for o in outputs), id(update_equation))
    if key not in cache:
        equation = Momentum(momentum=0.0) if update_equation is None else update_equation
        cache[key] = SGD(outputs, parameters, equation)
    return cache[key]
