"""Inference (v2 ``paddle.inference``)."""

from paddle_lite._src.inference import Inference, infer

__all__ = ["Inference", "infer"]
