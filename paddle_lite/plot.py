"""Cost plots (v2 ``paddle.plot``) and a live training-cost handler."""

from paddle_lite._src.display.plot import Ploter, live

__all__ = ["Ploter", "live"]
