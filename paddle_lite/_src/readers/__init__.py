"""Readers: creators, decorators and batching (v2 ``paddle.reader`` and ``paddle.batch``)."""
