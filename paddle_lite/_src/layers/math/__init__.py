"""Math layers: functions of rows, with or without learned weights.

1. ``basic`` -- ``cos_sim``, ``max_id``, ``slope_intercept``, ``scaling``,
   ``interpolation``, ``power``; ``tile`` -- ``trans``, ``repeat``.
2. ``rows`` -- elementwise and per-row layers of one input (``row_l2_norm``, ``clip``,
   ``scale_shift``, ``prelu``).
3. ``pairs`` -- layers over rows of two or more inputs (``multiplex``, ``dot_prod``,
   ``l2_distance``, ``out_prod``); ``combine`` -- ``conv_shift``, ``linear_comb``,
   ``tensor``.
4. ``learned`` -- layers with learned weights over one input (``factorization_machine``,
   ``row_conv``, ...).

Arithmetic on layers (``a + b``, ``2 * a``) and the unary ops are in ``layers.arith``.
"""
