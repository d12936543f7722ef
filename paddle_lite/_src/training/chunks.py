"""Reader batches as chunks: ``K >= 1`` batches of one signature, on the device ahead.

``device_batches`` turns converted minibatches (``converted``, or a pass's
``input.pass_input``) into ``Chunk`` s: the feeds of ``k`` consecutive batches of
one signature (``trainer.train(steps_per_dispatch=k)``), one path for every ``k``; the
step program stacks them itself when ``k > 1``. On an accelerator a background thread
converts the batches and puts them on the device ahead (a bounded queue of ``depth``
chunks), so the copy overlaps the running step; on a CPU backend the work runs inline,
because there XLA's own thread pool uses every core and a concurrent Python thread
slowed each step more than the conversion costs (``bench/step_overhead.py``).

With a ``RowPadding``, a batch shorter than the call's batch size (the short last
batch of a pass) is padded to it with rows of weight 0, so it runs the full batches'
compiled step instead of compiling its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import jax
import numpy as np

from paddle_lite._src.distributed.parallel import mesh, pad_rows, put_batch
from paddle_lite._src.readers.parallel import buffered
from paddle_lite._src.values import VALID

Feeds = dict[str, Any]  # one batch as a step takes it: {data layer name: value, VALID: weights}


class Chunk(NamedTuple):
    """Device (or numpy) feeds of ``len(sizes)`` batches of one signature: a tuple of
    ``K >= 1`` feeds, one per batch, and each batch's samples."""

    feeds: tuple[Feeds, ...]
    sizes: tuple[int, ...]


def signature(feeds: Any) -> tuple[Any, ...]:
    """What decides the compiled program: tree structure, shapes and dtypes (dtype
    objects, compared and hashed without building strings or touching device data)."""
    leaves, tree = jax.tree_util.tree_flatten(feeds)
    return (tree, tuple((np.shape(x), getattr(x, "dtype", type(x))) for x in leaves))


def _size(feeds: Any) -> int:
    """Samples in a batch: the leading dimension of its feeds (a dict of arrays, or of
    trees of arrays for sequences)."""
    first = feeds[min(feeds)] if type(feeds) is dict and feeds else None  # tree_leaves' first
    if not isinstance(first, (np.ndarray, jax.Array)):
        first = jax.tree_util.tree_leaves(feeds)[0]
    return int(np.shape(first)[0])


def single(feeds: Any) -> Chunk:
    """The chunk of one batch of numpy ``feeds``."""
    return Chunk((feeds,), (_size(feeds),))


class RowPadding:
    """Pads the short batches of one ``train()`` or ``test()`` call to its batch size.

    The batch size is the largest batch of the call so far (the first batch sets it, so
    a reader whose only batch is short is not padded). Every batch gets the ``VALID``
    feed of row weights (all 1 when no row is padding), so a padded batch has the
    signature of a full one: the same compiled step, and it can join a stack of
    ``steps_per_dispatch`` batches. The added rows repeat real rows and weigh 0:
    costs, metrics, batch statistics and the optimizer's sample count leave them out
    (``steps``, ``Kind.uses_row_weights``). Without a mesh, a full batch's weights
    are put on the device once, so the step does not copy them in every call.
    """

    def __init__(self) -> None:
        self.rows = 0
        self._ones: dict[int, Any] = {}  # the weights of a full batch, on the device

    def __call__(self, feeds: Feeds, size: int | None = None) -> Feeds:
        """``feeds`` (of ``size`` rows, when known) with their row weights, padded when
        short."""
        size = _size(feeds) if size is None else size
        if size < self.rows:
            padded = pad_rows(feeds, self.rows)
            return {**padded, VALID: _placed(padded[VALID])}  # as a full batch's
        self.rows = size
        if size not in self._ones:
            self._ones[size] = _placed(np.ones(size, np.float32))
        return {**feeds, VALID: self._ones[size]}


def _placed(weights: np.ndarray) -> Any:
    """Row weights on the device, where no mesh will place the batch (``put_batch``)."""
    return weights if mesh() is not None else jax.device_put(weights)


def chunks(converted: Iterable[tuple[Any, int]], k: int) -> Iterator[Chunk]:
    """Group ``(numpy feeds, size)`` pairs into chunks of ``k`` same-signature batches.

    A run of fewer than ``k`` batches of one signature (a pass's end, a change of
    sequence bucket or a short last batch) leaves as chunks of one.
    """
    if k == 1:
        for feeds, size in converted:
            yield Chunk((feeds,), (size,))
        return
    group: list[tuple[Any, int]] = []
    sig = None

    def flush() -> Iterator[Chunk]:
        parts = [group] if len(group) == k else [[item] for item in group]
        for part in parts:
            yield Chunk(tuple(f for f, _ in part), tuple(n for _, n in part))
        group.clear()

    for feeds, size in converted:
        new = signature(feeds)
        if group and new != sig:
            yield from flush()
        sig = new
        group.append((feeds, size))
        if len(group) == k:
            yield from flush()
    yield from flush()


def converted(
    batches: Iterable[Any], convert: Callable[[Any], Any], padding: RowPadding | None = None
) -> Iterator[tuple[Any, int]]:
    """``(feeds, samples)`` of each batch: ``convert`` turns a batch into fresh numpy feeds
    (fresh arrays, so a reader that reuses its buffers cannot change a queued batch), and
    ``padding`` pads short batches (see ``RowPadding``); ``samples`` stays the real
    size."""
    for feeds in map(convert, batches):
        size = _size(feeds)
        yield (feeds if padding is None else padding(feeds, size)), size


def device_batches(
    pairs: Iterable[tuple[Any, int]], k: int = 1, depth: int = 2, background: bool | None = None
) -> Iterator[Chunk]:
    """Yield the ``Chunk`` s of ``(feeds, samples)`` pairs (``converted``), put
    on the device ahead. An error in the reader or the conversion is re-raised in the
    consumer, after the batches before it.

    ``background=None`` uses the thread when JAX computes on an accelerator. On a single
    CPU device the numpy feeds go to the jitted step as they are: its C++ dispatch adopts
    them for less than ``jax.device_put`` costs in Python (``python -m bench``).
    """
    if background is None:
        background = jax.default_backend() != "cpu"
    grouped = chunks(pairs, k)
    if background or mesh() is not None:
        grouped = (c._replace(feeds=tuple(map(put_batch, c.feeds))) for c in grouped)
    if not background:
        yield from grouped
        return
    yield from buffered(lambda: grouped, depth)()
