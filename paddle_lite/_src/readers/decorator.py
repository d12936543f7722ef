"""Sequential reader decorators (v2 ``paddle.reader.decorator``).

A *reader* is a no-argument callable returning an iterable of samples; a *decorator* maps
readers to a new reader. Every decorator here is lazy: nothing is read until the returned
reader is called and iterated, and every call starts a fresh pass. Arguments are checked when
the decorator is applied, so a mistake (``shuffle(my_reader(), 100)`` instead of
``shuffle(my_reader, 100)``) fails at once with a typed error naming the argument.
"""

from __future__ import annotations

import itertools
import numbers
import random
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataError, DataWarning, PaddleLiteError
from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.length import SizedReader, sized_as
from paddle_lite._src.readers.state import PassCounter, forward
from paddle_lite._src.tracebacks import user_stacklevel

Reader = Callable[[], Iterable[Any]]

_MISSING = object()


class ReaderTypeError(PaddleLiteError, TypeError):
    """A reader function received an argument of the wrong type (e.g. a generator, not a reader)."""


class ComposeNotAligned(PaddleLiteError, ValueError):
    """The readers given to [`compose`][paddle_lite.reader.compose] ended after different numbers of
    samples."""


def show(value: Any, limit: int = 80) -> str:
    """``type repr`` of a received value, the repr cut to ``limit`` characters."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__} {text}"


def check_reader(reader: Any, where: str, arg: str = "reader") -> None:
    """Raise ``ReaderTypeError`` unless ``reader`` is callable."""
    if not callable(reader):
        raise ReaderTypeError(
            f"{where}: {arg} must be a reader (a no-argument callable returning an iterable of "
            f"samples); received {show(reader)}. Pass the function itself (`my_reader`), "
            "not the result of calling it (`my_reader()`)."
        )


def called(reader: Reader, where: str, arg: str = "reader") -> Any:
    """What ``reader()`` returns; where that is itself a reader (a callable that is not
    iterable), what calling it returns, with a ``DataWarning``.

    Early-2017 v2 datasets returned their samples' generator from ``train()``, so
    programs wrote ``shuffle(lambda: imdb.train(word_dict), ...)``; v2's later
    ``train()`` returns the reader, and such a lambda returns a reader."""
    result = reader()
    if callable(result) and not isinstance(result, Iterable):
        warnings.warn(
            f"{where}: {arg}() returned a reader ({show(result)}) rather than samples; "
            f"reading what that reader returns. Pass the reader itself, e.g. `{arg}=imdb.train(d)` "
            "rather than `lambda: imdb.train(d)`.",
            DataWarning,
            stacklevel=user_stacklevel(),
        )
        result = result()
    return result


def reader_samples(reader: Reader, where: str, arg: str = "reader") -> Iterator[Any]:
    """An iterator over ``reader()``; a reader returning a non-iterable is a typed error.

    Example:
        ```python
        for sample in reader_samples(reader, "shuffle"):
            ...
        ```
    """
    result = called(reader, where, arg)
    try:
        return iter(result)
    except TypeError:
        raise ReaderTypeError(
            f"{where}: {arg}() returned {show(result)}, which is not iterable; a reader is a "
            "no-argument function returning an iterable of samples (a generator function "
            "using `yield`, or one returning a list)."
        ) from None


def check_count(value: Any, where: str, arg: str, minimum: int) -> int:
    """Return ``value`` as an int, or raise if it is not an integer ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ReaderTypeError(
            f"{where}: {arg} must be an int >= {minimum}; received {show(value)}."
        )
    if value < minimum:
        raise DataError(f"{where}: {arg} must be >= {minimum}; received {int(value)}.")
    return int(value)


def map_readers(func: Callable[..., Any], *readers: Reader) -> Reader:
    """Map ``func`` over the samples of several readers taken in lock step.

    Sample i of the result is ``func(a_i, b_i, ...)`` where ``a_i, b_i, ...`` are the i-th
    samples of ``readers``; the pass stops when the shortest reader ends.

    Args:
        func: called with one sample from each reader.
        *readers: the readers to zip.

    Returns:
        A reader yielding ``func(*samples)``.

    Example:
        ```python
        total = map_readers(lambda a, b: a + b, reader_a, reader_b)
        ```
    """
    if not callable(func):
        raise ReaderTypeError(f"map_readers: func must be callable; received {show(func)}.")
    for i, reader in enumerate(readers):
        check_reader(reader, "map_readers", f"readers[{i}]")

    def mapped_reader() -> Iterator[Any]:
        iterators = [
            reader_samples(r, "map_readers", f"readers[{i}]") for i, r in enumerate(readers)
        ]
        for items in zip(*iterators, strict=False):
            yield func(*items)

    opens = seek.all_seekable(readers)
    if opens:
        mapped_reader = seek.seekable(
            lambda: seek.Mapped(func, [o() for o in opens]), "mapped_reader"
        )
    return sized_as(forward(mapped_reader, *readers), lambda *n: min(n), *readers)


