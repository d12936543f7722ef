"""Pooling types (v2 ``paddle.pooling``)."""

from paddle_lite._src.compat.aliases import module_getattr
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

# "BasePool": v2's name for BasePoolingType (paddle/v2/pooling.py cut the seven letters of
# "Pooling" off each v1 name, which for BasePoolingType left "BasePool").
__getattr__ = module_getattr("pooling", {"BasePool": BasePoolingType})
