"""Convert batches on a background thread so the step never waits for Python."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jax

_END = object()


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


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
    re-raised in the consumer.

    ``background=None`` uses the thread when JAX computes on an accelerator. On a CPU
    backend the conversion runs inline: there the step's own thread pool uses every
    core, and a concurrent Python thread slowed each step more than the conversion
    costs (``bench/step_overhead.py``).
    """
    if background is None:
        background = jax.default_backend() != "cpu"
    if not background:
        for batch in batches:
            yield convert(batch), len(batch)
        return
    slots: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def work() -> None:
        try:
            for batch in batches:
                if stop.is_set():
                    return
                item = (convert(batch), len(batch))
                while not stop.is_set():
                    try:
                        slots.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
        except BaseException as error:  # noqa: BLE001 - handed to the consumer
            slots.put(_Failure(error))
            return
        slots.put(_END)

    thread = threading.Thread(target=work, name="paddle_lite-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = slots.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
