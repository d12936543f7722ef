"""Separable convolution (v2's ``paddle.networks.img_separable_conv``, Xception's block),
added to v2's networks in 2018. Built only from public layer functions, with v2's names.
"""

from __future__ import annotations

from collections.abc import Sequence

from paddle_lite._src.activations import BaseActivation, Linear
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.conv import img_conv


@base.layer_function
def img_separable_conv(
    input: Layer,
    num_channels: int,
    num_out_channels: int,
    filter_size: int | Sequence[int],
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    depth_multiplier: int = 1,
    act: BaseActivation | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    shared_bias: bool = True,
    layer_type: str = "exconv",
    name: str | None = None,
) -> Layer:
    """A depthwise convolution then a pointwise (1×1) one that mixes the channels.

    $$
    d_{c m} = k_{c m} * x_c \\;(\\text{per channel } c,\\ m < \\text{depth\\_multiplier}),
    \\qquad y_o = \\mathrm{act}\\Big(\\sum_{c m} w_{o, c m}\\, d_{c m} + b_o\\Big)
    $$

    Layers: ``<name>_depthwise_conv`` (``groups=num_channels``,
    ``num_channels · depth_multiplier`` filters, linear, ``layer_type``) and
    ``<name>_pointwise_conv`` (1×1, ``act``); both take ``bias_attr``, ``param_attr`` and
    ``shared_bias``.

    Args:
        input: an image layer with ``num_channels`` channels.
        num_channels: its channel count.
        num_out_channels: the output channels.
        filter_size, stride, padding: of the depthwise convolution.
        depth_multiplier: depthwise filters per input channel.
        act: the output activation (default Relu, as ``img_conv``).
        bias_attr, param_attr, shared_bias: as ``img_conv``'s, for both convolutions.
        layer_type: the depthwise convolution's ``layer_type`` (default ``"exconv"``).
        name: default ``__separable_conv_<n>__``.

    Returns:
        An image layer of ``num_out_channels`` channels.

    Example:
        >>> sep = paddle.networks.img_separable_conv(
        ...     input=img, num_channels=1, num_out_channels=4, filter_size=3, padding=1)
        >>> sep.size
        256
    """
    name = base.layer_name(name, "separable_conv")
    depthwise = img_conv(
        name=f"{name}_depthwise_conv",
        input=input,
        num_channels=num_channels,
        num_filters=num_channels * depth_multiplier,
        groups=num_channels,
        filter_size=filter_size,
        stride=stride,
        padding=padding,
        act=Linear(),
        bias_attr=bias_attr,
        param_attr=param_attr,
        shared_biases=shared_bias,
        layer_type=layer_type,
    )
    return img_conv(
        name=f"{name}_pointwise_conv",
        input=depthwise,
        num_channels=num_channels * depth_multiplier,
        num_filters=num_out_channels,
        filter_size=1,
        stride=1,
        padding=0,
        act=act,
        bias_attr=bias_attr,
        param_attr=param_attr,
        shared_biases=shared_bias,
    )
