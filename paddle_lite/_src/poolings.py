"""Pooling types (v2 ``paddle.pooling``) for ``img_pool`` and sequence ``pooling``."""

from __future__ import annotations

from typing import Any

from paddle_lite._src.errors import LayerTypeError


class BasePoolingType:
    """A pooling type; ``name`` is v2's proto string."""

    name = ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the class name and the settings."""
        return {"type": type(self).__name__, **vars(self)}


class Max(BasePoolingType):
    """Maximum over the window (or the sequence); ``output_max_index`` is v2's flag."""

    name = "max"

    def __init__(self, output_max_index: bool | None = None) -> None:
        self.output_max_index = output_max_index


class Avg(BasePoolingType):
    """Average; ``strategy`` is ``'average'``, ``'sum'`` or ``'squarerootn'``."""

    name = "average"
    STRATEGIES = ("average", "sum", "squarerootn")

    def __init__(self, strategy: str = "average") -> None:
        if strategy not in self.STRATEGIES:
            raise LayerTypeError(
                f"Avg pooling strategy must be one of {self.STRATEGIES}; received {strategy!r}."
            )
        self.strategy = strategy


class Sum(Avg):
    """Sum over the window (or the sequence): ``Avg(strategy="sum")``."""

    def __init__(self) -> None:
        super().__init__("sum")


class SquareRootN(Avg):
    """Sum divided by ``sqrt(n)`` over a sequence: ``Avg(strategy="squarerootn")``."""

    def __init__(self) -> None:
        super().__init__("squarerootn")


class MaxWithMask(Max):
    """v2's max pooling that also outputs the mask; computed as ``Max``."""

    name = "max-pool-with-mask"


class CudnnMax(Max):
    """v2's cuDNN max pooling; XLA chooses the kernel, so it is ``Max``."""

    name = "cudnn-max-pool"


class CudnnAvg(Avg):
    """v2's cuDNN average pooling; XLA chooses the kernel, so it is ``Avg``."""

    name = "cudnn-avg-pool"


class CudnnAvgInclPad(Avg):
    """v2's cuDNN average pooling counting the padding; computed as ``Avg``."""

    name = "cudnn-avg-incl-pad-pool"


ALL: dict[str, type[BasePoolingType]] = {
    cls.__name__: cls
    for cls in (Max, Avg, Sum, SquareRootN, MaxWithMask, CudnnMax, CudnnAvg, CudnnAvgInclPad)
}


def as_pooling(pool: Any, *, layer: str, arg: str = "pool_type") -> BasePoolingType:
    """Accept a pooling instance or class; reject the rest."""
    if isinstance(pool, type) and issubclass(pool, BasePoolingType):
        return pool()
    if isinstance(pool, BasePoolingType):
        return pool
    raise LayerTypeError(
        f"layer '{layer}': {arg} must be a paddle.pooling object such as "
        f"paddle.pooling.Max(); received {pool!r}."
    )


def pooling_from_json(obj: dict[str, Any]) -> BasePoolingType:
    fields = dict(obj)
    cls = ALL[fields.pop("type")]
    pool = cls.__new__(cls)
    vars(pool).update(fields)
    return pool
