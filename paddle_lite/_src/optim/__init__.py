"""Optimizers (v2 ``paddle.optimizer``) as optax gradient transformations.

An optimizer holds v2's global settings and turns them, with each parameter's attributes,
into one optax chain. Read in this order:

1. ``optimizers`` -- the ``Optimizer`` base: v2's arguments and ``to_optax``;
   ``update_rule`` -- each parameter's resolved settings and the optax transform that
   applies the rule to every parameter.
2. ``rules`` -- the update rules (Momentum, Adam, AdaGrad, ...): each only states its rule.
3. ``regularizers`` -- what wraps a rule: L1/L2 decay, clipping, model averaging, frozen
   parameters.
4. ``schedules`` -- v2's learning-rate schedules; ``wide_ints`` -- v2's ``int64(n * x)``
   on the device, which the model-averaging window needs.
5. ``sparse_rows`` -- row-sparse updates of ``sparse_update=True`` parameters.
"""
