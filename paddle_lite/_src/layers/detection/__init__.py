"""The SSD layers (v2's detection layers), written from v2's C++ kernels.

1. ``features`` -- ``priorbox`` (the default boxes of a feature map) and
   ``cross_channel_norm``.
2. ``boxes`` -- box arithmetic shared by the layers below and the ``detection_map``
   evaluator: overlap (jaccard), encoding and decoding, the label rows.
3. ``loss`` -- the training cost ``multibox_loss``.
4. ``output`` -- the inference head ``detection_output``.
"""
