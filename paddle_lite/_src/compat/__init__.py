"""v2 as programs found it: the names, flags, logger and imports a v2 program relies on.

Nothing here computes; each module maps something a v2 program wrote onto paddle_lite.
Read in this order:

1. ``flags`` -- the keywords ``paddle.init(**kwargs)`` accepts and the type of each.
2. ``log`` -- the ``paddle`` logger as ``import paddle.v2`` configured it.
3. ``early_names`` -- names of earlier v2 versions, each still working with a
   ``DeprecationWarning`` naming the new one.
4. ``aliases`` -- a second name a public module serves (``paddle.layer.print``).
5. ``v2_imports`` -- ``import paddle.v2 as paddle`` (and v1's helper modules) importing
   paddle_lite: ``python -m paddle_lite.v2 program.py``.
"""