def _shuffled(samples: Iterable[Any], buf_size: int, rng: Any) -> Iterator[Any]:
    buffer: list[Any] = []
    for sample in samples:
        buffer.append(sample)
        if len(buffer) >= buf_size:
            rng.shuffle(buffer)
            yield from buffer
            buffer = []
    if buffer:
        rng.shuffle(buffer)
        yield from buffer


def shuffle(reader: Reader, buf_size: int, seed: int | None = None) -> Reader:
    """Shuffle samples within consecutive windows of ``buf_size`` samples.

    Fills a buffer with ``buf_size`` samples, shuffles it, emits it, and repeats; the last
    partial buffer is shuffled too. ``buf_size`` 0 or 1 keeps the order. Without ``seed`` the
    global ``random`` state is used (as in v2). With an int ``seed``, pass ``k`` (the k-th
    call of the returned reader, from 0) uses ``random.Random(seed + k)``: passes differ from
    each other, and a rerun of the program reproduces every pass. Over a seekable reader
    (see *Seekable readers* in the reader reference) the same order is computed for the whole
    pass when it starts, as a permutation of the sample indices (the same draws from the
    same random state), so the result is seekable too.

    Args:
        reader: the reader to shuffle.
        buf_size: samples per shuffled window (>= 0).
        seed: optional int making the order reproducible.

    Returns:
        A reader yielding the same samples in shuffled order.

    Example:
        ```python
        train = paddle.batch(paddle.reader.shuffle(mnist.train(), buf_size=500), 64)
        ```
    """
    check_reader(reader, "shuffle")
    buf_size = check_count(buf_size, "shuffle", "buf_size", 0)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ReaderTypeError(f"shuffle: seed must be an int or None; received {show(seed)}.")
    passes = PassCounter("shuffle")

    def shuffled_reader() -> Iterator[Any]:
        rng = random if seed is None else random.Random(int(seed) + passes.next())
        return _shuffled(reader_samples(reader, "shuffle"), buf_size, rng)

    inner = seek.open_pass_of(reader)
    if inner is not None:

        def permuted() -> Any:
            view = inner()
            rng = random if seed is None else random.Random(int(seed) + passes.next())
            order = _shuffled(range(len(view)), buf_size, rng)
            return seek.Permuted(view, np.fromiter(order, np.int64, len(view)))

        shuffled_reader = seek.seekable(permuted, "shuffled_reader")
    if seed is None:  # the global random states are saved by checkpoints already
        return sized_as(forward(shuffled_reader, reader), int, reader)
    return sized_as(passes.attach(shuffled_reader, reader), int, reader)


def chain(*readers: Reader) -> Reader:
    """Concatenate readers: all samples of the first, then of the second, and so on.

    Args:
        *readers: the readers to concatenate.

    Returns:
        A reader yielding every sample of every reader, in order.

    Example:
        ```python
        everything = chain(train_reader, test_reader)
        ```
    """
    for i, reader in enumerate(readers):
        check_reader(reader, "chain", f"readers[{i}]")

    def chained_reader() -> Iterator[Any]:
        for i, reader in enumerate(readers):
            yield from reader_samples(reader, "chain", f"readers[{i}]")

    opens = seek.all_seekable(readers)
    if opens:
        chained_reader = seek.seekable(
            lambda: seek.Chained([o() for o in opens]), "chained_reader"
        )
    return sized_as(forward(chained_reader, *readers), lambda *n: sum(n), *readers)


def _flat_tuple(samples: tuple[Any, ...]) -> tuple[Any, ...]:
    out: list[Any] = []
    for sample in samples:
        out.extend(sample if isinstance(sample, tuple) else (sample,))
    return tuple(out)


def _aligned(iterators: list[Iterator[Any]]) -> Iterator[tuple[Any, ...]]:
    for count, samples in enumerate(itertools.zip_longest(*iterators, fillvalue=_MISSING)):
        ended = [i for i, sample in enumerate(samples) if sample is _MISSING]
        if ended:
            raise ComposeNotAligned(
                f"compose: readers {ended} ended after {count} samples while the others "
                "continued; the composed readers must yield the same number of samples. "
                "Pass check_alignment=False to stop at the shortest reader instead."
            )
        yield samples


