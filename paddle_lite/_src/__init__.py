"""Implementation of paddle_lite. Public names live in the top-level modules.

The folders follow the architecture (``docs/development.md`` draws the tree): the core
modules here (``graph``, ``kinds``, ``specs``, ``values``, ``topology``, ``compile``,
``parameters``, ``inference``), the layer catalogue in ``layers/``, and one folder per
concern above it (``training/``, ``feeding/``, ``optim/``, ``evaluators/``, ``files/``,
...), each opening with its contract and reading order.
"""
