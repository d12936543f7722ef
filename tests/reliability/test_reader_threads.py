"""Readers that fail inside ``buffered``, ``xmap_readers`` and the prefetch thread: the error
reaches the consumer, every worker thread stops, and nothing hangs.

Each consumer runs on a watchdog thread with a deadline, so a hang fails the test instead of
stalling the suite.
"""

import threading
import time

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.training.chunks import converted, device_batches
from paddle_lite.errors import ReaderTypeError

DEADLINE_S = 10.0


def _consume_with_deadline(make_iterable):
    """Run ``list(make_iterable())`` on a watchdog thread; return (result or error, the
    threads it started that are still alive after a grace period)."""
    before = set(threading.enumerate())
    box = {}

    def consume():
        try:
            box["value"] = list(make_iterable())
        except BaseException as err:
            box["error"] = err

    watchdog = threading.Thread(target=consume, daemon=True)
    watchdog.start()
    watchdog.join(DEADLINE_S)
    assert not watchdog.is_alive(), f"the consumer hung for more than {DEADLINE_S} s"
    deadline = time.monotonic() + DEADLINE_S
    started = [t for t in threading.enumerate() if t not in before and t is not watchdog]
    while any(t.is_alive() for t in started) and time.monotonic() < deadline:
        time.sleep(0.02)
    return box.get("error", box.get("value")), [t for t in started if t.is_alive()]


def _failing(after):
    def reader():
        yield from range(after)
        raise OSError("disk gone")

    return reader


def _slow_mapper(x):
    time.sleep(0.001)
    return x * 2


def _feeds(batch):
    return {"x": np.asarray(batch, np.float32)}


CASES = {
    "buffered(size=1) over a reader raising after 50 samples": lambda: paddle.reader.buffered(
        _failing(50), 1
    ),
    "xmap_readers(4 threads, order=True) over a reader raising after 50": lambda: (
        paddle.reader.xmap_readers(_slow_mapper, _failing(50), 4, 2, order=True)
    ),
    "xmap_readers(4 threads) whose mapper raises on sample 7": lambda: paddle.reader.xmap_readers(
        lambda x: 1 / (x - 7), lambda: iter(range(100)), 4, 1
    ),
    "prefetch thread over a reader raising after 5 batches": lambda: (
        lambda: device_batches(
            converted(([x] for x in _failing(5)()), _feeds), depth=1, background=True
        )
    ),
    "prefetch thread whose conversion raises": lambda: (
        lambda: device_batches(
            converted(([x] for x in range(10)), lambda b: _feeds([1 / (b[0] - 3)])),
            depth=1,
            background=True,
        )
    ),
    "buffered over a reader returning None": lambda: paddle.reader.buffered(lambda: None, 4),
    "xmap_readers over a reader returning 3": lambda: paddle.reader.xmap_readers(
        _slow_mapper, lambda: 3, 2, 2
    ),
}
ERRORS = [OSError, OSError, ZeroDivisionError, OSError, ZeroDivisionError]
ERRORS += [ReaderTypeError, ReaderTypeError]


@pytest.mark.parametrize("what, error", list(zip(CASES, ERRORS, strict=True)), ids=list(range(7)))
def test_failures_reach_the_consumer_and_threads_stop(what, error, fault):
    fault.case("reader threads", what, f"{error.__name__} in the consumer; threads stop")
    outcome, alive = _consume_with_deadline(CASES[what]())
    assert isinstance(outcome, error), outcome
    assert not alive, f"threads still running: {alive}"
    fault.observed(f"{type(outcome).__name__} reached the consumer; no worker thread left")


def test_a_consumer_leaving_early_stops_the_workers(fault):
    fault.case(
        "reader threads",
        "a consumer that stops after 3 of 10^6 mapped samples",
        "every mapping thread stops",
    )
    before = set(threading.enumerate())
    reader = paddle.reader.xmap_readers(_slow_mapper, lambda: iter(range(10**6)), 4, 8, order=True)
    mapped = reader()
    assert [next(mapped) for _ in range(3)] == [0, 2, 4]
    mapped.close()
    started = [t for t in threading.enumerate() if t not in before]
    assert started
    for t in started:
        t.join(DEADLINE_S)
    assert not [t for t in started if t.is_alive()]
    fault.observed(f"{len(started)} threads stopped after close()")


def test_good_samples_before_the_failure_arrive_in_order():
    reader = paddle.reader.buffered(_failing(20), 3)
    got = []
    with pytest.raises(OSError, match="disk gone"):
        for sample in reader():
            got.append(sample)
    assert got == list(range(20))
