"""Composite networks (v2 ``paddle.networks``)."""

from paddle_lite._src.networks import (
    img_conv_bn_pool,
    img_conv_group,
    simple_img_conv_pool,
    small_vgg,
    vgg_16_network,
)

__all__ = [
    "img_conv_bn_pool",
    "img_conv_group",
    "simple_img_conv_pool",
    "small_vgg",
    "vgg_16_network",
]
