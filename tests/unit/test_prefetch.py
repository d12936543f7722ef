"""Background batch conversion: order, errors reaching the consumer, early stop."""

import threading

import pytest

from paddle_lite._src.prefetch import prefetch


@pytest.mark.parametrize("background", [True, False])
def test_yields_converted_batches_in_order(background):
    batches = iter([[1, 2], [3], [4, 5, 6]])
    out = list(prefetch(batches, lambda b: [x * 10 for x in b], background=background))
    assert out == [([10, 20], 2), ([30], 1), ([40, 50, 60], 3)]


@pytest.mark.parametrize("background", [True, False])
def test_reader_and_conversion_errors_reach_the_consumer(background):
    def reader():
        yield [1]
        raise OSError("disk gone")

    def bad(batch):
        raise ValueError("bad sample")

    with pytest.raises(OSError, match="disk gone"):
        list(prefetch(reader(), lambda b: b, background=background))
    with pytest.raises(ValueError, match="bad sample"):
        list(prefetch(iter([[1]]), bad, background=background))


def test_early_stop_ends_the_worker():
    before = set(threading.enumerate())
    gen = prefetch(iter([[i] for i in range(1000)]), lambda b: b, depth=2, background=True)
    assert next(gen) == ([0], 1)
    workers = [t for t in threading.enumerate() if t not in before]
    assert len(workers) == 1
    gen.close()
    workers[0].join(timeout=5.0)
    assert not workers[0].is_alive()
