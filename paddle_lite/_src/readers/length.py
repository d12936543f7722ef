"""The reader length protocol: ``len(reader)`` is how many items one pass yields.

A reader that knows its pass length without reading it has ``__len__``. The trainer
reads it at each pass start (``BeginPass.batches``), so ``paddle.event.progress()``
shows the batch total and an ETA from the first pass. ``uci_housing`` and ``mnist``
readers and ``creator.np_array`` have one, and the decorators whose count follows from
their input's keep it: ``batch`` (``ceil(n / batch_size)``, the floor with
``drop_last``), ``shuffle``, ``buffered``, ``cache`` and ``xmap_readers`` (``n``),
``map_readers`` and ``compose`` (the shortest), ``chain`` and ``multiprocess_reader``
(the sum), ``firstn`` (``min(n, len)``) and ``Fake`` (``data_num``). Any other reader has
no ``len()`` (its first pass is counted). A reader of one's own may have one: an object
with ``__call__`` and ``__len__``.

Example:
    >>> import paddle_lite as paddle
    >>> reader = paddle.reader.creator.np_array([[1.0], [2.0], [3.0]])
    >>> len(paddle.batch(paddle.reader.shuffle(reader, 10), batch_size=2))
    2
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any


class SizedReader:
    """``reader`` with a ``len()``: ``length``, an int or a function computing it when asked.

    Calls, the reader state protocol (``state`` / ``restore``) and ``__name__`` are the
    wrapped reader's.

    Args:
        reader: a reader (a no-argument callable returning an iterable).
        length: the items one pass yields, or a no-argument function returning it.

    Example:
        >>> r = SizedReader(lambda: iter(range(5)), 5)
        >>> len(r), list(r())
        (5, [0, 1, 2, 3, 4])
    """

    def __init__(self, reader: Callable[[], Iterable[Any]], length: int | Callable[[], int]):
        functools.update_wrapper(self, reader)  # __name__, __doc__, state and restore
        self._reader, self._length = reader, length

    def __call__(self) -> Iterable[Any]:
        return self._reader()

    def __len__(self) -> int:
        return int(self._length() if callable(self._length) else self._length)

    def __bool__(self) -> bool:  # true as any reader function is, even when empty
        return True

    def __repr__(self) -> str:
        return f"SizedReader({self._reader!r})"


def is_sized(reader: Any) -> bool:
    """Whether ``reader`` declares a pass length (its type has ``__len__``)."""
    return hasattr(type(reader), "__len__")


def length_of(reader: Any) -> int | None:
    """``len(reader)``, or None for a reader without a length (or one that says so by
    raising ``TypeError``)."""
    try:
        return len(reader)
    except TypeError:
        return None


def sized_as(outer: Any, count: Callable[..., int], *inners: Any) -> Any:
    """``outer`` (a decorator's reader over ``inners``) with ``len()`` =
    ``count(len(inner), ...)`` when every inner reader has a length; else ``outer``."""
    if not inners or not all(is_sized(r) for r in inners):
        return outer
    return SizedReader(outer, lambda: count(*(len(r) for r in inners)))
