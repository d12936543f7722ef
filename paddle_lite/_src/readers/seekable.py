"""The random-access side of the reader protocol: readers that know their samples by index.

A reader is a no-argument callable returning an iterable of samples. A *seekable* reader
also carries ``reader.open_pass``: a no-argument callable that starts a pass, exactly as
calling the reader does (a seeded ``shuffle`` counts it), and returns a ``View`` of
that pass -- ``len(view)`` samples, ``view[j]`` the j-th of them in the pass's order. The
reader called as usual iterates the same view, so both sides read the same samples in the
same order, and the reader state protocol (``state`` / ``restore``) covers both.

The creators that can (``np_array``, ``text_file`` after one index scan, ``recordio``
through its index, ``cache``, the in-memory ``paddle.dataset`` readers) make seekable
readers, and the decorators keep the side where the math allows: ``map_readers``,
``compose``, ``firstn``, ``chain``, ``buffered``, ``shard`` and ``shuffle`` (over a
seekable reader it computes its order for the whole pass when the pass starts: the same
permutation its windows give when read in order). ``batch`` makes a seekable
reader of batches whose view is a ``Batches``: a batch is a list of indices, so the
trainer reads a batch's rows one by one -- each process of a job only the rows it trains
on -- and a resume starts a pass at any sample without reading the ones before.

Example:
    ```python
    reader = paddle.batch(paddle.reader.shuffle(creator.np_array(x), 1000, seed=1), 32)
    view = reader.open_pass()          # pass 0: a Batches view
    len(view), view.indices(3)         # 32-sample batches; batch 3's sample indices
    ```
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

View = Any  # anything with __len__ and __getitem__(int) (a Sequence of samples)
OpenPass = Callable[[], View]


def open_pass_of(reader: Any) -> OpenPass | None:
    """``reader.open_pass`` when ``reader`` is seekable, else None."""
    open_pass = getattr(reader, "open_pass", None)
    return open_pass if callable(open_pass) else None


def seekable(open_pass: OpenPass, name: str = "seekable_reader") -> Callable[[], Iterator[Any]]:
    """The reader iterating the views ``open_pass`` opens (one pass a call), seekable,
    called ``name``."""

    def seekable_reader() -> Iterator[Any]:
        return iter(open_pass())

    seekable_reader.__name__ = seekable_reader.__qualname__ = name
    seekable_reader.open_pass = open_pass  # type: ignore[attr-defined]
    return seekable_reader


def all_seekable(readers: Sequence[Any]) -> list[OpenPass] | None:
    """The ``open_pass`` of each reader, or None unless every one is seekable."""
    opens = [open_pass_of(r) for r in readers]
    return None if any(o is None for o in opens) else opens


class Indexed:
    """A view defined by ``__len__`` and ``__getitem__``; iterating reads them in order."""

    def __iter__(self) -> Iterator[Any]:
        return (self[j] for j in range(len(self)))


class Mapped(Indexed):
    """``func`` over the samples of several views in lock step (the shortest decides)."""

    def __init__(self, func: Callable[..., Any], views: list[View]) -> None:
        self.func, self.views = func, views
        self.size = min((len(v) for v in views), default=0)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, j: int) -> Any:
        return self.func(*(v[j] for v in self.views))


class Permuted(Indexed):
    """A view's samples in the order of ``order`` (an array of its indices)."""

    def __init__(self, view: View, order: np.ndarray) -> None:
        self.view, self.order = view, order

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, j: int) -> Any:
        return self.view[int(self.order[j])]


class Chained(Indexed):
    """The samples of several views one after another."""

    def __init__(self, views: list[View]) -> None:
        self.views = views
        self.ends = list(np.cumsum([len(v) for v in views], dtype=np.int64))

    def __len__(self) -> int:
        return int(self.ends[-1]) if self.ends else 0

    def __getitem__(self, j: int) -> Any:
        part = bisect.bisect_right(self.ends, j)
        start = int(self.ends[part - 1]) if part else 0
        return self.views[part][j - start]

    def __iter__(self) -> Iterator[Any]:
        return itertools.chain.from_iterable(self.views)


class Strided(Indexed):
    """Samples ``start, start + step, ...`` of a view, below ``stop``."""

    def __init__(self, view: View, start: int, stop: int, step: int = 1) -> None:
        self.view, self.start, self.step = view, start, step
        self.size = len(range(start, min(stop, len(view)), step))

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, j: int) -> Any:
        return self.view[self.start + j * self.step]


class Batches(Indexed):
    """The batches of one pass: consecutive samples of ``view`` in lists of
    ``batch_size``, the last one shorter unless ``drop_last``, starting at sample
    ``start`` (a resume that continues inside a pass).

    ``len(batches)`` is their count, ``batches[b]`` batch ``b``'s samples and
    ``batches.indices(b)`` their positions in ``view``.
    """

    def __init__(self, view: View, batch_size: int, drop_last: bool, start: int = 0) -> None:
        self.view, self.batch_size, self.drop_last, self.start = view, batch_size, drop_last, start
        left = max(len(view) - start, 0)
        self.size = left // batch_size if drop_last else -(-left // batch_size)

    def __len__(self) -> int:
        return self.size

    def indices(self, b: int) -> range:
        first = self.start + b * self.batch_size
        return range(first, min(first + self.batch_size, len(self.view)))

    def __getitem__(self, b: int) -> list[Any]:
        return [self.view[j] for j in self.indices(b)]

    def from_sample(self, start: int) -> Batches:
        """The same pass's batches from sample ``start`` on."""
        return Batches(self.view, self.batch_size, self.drop_last, start)
