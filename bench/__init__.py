"""Benchmarks of paddle_lite against plain JAX + optax and PyTorch (``python -m bench``)."""
