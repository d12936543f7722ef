"""Trainers (v2 ``paddle.trainer``)."""

from paddle_lite._src.history import History, PassRecord
from paddle_lite._src.trainer import SGD

__all__ = ["History", "PassRecord", "SGD"]
