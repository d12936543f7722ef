"""Layer families, one module each. The public ``paddle_lite.layer`` imports them all.

Importing the package installs the operators on layers (``a + b``, ``2 * a``: see
``arith``) in ``graph``, which cannot import the layers it would build.
"""

from paddle_lite._src.layers import arith  # noqa: F401  (registers the operators)
