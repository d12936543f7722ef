"""Topologies (v2 ``paddle.topology``)."""

from paddle_lite._src.topology import Topology

__all__ = ["Topology"]
