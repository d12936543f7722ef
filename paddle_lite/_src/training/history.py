"""What ``SGD.train`` returns: a ``History`` of its passes.

``History`` holds one ``PassRecord`` per pass trained: the pass's mean cost (its summed
cost over its samples, read once at the pass end), its evaluator metrics, and the
results of any ``trainer.test`` the event handler ran during the pass (in ``EndPass``,
typically). v2's ``train`` returned None; programs that ignore the result are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


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
