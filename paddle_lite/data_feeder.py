"""Batch conversion (v2 ``paddle.data_feeder``): samples to device-ready arrays."""

from paddle_lite._src.feeding.feeder import DataFeeder

__all__ = ["DataFeeder"]
