"""v2 ``paddle.config_base``: the type of a layer node (``Layer``, what v2's docstrings
name ``paddle.v2.config_base.Layer``) and ``__layer_map__``, the live layers of the
current name scope by name (what ``paddle.layer.get_layer`` reads)."""

from typing import Any

from paddle_lite._src.graph import Layer, current_scope

__all__ = ["Layer"]


def __getattr__(name: str) -> Any:
    if name == "__layer_map__":
        return current_scope().layers
    raise AttributeError(f"module 'paddle_lite.config_base' has no attribute {name!r}")
