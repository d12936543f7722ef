"""The layer catalogue: the functions of ``paddle_lite.layer`` and the kinds they build.

A layer function checks its arguments, names the layer and builds one node through
``base`` (``base.build``); the node's kind (``kinds.Kind``) computes it and declares
everything else the library knows about it. Read ``base`` first, then ``fc`` as the
model of a kind and its function (``data``, ``embedding``, ``concat`` and ``addto`` are
as small); ``mixed``, ``mixed_terms`` and ``projections`` (the mixed layer and its
inputs), ``norm``, ``selective_fc`` and ``arith`` (operators on layers) sit beside them,
and the larger
families have a folder each: ``cost/``, ``image/``, ``recurrent/``, ``sequence/``,
``detection/``, ``math/``. ``layer_types`` is v2's table of layer type strings.

Importing the package installs the operators on layers (``a + b``, ``2 * a``: see
``arith``) in ``graph``, which cannot import the layers it would build.
"""

from paddle_lite._src.layers import arith  # noqa: F401  (registers the operators)
