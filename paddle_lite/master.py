"""v2 ``paddle.master``: the client of Paddle's Go master service, deliberately absent.

``paddle.master.client(...)`` raises ``NotImplementedError`` naming the alternative.
"""

from paddle_lite._src.absent import module_getattr

__all__: list[str] = []

__getattr__ = module_getattr("master")
