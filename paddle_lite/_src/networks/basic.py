"""Composite networks (v2 ``paddle.networks``) built only from public layer functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paddle_lite._src.activations import BaseActivation, Linear, Relu, Softmax
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers.addto import dropout
from paddle_lite._src.layers.base import layer_name
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.image.conv import img_conv
from paddle_lite._src.layers.image.pool import img_pool
from paddle_lite._src.layers.norm import batch_norm
from paddle_lite._src.poolings import BasePoolingType, Max


def simple_img_conv_pool(
    input: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    pool_size: int | Sequence[int],
    name: str | None = None,
    pool_type: BasePoolingType | None = None,
    act: BaseActivation | None = None,
    groups: int = 1,
    conv_stride: int | Sequence[int] = 1,
    conv_padding: int | Sequence[int] = 0,
    bias_attr: ParamAttr | bool | None = None,
    num_channel: int | None = None,
    param_attr: ParamAttr | None = None,
    shared_bias: bool = True,
    conv_layer_attr: ExtraAttr | None = None,
    pool_stride: int | Sequence[int] = 1,
    pool_padding: int | Sequence[int] = 0,
    pool_layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A convolution then a pooling: ``out = pool(act(conv(x) + b))``.

    The layers are ``img_conv`` ``<name>_conv`` and ``img_pool`` ``<name>_pool``; see
    them for the output sizes.

    Args:
        input: an image layer, or a flat layer with ``num_channel`` (shaped as in v2).
        filter_size, num_filters, groups, act, param_attr, bias_attr: the
            convolution's (see [`img_conv`][paddle_lite.layer.img_conv]; ``act`` default Relu).
        pool_size: the pooling window.
        name: the prefix of the two layer names (default ``__conv_pool_<n>__``).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        conv_stride, conv_padding: the convolution's stride and padding.
        num_channel: the input channels (default: the input image's).
        shared_bias: one bias per output channel (default) or per output value.
        conv_layer_attr: ``Extra`` of the convolution.
        pool_stride, pool_padding: the pooling's stride and padding.
        pool_layer_attr: ``Extra`` of the pooling.

    Returns:
        The pooling layer, an image ``(num_filters, outH, outW)``.

    Example:
        >>> conv_pool = paddle.networks.simple_img_conv_pool(
        ...     input=img, filter_size=5, num_filters=20, num_channel=1, pool_size=2,
        ...     pool_stride=2, act=paddle.activation.Relu())
        >>> conv_pool.size
        80
    """
    name = layer_name(name, "conv_pool")
    conv = img_conv(
        input=input,
        filter_size=filter_size,
        num_filters=num_filters,
        name=f"{name}_conv",
        num_channels=num_channel,
        act=act,
        groups=groups,
        stride=conv_stride,
        padding=conv_padding,
        bias_attr=bias_attr,
        param_attr=param_attr,
        shared_biases=shared_bias,
        layer_attr=conv_layer_attr,
    )
    return img_pool(
        input=conv,
        pool_size=pool_size,
        name=f"{name}_pool",
        pool_type=pool_type,
        stride=pool_stride,
        padding=pool_padding,
        layer_attr=pool_layer_attr,
    )


