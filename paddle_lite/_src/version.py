"""The library version (one place; the package and checkpoints read it)."""

__version__ = "0.1.0"
