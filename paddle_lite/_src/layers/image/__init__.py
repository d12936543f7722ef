"""Image layers. Images travel flat, ``[batch, C*H*W]`` in v2's NCHW order (volumes
``[batch, C*D*H*W]``); each layer reads its geometry from its input's spec.

1. ``geometry`` -- argument pairs and the (C, H, W) of values; ``volume`` -- the same for
   3-D images.
2. ``conv`` -- ``img_conv`` (and its transposed form); ``conv_mixed`` -- convolutions
   inside a mixed layer; ``conv3d`` -- 3-D convolution and pooling.
3. ``pool`` -- ``img_pool``, ``maxout``, ``pad``, over ``windows`` (the window
   arithmetic of 2-D pooling, with v2's max-pool gradient); ``spp`` -- spatial pyramid
   pooling; ``roi_pool`` -- ``roi_pool`` and ``upsample``; ``cmrnorm`` -- ``img_cmrnorm``.
4. ``layout`` -- ``switch_order``, ``crop``, ``resize``, ``scale_sub_region``;
   ``reshape`` -- ``bilinear_interp``, ``rotate``, ``block_expand``.
"""
