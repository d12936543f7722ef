"""Trainers (v2 ``paddle.trainer``)."""

from paddle_lite._src.trainer import SGD

__all__ = ["SGD"]
