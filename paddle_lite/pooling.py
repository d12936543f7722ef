"""Pooling types (v2 ``paddle.pooling``). ``BasePool`` is v2's name for the base class
(v2 cut seven letters, "Pooling", off v1's ``BasePoolingType``), which is also kept under
that name."""

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
from paddle_lite._src.poolings import BasePoolingType as BasePool

__all__ = [
    "Avg",
    "BasePool",
    "BasePoolingType",
    "CudnnAvg",
    "CudnnAvgInclPad",
    "CudnnMax",
    "Max",
    "MaxWithMask",
    "SquareRootN",
    "Sum",
]
