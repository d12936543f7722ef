"""``SGD.test``: a topology's cost and metrics over a reader, in test mode.

One jitted call per batch sums the cost and the evaluator statistics on the device
(``make_step``, compiled once per precision and kept by the trainer); they
are read back once, at the end. Short batches are padded to the first batch's size
with rows of weight 0 (``chunks.RowPadding``), so they run the same compiled step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src import config
from paddle_lite._src.compile import cost_sum, evaluate, forward, outputs_for
from paddle_lite._src.config import enable_compilation_cache
from paddle_lite._src.distributed.parallel import put_replicated, to_host
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.feeding.checks import checked
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.graph import Layer
from paddle_lite._src.lowering import precision as precision_mod
from paddle_lite._src.lowering import xla_options
from paddle_lite._src.training import events, steps
from paddle_lite._src.training.chunks import Feeds, RowPadding, converted, device_batches
from paddle_lite._src.training.emitter import results
from paddle_lite._src.values import VALID

Step = Callable[[dict[str, Any], Feeds, Any], Any]


def step_for(
    compiled: dict[str, Step], costs: Sequence[Layer], evaluators: Sequence[Evaluator]
) -> Step:
    """The test step at the configured precision, from ``compiled`` (compiled there when
    first asked for)."""
    precision = config.get("precision", "float32")
    if precision not in compiled:
        compiled[precision] = make_step(costs, evaluators, precision)
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


def make_step(costs: Sequence[Layer], evaluators: Sequence[Evaluator], precision: str) -> Step:
    """Jitted ``step(params, feeds, totals) -> totals`` in test mode; ``totals`` is
    ``(cost_sum, stats)`` summed over the batches so far, and is donated."""
    enable_compilation_cache()
    outputs, slots = outputs_for(costs, evaluators)
    dtype = precision_mod.compute_dtype(precision)
    matmul = precision_mod.matmul_precision(precision)
    cost_names = frozenset(c.name for c in costs)

    def step(params: dict[str, Any], feeds: Feeds, totals: Any) -> Any:
        params = precision_mod.cast_floats(params, dtype)
        feeds = precision_mod.cast_floats(feeds, dtype)
        weights = feeds.get(VALID)
        with jax.default_matmul_precision(matmul):
            values, _ = forward(outputs, params, feeds, None, "test", cost_names)
            stats = evaluate(precision_mod.to_float32(values), slots, evaluators, weights)
        batch = (cost_sum(values, len(costs), weights), stats)
        return jax.tree_util.tree_map(jnp.add, totals, batch)

    return xla_options.jit(step, donate_argnums=(2,))
