"""What ``SGD.train`` returns, how it combines handlers, and when a step will compile.

``History`` holds one ``PassRecord`` per pass trained: the pass's mean cost (its summed
cost over its samples, read once at the pass end), its evaluator metrics, and the
results of any ``trainer.test`` the event handler ran during the pass (in ``EndPass``,
typically). v2's ``train`` returned None; programs that ignore the result are unchanged.
``combined_handler`` turns ``event_handler=`` (a callable, a list of them, or None) into
one callable; ``CompileWatch`` tells the trainer when a batch brings a new signature, so
the handlers hear ``paddle.event.Compiling`` before the step compiles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np

from paddle_lite._src.errors import ArgumentTypeError


class PassRecord:
    """One pass: ``pass_id``, mean ``cost``, ``metrics``, ``tests`` (``TestResult`` s)."""

    def __init__(self, pass_id: int) -> None:
        self.pass_id = pass_id
        self.cost: float | None = None  # None when no batch trained (an empty pass)
        self.metrics: dict[str, Any] = {}
        self.tests: list[Any] = []
        self.samples = 0

    @property
    def test(self) -> Any:
        """The last ``TestResult`` of the pass, or None when the handler ran no test."""
        return self.tests[-1] if self.tests else None

    def __repr__(self) -> str:
        cost = "None" if self.cost is None else f"{self.cost:.6g}"
        test = "" if self.test is None else f", test_cost={self.test.cost:.6g}"
        return f"PassRecord(pass_id={self.pass_id}, cost={cost}, metrics={self.metrics}{test})"


class History:
    """The passes one ``train`` call trained, in order (indexable, iterable).

    ``cost`` lists the per-pass mean costs, ``metrics`` the per-pass metrics and
    ``test_cost`` the cost of each pass's last test (None for a pass without a test).
    """

    def __init__(self) -> None:
        self.passes: list[PassRecord] = []

    def begin(self, pass_id: int) -> PassRecord:
        """Start the record of pass ``pass_id`` (the trainer calls this at ``BeginPass``)."""
        self.passes.append(PassRecord(pass_id))
        return self.passes[-1]

    def tested(self, result: Any) -> None:
        """Attach a ``trainer.test`` result to the pass in progress."""
        if self.passes:
            self.passes[-1].tests.append(result)

    @property
    def cost(self) -> list[float | None]:
        """Per pass: the mean cost over the pass's samples (None for an empty pass)."""
        return [p.cost for p in self.passes]

    @property
    def metrics(self) -> list[dict[str, Any]]:
        """Per pass: the evaluator values over the pass, ``{name: value}``."""
        return [p.metrics for p in self.passes]

    @property
    def test_cost(self) -> list[float | None]:
        """Per pass: the cost of its last ``trainer.test`` (None for a pass without one)."""
        return [None if p.test is None else p.test.cost for p in self.passes]

    def __len__(self) -> int:
        return len(self.passes)

    def __getitem__(self, i: int) -> PassRecord:
        return self.passes[i]

    def __iter__(self) -> Iterator[PassRecord]:
        return iter(self.passes)

    def __repr__(self) -> str:
        return f"History({len(self.passes)} passes, cost={self.cost})"


def combined_handler(reader: Any, event_handler: Any) -> Callable[[Any], None]:
    """One callable for ``event_handler``: None, a callable, or a list of callables
    (each called in order with every event)."""
    if not callable(reader):
        raise TypeError(
            f"train() reader must be callable (a reader creator's result); received {reader!r}."
        )
    if event_handler is None:
        return lambda event: None
    if callable(event_handler):
        return event_handler
    if isinstance(event_handler, (list, tuple)):
        handlers = list(event_handler)
        bad = [h for h in handlers if not callable(h)]
        if not bad:

            def each(event: Any) -> None:
                for handler in handlers:
                    handler(event)

            return each
        event_handler = bad[0]
    raise ArgumentTypeError(
        "event_handler must be a callable or a list of callables; received "
        f"{event_handler!r} of type {type(event_handler).__name__}."
    )


class CompileWatch:
    """The (program, signature) pairs already compiled: a new one compiles on dispatch."""

    def __init__(self) -> None:
        self._seen: set[Any] = set()

    def is_new(self, program: Any, chunk: Any) -> bool:
        leaves, tree = jax.tree_util.tree_flatten(chunk.feeds)
        shapes = tuple((np.shape(x), getattr(x, "dtype", type(x))) for x in leaves)
        key = (id(program), chunk.stacked, tree, shapes)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


def pass_length(reader: Any, previous: int | None) -> int | None:
    """Batches per pass: the reader's ``len()`` when it has one, else ``previous``."""
    try:
        return len(reader)
    except TypeError:
        return previous
