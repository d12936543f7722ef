"""Implementation of ``paddle_lite.dataset``: one module per data set plus shared file helpers."""
