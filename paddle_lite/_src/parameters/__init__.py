"""Parameter sets: ``paddle.parameters`` (``create`` and ``Parameters``).

A parameter set maps parameter names to float32 arrays and keeps each one's
``ParamSpec``; ``create`` derives one from one or more topologies. Read in this order:

1. ``parameter_set`` -- ``Parameters``: v2's API (names, specs, values), the sync
   interface a trainer holding newer values on the device keeps it in step through
   (``lock``, ``version``, ``attach`` / ``receive`` / ``detach``), and the file methods
   (v2 tar, npz), whose bytes ``files.params`` and ``files.npz`` write and read.
2. ``creation`` -- ``create``: the parameters of one or several networks, initialised.

The rest of the library imports both names from here.
"""

from paddle_lite._src.parameters.creation import create
from paddle_lite._src.parameters.parameter_set import Parameters

__all__ = ["Parameters", "create"]
