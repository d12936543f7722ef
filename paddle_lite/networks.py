"""Composite networks (v2 ``paddle.networks``)."""

from paddle_lite._src.networks.attention import (
    bidirectional_gru,
    bidirectional_lstm,
    simple_attention,
)
from paddle_lite._src.networks.basic import (
    img_conv_bn_pool,
    img_conv_group,
    simple_img_conv_pool,
    small_vgg,
    vgg_16_network,
)
from paddle_lite._src.networks.dot_attention import dot_product_attention, multi_head_attention
from paddle_lite._src.networks.gru import simple_gru, simple_gru2
from paddle_lite._src.networks.rnn import gru_group, gru_unit, lstmemory_group, lstmemory_unit
from paddle_lite._src.networks.separable import img_separable_conv
from paddle_lite._src.networks.sequence import sequence_conv_pool, simple_lstm, text_conv_pool

__all__ = [
    "bidirectional_gru",
    "bidirectional_lstm",
    "dot_product_attention",
    "gru_group",
    "gru_unit",
    "img_conv_bn_pool",
    "img_conv_group",
    "img_separable_conv",
    "lstmemory_group",
    "lstmemory_unit",
    "multi_head_attention",
    "sequence_conv_pool",
    "simple_attention",
    "simple_gru",
    "simple_gru2",
    "simple_img_conv_pool",
    "simple_lstm",
    "small_vgg",
    "text_conv_pool",
    "vgg_16_network",
]
