"""``SGD.test``: a topology's cost and metrics over a reader, in test mode.

One jitted call per batch sums the cost and the evaluator statistics on the device
(``steps.make_test_step``, compiled once per precision and kept by the trainer); they
are read back once, at the end. Short batches are padded to the first batch's size
with rows of weight 0 (``chunks.RowPadding``), so they run the same compiled step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from paddle_lite._src import config
from paddle_lite._src.distributed.parallel import put_replicated, to_host
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.feeding.checks import checked
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.graph import Layer
from paddle_lite._src.training import events, steps
from paddle_lite._src.training.chunks import Feeds, RowPadding, converted, device_batches
from paddle_lite._src.training.emitter import results

Step = Callable[[dict[str, Any], Feeds, Any], Any]


def step_for(
    compiled: dict[str, Step], costs: Sequence[Layer], evaluators: Sequence[Evaluator]
) -> Step:
    """The test step at the configured precision, from ``compiled`` (compiled there when
    first asked for)."""
    precision = config.get("precision", "float32")
    if precision not in compiled:
        compiled[precision] = steps.make_test_step(costs, evaluators, precision)
    return compiled[precision]


def run(
    reader: Callable[[], Iterable[Any]],
    feeder: DataFeeder,
    step: Step,
    zeros: steps.Zeros,
    evaluators: Sequence[Evaluator],
    params: dict[str, Any],
) -> events.TestResult:
    """Cost (total / samples) and metrics over ``reader``'s batches, tested by ``step``
    at ``params``; ``zeros`` shapes the totals from the first batch."""
    totals, count = None, 0
    batches, convert = checked(reader, feeder.convert, "test()", on_empty="raise")
    for chunk in device_batches(converted(batches, convert, RowPadding())):
        if totals is None:
            totals = put_replicated(zeros(params, chunk.feeds[0]))
        totals = step(params, chunk.feeds[0], totals)
        count += chunk.sizes[0]
    cost, stats = to_host(totals)
    return events.TestResult(evaluator=results(evaluators, stats), cost=float(cost) / count)
