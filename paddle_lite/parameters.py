"""Parameter sets (v2 ``paddle.parameters``)."""

from paddle_lite._src.parameters import Parameters, create

__all__ = ["Parameters", "create"]
