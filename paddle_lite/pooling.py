"""Pooling types (v2 ``paddle.pooling``)."""

from paddle_lite._src.poolings import (
    Avg,
    BasePoolingType,
    CudnnAvg,
    CudnnAvgInclPad,
    CudnnMax,
    Max,
    MaxWithMask,
    SquareRootN,
    Sum,
)

__all__ = [
    "Avg",
    "BasePoolingType",
    "CudnnAvg",
    "CudnnAvgInclPad",
    "CudnnMax",
    "Max",
    "MaxWithMask",
    "SquareRootN",
    "Sum",
]
