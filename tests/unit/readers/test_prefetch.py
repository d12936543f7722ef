"""Batches put on the device ahead: order, grouping into chunks, errors, early stop."""

import threading

import jax
import numpy as np
import pytest

from paddle_lite._src.training.chunks import chunks, converted, device_batches


def _feeds(values):
    return {"x": np.asarray(values, np.float32)}


@pytest.mark.parametrize("background", [True, False])
def test_yields_device_batches_in_order(background):
    batches = iter([[1, 2], [3], [4, 5, 6]])
    out = list(device_batches(converted(batches, _feeds), background=background))
    assert [c.sizes for c in out] == [(2,), (1,), (3,)]
    # ahead on a thread they are put on the device; inline on one CPU device the jitted
    # step takes the numpy arrays itself
    kind = jax.Array if background else np.ndarray
    assert all(isinstance(c.feeds[0]["x"], kind) for c in out)
    np.testing.assert_array_equal(np.asarray(out[2].feeds[0]["x"]), [4, 5, 6])


def test_chunks_stack_runs_of_one_signature_and_leave_the_rest_single():
    sizes = [2, 2, 2, 2, 2, 1, 3, 3]
    converted = [(_feeds(np.full(n, i)), n) for i, n in enumerate(sizes)]
    out = list(chunks(converted, 2))
    assert [c.sizes for c in out] == [(2, 2), (2, 2), (2,), (1,), (3, 3)]
    # (2,): its partner has another shape
    np.testing.assert_array_equal([f["x"] for f in out[1].feeds], [[2, 2], [3, 3]])
    np.testing.assert_array_equal(out[2].feeds[0]["x"], [4, 4])


def test_chunks_of_one_are_the_batches_themselves():
    converted = [(_feeds([i]), 1) for i in range(3)]
    out = list(chunks(converted, 1))
    assert all(c.feeds == (f,) for c, (f, _) in zip(out, converted, strict=True))


@pytest.mark.parametrize("background", [True, False])
def test_reader_and_conversion_errors_reach_the_consumer(background):
    def reader():
        yield [1]
        raise OSError("disk gone")

    def bad(batch):
        raise ValueError("bad sample")

    with pytest.raises(OSError, match="disk gone"):
        list(device_batches(converted(reader(), _feeds), background=background))
    with pytest.raises(ValueError, match="bad sample"):
        list(device_batches(converted(iter([[1]]), bad), background=background))


def test_early_stop_ends_the_worker():
    before = set(threading.enumerate())
    pairs = converted(iter([[i] for i in range(1000)]), _feeds)
    gen = device_batches(pairs, depth=2, background=True)
    assert next(gen).sizes == (1,)
    workers = [t for t in threading.enumerate() if t not in before]
    assert len(workers) == 1
    gen.close()
    workers[0].join(timeout=5.0)
    assert not workers[0].is_alive()
