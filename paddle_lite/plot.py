"""Cost plots (v2 ``paddle.plot``)."""

from paddle_lite._src.plot import Ploter

__all__ = ["Ploter"]