def compose(*readers: Reader, check_alignment: bool = True) -> Reader:
    """Zip readers and flatten each step into one tuple.

    Sample i is the concatenation of the i-th samples, a non-tuple sample counting as a
    1-tuple: samples ``(1, 2)``, ``3`` and ``(4, 5)`` compose to ``(1, 2, 3, 4, 5)``.

    Args:
        *readers: the readers to compose.
        check_alignment: when True, raise
            [`ComposeNotAligned`][paddle_lite.errors.ComposeNotAligned] as soon as one reader ends
            before the others; when False, stop at the shortest reader.

    Returns:
        A reader yielding flat tuples.

    Example:
        ```python
        pairs = compose(image_reader, label_reader)
        ```
    """
    for i, reader in enumerate(readers):
        check_reader(reader, "compose", f"readers[{i}]")

    def composed_reader() -> Iterator[tuple[Any, ...]]:
        iterators = [reader_samples(r, "compose", f"readers[{i}]") for i, r in enumerate(readers)]
        steps = _aligned(iterators) if check_alignment else zip(*iterators, strict=False)
        for samples in steps:
            yield _flat_tuple(samples)

    opens = seek.all_seekable(readers)
    if opens:

        def composed() -> Any:
            views = [o() for o in opens]
            if check_alignment and len({len(v) for v in views}) > 1:
                shortest = min(len(v) for v in views)
                ended = [i for i, v in enumerate(views) if len(v) == shortest]
                raise ComposeNotAligned(
                    f"compose: readers {ended} hold {shortest} samples while the others hold "
                    f"more ({[len(v) for v in views]}); the composed readers must yield the "
                    "same number of samples. Pass check_alignment=False to stop at the "
                    "shortest reader instead."
                )
            return seek.Mapped(lambda *samples: _flat_tuple(samples), views)

        composed_reader = seek.seekable(composed, "composed_reader")
    return sized_as(forward(composed_reader, *readers), lambda *n: min(n), *readers)


def firstn(reader: Reader, n: int) -> Reader:
    """Keep only the first ``n`` samples of a reader.

    Args:
        reader: the reader to limit.
        n: how many samples to keep (>= 0).

    Returns:
        A reader yielding at most ``n`` samples.

    Example:
        ```python
        smoke_test = firstn(mnist.train(), 100)
        ```
    """
    check_reader(reader, "firstn")
    n = check_count(n, "firstn", "n", 0)

    def first_n_reader() -> Iterator[Any]:
        yield from itertools.islice(reader_samples(reader, "firstn"), n)

    inner = seek.open_pass_of(reader)
    if inner is not None:
        first_n_reader = seek.seekable(lambda: seek.Strided(inner(), 0, n), "first_n_reader")
    return sized_as(forward(first_n_reader, reader), lambda m: min(m, n), reader)


def cache(reader: Reader) -> Reader:
    """Read a reader completely once, keep its samples in memory, and replay them.

    The first pass reads the whole of ``reader`` before yielding; later passes never call
    ``reader`` again. The result is seekable (see *Seekable readers* in the reader reference).

    Args:
        reader: the reader to cache (its samples must fit in memory).

    Returns:
        A reader yielding the cached samples, in order, on every pass.

    Example:
        ```python
        train = cache(expensive_parsing_reader)
        ```
    """
    check_reader(reader, "cache")
    store: list[tuple[Any, ...]] = []
    lock = threading.Lock()

    def cached() -> tuple[Any, ...]:
        with lock:
            if not store:
                store.append(tuple(reader_samples(reader, "cache")))
        return store[0]

    return sized_as(forward(seek.seekable(cached, "cached_reader"), reader), int, reader)


class Fake:
    """A reader factory that repeats the first sample of a reader (later ``paddle.reader.Fake``).

    ``Fake()(reader, data_num)`` returns a reader yielding the first sample of ``reader``
    ``data_num`` times on every pass; the sample is read once per returned reader. It is meant
    for measuring training speed without the cost of reading data.

    Example:
        ```python
        fake = paddle.reader.Fake()(mnist.train(), 1000)
        ```
    """

    def __call__(self, reader: Reader, data_num: int) -> Reader:
        check_reader(reader, "Fake")
        data_num = check_count(data_num, "Fake", "data_num", 0)
        first: list[Any] = []

        def fake_reader() -> Iterator[Any]:
            if not first:
                sample = next(reader_samples(reader, "Fake"), _MISSING)
                if sample is _MISSING:
                    raise DataError("Fake: the reader yielded no sample to repeat.")
                first.append(sample)
            for _ in range(data_num):
                yield first[0]

        return SizedReader(forward(fake_reader, reader), data_num)
