"""Composite networks (v2 ``paddle.networks``), built only from public layer functions.

Nothing here defines a layer kind: every network calls ``paddle_lite.layer`` functions, so
its layers, names and parameter's are exactly those v2's networks created. Read in order:

1. ``basic`` -- image networks (``simple_img_conv_pool``, ``img_conv_group``,
   ``vgg_16_network``) and fully connected helpers.
2. ``sequence`` -- text convolution and pooling (``sequence_conv_pool``), LSTMs
   (``simple_lstm``).
3. ``gru`` -- ``simple_gru`` and ``simple_gru2``; ``rnn`` -- the units and groups built on
   recurrent groups (``lstmemory_group``, ``gru_group``).
4. ``attention`` -- bidirectional networks and ``simple_attention``; ``dot_attention`` --
   ``dot_product_attention`` and ``multi_head_attention``.
5. ``separable`` -- ``img_separable_conv``.
"""
