"""Batching (v2 ``paddle.minibatch``; ``paddle.batch`` is ``minibatch.batch``)."""

from paddle_lite._src.readers.minibatch import batch

__all__ = [
    "batch",
]
