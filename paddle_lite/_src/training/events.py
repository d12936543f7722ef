"""Training events (v2 ``paddle.event``), passed to the ``event_handler``.

Order: ``BeginTraining``, then per pass ``BeginPass``, per batch ``BeginIteration``,
``EndForwardBackward``, ``EndIteration``, then ``EndPass``; finally ``EndTraining``.
``Compiling`` comes before a step that compiles a new program (a handler may ignore it).
``cost`` and ``metrics`` are read from the device only when a handler asks for them,
so a handler that ignores them does not slow training down. ``EndForwardBackward``,
``EndIteration`` and ``EndPass`` carry ``gm``, v2's gradient machine: call
``event.gm.getLayerOutputs("name")`` (or a list of names) inside the handler for the
layers' values on the batch just trained (see ``gradient_machine``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class WithMetric:
    """An event carrying evaluator results as ``metrics`` ``{name: value}``."""

    def __init__(
        self, evaluator: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None
    ) -> None:
        if evaluator is not None and not (isinstance(evaluator, Mapping) or callable(evaluator)):
            raise TypeError(f"evaluator must be a metrics mapping; received {evaluator!r}.")
        self._metrics = evaluator

    @property
    def metrics(self) -> dict[str, Any]:
        """``{evaluator name: value}``; read lazily (reading waits for the device)."""
        source = self._metrics
        if source is None:
            return {}
        return dict(source() if callable(source) else source)


class BeginTraining:
    """Sent once before the first pass; ``num_passes`` is the pass count of the call
    (None when built by hand)."""

    def __init__(self, num_passes: int | None = None) -> None:
        self.num_passes = num_passes


class EndTraining:
    """Sent once after the last pass."""


class BeginPass:
    """Sent before pass ``pass_id`` starts.

    ``num_passes`` is the pass count of the ``train`` call; ``batches`` the batches
    this pass will have, when known: the reader's ``len()`` if it has one, else the
    previous pass's count (None in the first pass).
    """

    def __init__(
        self, pass_id: int, num_passes: int | None = None, batches: int | None = None
    ) -> None:
        self.pass_id = pass_id
        self.num_passes = num_passes
        self.batches = batches


class Compiling:
    """Sent just before a step that compiles a new program (the first batch, or a batch
    of a new shape): the next call blocks for the compile, seconds for a large network."""

    def __init__(self, pass_id: int, batch_id: int) -> None:
        self.pass_id = pass_id
        self.batch_id = batch_id


class EndPass(WithMetric):
    """Sent after pass ``pass_id``; ``metrics`` holds the pass's evaluator totals and
    ``cost`` its mean cost (its summed cost over its samples: the ``History`` value;
    None for a pass that trained no batch, or an event built without one)."""

    def __init__(
        self, pass_id: int, evaluator: Any = None, gm: Any = None, cost: float | None = None
    ) -> None:
        super().__init__(evaluator)
        self.pass_id = pass_id
        self.gm = gm
        self.cost = cost


class BeginIteration:
    """Sent before batch ``batch_id`` of pass ``pass_id`` is trained."""

    def __init__(self, pass_id: int, batch_id: int) -> None:
        self.pass_id = pass_id
        self.batch_id = batch_id


class EndForwardBackward:
    """Sent after the gradients of batch ``batch_id`` (before ``EndIteration``)."""

    def __init__(self, pass_id: int, batch_id: int, gm: Any = None) -> None:
        self.pass_id = pass_id
        self.batch_id = batch_id
        self.gm = gm


class EndIteration(WithMetric):
    """``cost`` is the batch's summed cost divided by its number of samples."""

    def __init__(
        self,
        pass_id: int,
        batch_id: int,
        cost: Any,
        evaluator: Any = None,
        gm: Any = None,
        skipped: Any = False,
    ) -> None:
        super().__init__(evaluator)
        self.pass_id = pass_id
        self.batch_id = batch_id
        self.gm = gm
        self._cost = cost
        self._skipped = skipped

    @property
    def cost(self) -> float:
        """The batch's summed cost / its number of samples (reading waits for the device)."""
        return float(self._cost() if callable(self._cost) else self._cost)

    @property
    def skipped(self) -> bool:
        """True when the batch's cost, gradients or update were not finite and, under
        ``train(on_nan="skip")``, its update was dropped."""
        return bool(self._skipped() if callable(self._skipped) else self._skipped)


class TestResult(WithMetric):
    """The result of ``test``: ``cost`` = total cost / number of samples, and ``metrics``."""

    __test__ = False  # not a pytest test class

    def __init__(self, evaluator: Any, cost: float) -> None:
        super().__init__(evaluator)
        self.cost = cost
