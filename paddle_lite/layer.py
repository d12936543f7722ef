"""Layers (v2 ``paddle.layer``): functions that build immutable layer nodes."""

from paddle_lite._src.graph import Layer, name_scope, reset_names
from paddle_lite._src.layers.core import addto, concat, data, dropout, embedding, fc

LayerOutput = Layer

__all__ = [
    "Layer",
    "LayerOutput",
    "addto",
    "concat",
    "data",
    "dropout",
    "embedding",
    "fc",
    "name_scope",
    "reset_names",
]