def img_conv_bn_pool(
    input: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    pool_size: int | Sequence[int],
    name: str | None = None,
    pool_type: BasePoolingType | None = None,
    act: BaseActivation | None = None,
    groups: int = 1,
    conv_stride: int | Sequence[int] = 1,
    conv_padding: int | Sequence[int] = 0,
    conv_bias_attr: ParamAttr | bool | None = None,
    num_channel: int | None = None,
    conv_param_attr: ParamAttr | None = None,
    shared_bias: bool = True,
    conv_layer_attr: ExtraAttr | None = None,
    bn_param_attr: ParamAttr | None = None,
    bn_bias_attr: ParamAttr | bool | None = None,
    bn_layer_attr: ExtraAttr | None = None,
    pool_stride: int | Sequence[int] = 1,
    pool_padding: int | Sequence[int] = 0,
    pool_layer_attr: ExtraAttr | None = None,
) -> Layer:
    """A convolution, batch normalisation, then a pooling:
    ``out = pool(act(BN(conv(x) + b)))``.

    The layers are ``img_conv`` ``<name>_conv`` (linear), ``batch_norm`` ``<name>_bn``
    (with ``act``) and ``img_pool`` ``<name>_pool``.

    Args:
        input: an image layer, or a flat layer with ``num_channel`` (shaped as in v2).
        filter_size, num_filters, groups: the convolution's.
        pool_size: the pooling window.
        name: the prefix of the layer names (default ``__conv_bn_pool_<n>__``).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        act: the activation after batch norm (default Relu).
        conv_stride, conv_padding: the convolution's stride and padding.
        conv_bias_attr, conv_param_attr: the convolution's bias and filter.
        shared_bias: one convolution bias per output channel (default) or per value.
        conv_layer_attr: ``Extra`` of the convolution.
        num_channel: the input channels (default: the input image's).
        bn_param_attr, bn_bias_attr, bn_layer_attr: batch norm's γ, β and ``Extra``.
        pool_stride, pool_padding, pool_layer_attr: the pooling's settings.

    Returns:
        The pooling layer, an image ``(num_filters, outH, outW)``.

    Example:
        >>> block = paddle.networks.img_conv_bn_pool(
        ...     input=img, filter_size=3, num_filters=8, num_channel=1, conv_padding=1,
        ...     pool_size=2, pool_stride=2, act=paddle.activation.Relu())
        >>> block.size
        128
    """
    name = layer_name(name, "conv_bn_pool")
    conv = img_conv(
        input=input,
        filter_size=filter_size,
        num_filters=num_filters,
        name=f"{name}_conv",
        num_channels=num_channel,
        act=Linear(),
        groups=groups,
        stride=conv_stride,
        padding=conv_padding,
        bias_attr=conv_bias_attr,
        param_attr=conv_param_attr,
        shared_biases=shared_bias,
        layer_attr=conv_layer_attr,
    )
    bn = batch_norm(
        input=conv,
        act=act,
        name=f"{name}_bn",
        bias_attr=bn_bias_attr,
        param_attr=bn_param_attr,
        layer_attr=bn_layer_attr,
    )
    return img_pool(
        input=bn,
        pool_size=pool_size,
        name=f"{name}_pool",
        pool_type=pool_type,
        stride=pool_stride,
        padding=pool_padding,
        layer_attr=pool_layer_attr,
    )


def _per_conv(value: Any, n: int) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


def img_conv_group(
    input: Layer,
    conv_num_filter: Sequence[int],
    pool_size: int,
    num_channels: int | None = None,
    conv_padding: int | Sequence[int] = 1,
    conv_filter_size: int | Sequence[int] = 3,
    conv_act: BaseActivation | None = None,
    conv_with_batchnorm: bool | Sequence[bool] = False,
    conv_batchnorm_drop_rate: float | Sequence[float] = 0,
    pool_stride: int = 1,
    pool_type: BasePoolingType | None = None,
    param_attr: ParamAttr | None = None,
) -> Layer:
    """A VGG block: ``len(conv_num_filter)`` convolutions, then one pooling.

    ``h_i = act_i(conv_i(h_{i-1}))``, or ``act_i(BN_i(conv_i(h_{i-1})))`` with batch
    norm, from ``h_0 = x``; ``out = pool(h_n)``. With batch norm the convolution is
    linear and the batch norm takes ``act_i`` and, when its drop rate is not 0,
    dropout. Per-convolution arguments may be a single value or a list with one entry
    each.

    Args:
        input: an image layer, or a flat layer with ``num_channels`` (shaped as in v2).
        conv_num_filter: the output channels of each convolution (a list).
        pool_size: the pooling window.
        num_channels: the input channels (default: the input image's).
        conv_padding: each convolution's padding (default 1).
        conv_filter_size: each convolution's filter size (default 3).
        conv_act: each convolution's activation (default Relu).
        conv_with_batchnorm: whether each convolution is followed by batch norm.
        conv_batchnorm_drop_rate: the dropout rate of each batch norm (default 0).
        pool_stride: the pooling stride (default 1).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        param_attr: a ``Param`` for every convolution's filter.

    Returns:
        The pooling layer, an image ``(conv_num_filter[-1], outH, outW)``.

    Example:
        >>> block = paddle.networks.img_conv_group(
        ...     input=img, num_channels=1, conv_num_filter=[8, 8], pool_size=2,
        ...     pool_stride=2, conv_act=paddle.activation.Relu(), conv_with_batchnorm=True,
        ...     conv_batchnorm_drop_rate=[0.3, 0])
        >>> block.size
        128
    """
    n = len(conv_num_filter)
    padding, size, acts, with_bn, drops = (
        _per_conv(v, n)
        for v in (
            conv_padding,
            conv_filter_size,
            conv_act,
            conv_with_batchnorm,
            conv_batchnorm_drop_rate,
        )
    )
    tmp = input
    for i in range(n):
        tmp = img_conv(
            input=tmp,
            padding=padding[i],
            filter_size=size[i],
            num_filters=conv_num_filter[i],
            param_attr=param_attr,
            num_channels=num_channels if i == 0 else None,
            act=Linear() if with_bn[i] else acts[i],
        )
        if with_bn[i]:
            extra = None if abs(drops[i]) < 1e-5 else ExtraAttr(drop_rate=drops[i])
            tmp = batch_norm(input=tmp, act=acts[i], layer_attr=extra)
    return img_pool(input=tmp, stride=pool_stride, pool_size=pool_size, pool_type=pool_type)


