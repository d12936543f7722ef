"""Convert batches on a background thread so the step never waits for Python."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jax

from paddle_lite._src.readers.parallel import buffered


def prefetch(
    batches: Iterable[Any],
    convert: Callable[[Any], Any],
    depth: int = 2,
    background: bool | None = None,
) -> Iterator[tuple[Any, int]]:
    """Yield ``(feeds, batch size)`` for each batch, converted ahead of use.

    ``convert`` turns a list of samples into fresh numpy feeds on the worker thread
    (fresh arrays, so a reader reusing its buffers cannot change a queued batch); the
    jitted step copies them to the device itself, which measured cheaper than an
    explicit ``device_put`` here. An error in the reader or the conversion is
    re-raised in the consumer: the worker is ``paddle.reader.buffered`` over the
    converted batches.

    ``background=None`` uses the thread when JAX computes on an accelerator. On a CPU
    backend the conversion runs inline: there the step's own thread pool uses every
    core, and a concurrent Python thread slowed each step more than the conversion
    costs (``bench/step_overhead.py``).
    """
    converted = ((convert(batch), len(batch)) for batch in batches)
    if background is None:
        background = jax.default_backend() != "cpu"
    if not background:
        yield from converted
        return
    yield from buffered(lambda: converted, depth)()
