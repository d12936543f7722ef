"""Trainers (v2 ``paddle.trainer``)."""

from paddle_lite._src.training.history import History, PassRecord
from paddle_lite._src.training.trainer import SGD

__all__ = ["History", "PassRecord", "SGD"]