def _vgg_block(
    ipt: Layer, num_filter: int, times: int, dropouts: list[float], num_channels: int | None = None
) -> Layer:
    return img_conv_group(
        input=ipt,
        num_channels=num_channels,
        pool_size=2,
        pool_stride=2,
        conv_num_filter=[num_filter] * times,
        conv_filter_size=3,
        conv_act=Relu(),
        conv_with_batchnorm=True,
        conv_batchnorm_drop_rate=dropouts,
        pool_type=Max(),
    )


def small_vgg(input_image: Layer, num_channels: int, num_classes: int) -> Layer:
    """v2's small VGG for 32×32 images (its CIFAR network).

    Four [`img_conv_group`][paddle_lite.networks.img_conv_group] blocks of 64, 128, 256 and 512
    filters: 2, 2, 3 and 3 batch-normed 3×3 convolutions with Relu (each batch norm but the block's
    last with dropout, 0.3 in the first block and 0.4 in the others), then a 2×2 max pooling of
    stride 2. Then one more such pooling, dropout 0.5, fc 512 (linear, dropout 0.5), batch norm
    (Relu) and an fc softmax of ``num_classes``.

    Args:
        input_image: an image layer, or a flat layer with ``num_channels`` (shaped
            as in v2).
        num_channels: the input channels.
        num_classes: the number of classes.

    Returns:
        A softmax layer of size ``num_classes``.

    Example:
        >>> image = paddle.layer.data(
        ...     name="image", type=paddle.data_type.dense_vector(3 * 32 * 32),
        ...     height=32, width=32)
        >>> out = paddle.networks.small_vgg(input_image=image, num_channels=3, num_classes=10)
        >>> out.size
        10
    """
    tmp = _vgg_block(input_image, 64, 2, [0.3, 0], num_channels)
    tmp = _vgg_block(tmp, 128, 2, [0.4, 0])
    tmp = _vgg_block(tmp, 256, 3, [0.4, 0.4, 0])
    tmp = _vgg_block(tmp, 512, 3, [0.4, 0.4, 0])
    tmp = img_pool(input=tmp, stride=2, pool_size=2, pool_type=Max())
    tmp = dropout(input=tmp, dropout_rate=0.5)
    tmp = fc(input=tmp, size=512, layer_attr=ExtraAttr(drop_rate=0.5), act=Linear())
    tmp = batch_norm(input=tmp, act=Relu())
    return fc(input=tmp, size=num_classes, act=Softmax())


def vgg_16_network(input_image: Layer, num_channels: int, num_classes: int = 1000) -> Layer:
    """VGG-16: thirteen 3×3 convolutions, two fc 4096 and a softmax.

    Five [`img_conv_group`][paddle_lite.networks.img_conv_group] blocks of 2, 2, 3, 3 and 3
    convolutions (64, 128, 256, 512 and 512 filters, padding 1, Relu, no batch norm), each ending in
    a 2×2 max pooling of stride 2; then two fc 4096 (Relu, dropout 0.5) and an fc softmax of
    ``num_classes``.

    Args:
        input_image: an image layer (224×224 in the original), or a flat layer with
            ``num_channels`` (shaped as in v2).
        num_channels: the input channels.
        num_classes: the number of classes (default 1000).

    Returns:
        A softmax layer of size ``num_classes``.

    Example:
        >>> image = paddle.layer.data(
        ...     name="image", type=paddle.data_type.dense_vector(3 * 32 * 32),
        ...     height=32, width=32)
        >>> out = paddle.networks.vgg_16_network(input_image=image, num_channels=3,
        ...                                      num_classes=10)
        >>> out.size
        10
    """
    tmp = input_image
    for i, filters in enumerate(([64, 64], [128, 128], [256] * 3, [512] * 3, [512] * 3)):
        tmp = img_conv_group(
            input=tmp,
            num_channels=num_channels if i == 0 else None,
            conv_padding=1,
            conv_num_filter=filters,
            conv_filter_size=3,
            conv_act=Relu(),
            pool_size=2,
            pool_stride=2,
            pool_type=Max(),
        )
    tmp = fc(input=tmp, size=4096, act=Relu(), layer_attr=ExtraAttr(drop_rate=0.5))
    tmp = fc(input=tmp, size=4096, act=Relu(), layer_attr=ExtraAttr(drop_rate=0.5))
    return fc(input=tmp, size=num_classes, act=Softmax())
