"""3-D convolution and pooling of volumes: img_conv3d (conv3d / deconv3d), img_pool3d.

Volumes travel flat, ``[batch, C*D*H*W]`` in NCDHW order (see ``image.volume``); each kind
reshapes to ``[batch, C, D, H, W]`` and flattens its output back. Output sizes follow
v2's ``cnn_output_size`` / ``cnn_image_size`` (caffe mode for convolutions, ``ceil``
for pooling unless ``ceil_mode=False``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src import poolings
from paddle_lite._src.activations import BaseActivation, Relu, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    get_kind,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.conv import conv_output_size
from paddle_lite._src.layers.image.geometry import int_at_least
from paddle_lite._src.layers.image.pool import pool_output_size
from paddle_lite._src.layers.image.volume import input_volume, output_volume, triple, volume_spec
from paddle_lite._src.poolings import BasePoolingType
from paddle_lite._src.specs import InitSpec

DIMS = ("NCDHW", "OIDHW", "NCDHW")


# img_conv3d --------------------------------------------------------------------------
class Conv3DKind(Kind):
    name = "conv3d"
    v2 = V2Layer(dimless=("w0",))  # v2 declares a filter by its size only

    def out_volume(self, spec, attrs):
        def size_of(n: int, i: int) -> int:
            k, s, p = attrs["filter_size"][i], attrs["stride"][i], attrs["padding"][i]
            return conv_output_size(n, k, s, p, 1, attrs["trans"])

        return output_volume(spec, attrs, attrs["num_filters"], size_of)

    def infer_spec(self, inputs, attrs):
        return volume_spec(self.out_volume(inputs[0], attrs))

    def param_specs(self, inputs, attrs):
        c, f, g = attrs["volume"][0], attrs["num_filters"], attrs["groups"]
        kz, ky, kx = attrs["filter_size"]
        # v2's layouts: conv3d [F, C/g*kz*ky*kx]; deconv3d [F*kz*ky*kx, F/g]
        shape = (f, kz, ky, kx, f // g) if attrs["trans"] else (f, c // g, kz, ky, kx)
        std = math.sqrt(2.0 / (kx * kx * c))
        decls = [ParamDecl("w0", shape, ParamAttrAt(0), InitSpec("gaussian", 0.0, std))]
        if attrs["bias"]:
            n = f if attrs["shared_biases"] else self.infer_spec(inputs, attrs).size
            decls.append(ParamDecl("wbias", (n, 1), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        x = inputs[0].reshape(-1, *attrs["volume"])
        y = _deconv3d(x, params["w0"], attrs) if attrs["trans"] else _conv3d(x, params["w0"], attrs)
        if attrs["bias"]:
            b = params["wbias"]
            y = y + (
                b.reshape(1, -1, 1, 1, 1) if attrs["shared_biases"] else b.reshape(y.shape[1:])
            )
        return y.reshape(y.shape[0], -1)


class DeConv3DKind(Conv3DKind):
    name = "deconv3d"


register_kind(Conv3DKind())
register_kind(DeConv3DKind())


def _conv3d(x, w, attrs):
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=attrs["stride"],
        padding=[(p, p) for p in attrs["padding"]],
        dimension_numbers=DIMS,
        feature_group_count=attrs["groups"],
    )


def _deconv3d(x, w, attrs):
    """v2's deconv3d: ``out[f, i*s - p + k] += W[f, k, m] * in[group(f)*F/g + m, i]``.

    v2 reads each input as ``num_filters`` channels (its weight is ``[F*kz*ky*kx, F/g]``):
    an input with more channels contributes its first ``F``; one with fewer would be read
    past its end, which is refused. Computed as a forward convolution over the
    stride-dilated input with the flipped filters.
    """
    c, f = x.shape[1], attrs["num_filters"]
    if c < f:
        raise LayerConfigError(
            f"deconv3d reads its input as num_filters={f} channels (v2's weight is "
            f"[num_filters*kz*ky*kx, num_filters/groups]) but the input has only {c}; v2 "
            "would read past each sample. Use num_channels >= num_filters."
        )
    x = x[:, :f]
    oidhw = jnp.transpose(w, (0, 4, 1, 2, 3))[:, :, ::-1, ::-1, ::-1]
    pads = [
        (k - 1 - p, k - 1 - p) for k, p in zip(attrs["filter_size"], attrs["padding"], strict=True)
    ]
    return lax.conv_general_dilated(
        x,
        oidhw,
        window_strides=(1, 1, 1),
        padding=pads,
        lhs_dilation=attrs["stride"],
        dimension_numbers=DIMS,
        feature_group_count=attrs["groups"],
    )


def _conv3d_type(layer_type: Any, trans: bool, *, layer: str) -> str:
    """The layer type: ``deconv3d`` for ``trans`` or ``layer_type="deconv3d"`` (v2 builds
    the type it is given), else ``conv3d``."""
    allowed = ("deconv3d",) if trans else ("conv3d", "deconv3d")
    if layer_type is not None and layer_type not in allowed:
        raise LayerConfigError(
            f"layer '{layer}': layer_type {layer_type!r} is not valid with trans={trans}; "
            f"expected None or one of {allowed}."
        )
    return "deconv3d" if trans else (layer_type or "conv3d")


@base.layer_function
def img_conv3d(
    input: Layer,
    filter_size: int | Sequence[int],
    num_filters: int,
    name: str | None = None,
    num_channels: int | None = None,
    act: BaseActivation | None = None,
    groups: int = 1,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    shared_biases: bool = True,
    layer_attr: ExtraAttr | None = None,
    trans: bool = False,
    layer_type: str | None = None,
) -> Layer:
    """3-D convolution (``trans=True``: v2's deconv3d) of an NCDHW volume.

    ``out[f, z, y, x] = act(b[f] + sum_{c, i, j, k} W[f, c, i, j, k] *
    in[c, z*s_z - p_z + i, y*s_y - p_y + j, x*s_x - p_x + k])`` with zero padding and
    channel ``groups``. Output size per axis (caffe mode) ``1 + (n + 2p - k) // s``;
    ``trans=True``: ``(n - 1)*s + k - 2p``. v2's deconv3d reads its input as
    ``num_filters`` channels: with more channels it uses the first ``num_filters``;
    with fewer it builds, as in v2, and refuses to run.

    Args:
        input: a volume: a data layer with ``height``, ``width`` and ``depth``, or a 3-D
            layer's output.
        filter_size, stride, padding: an int for all axes or an ``(x, y, z)`` list.
        num_filters: output channels.
        name: the layer name (default ``__conv3d_<n>__``).
        num_channels: input channels (default: the input's).
        act: activation (default ``Relu``).
        groups: channel groups; must divide the channels and ``num_filters``.
        bias_attr: ``None``/``True`` zero bias, ``False`` none, or a ``Param``.
        param_attr: the filter's ``Param``; default Gaussian with std
            ``sqrt(2 / (filter_size_x**2 * C))`` (v2).
        shared_biases: one bias per filter (``[F, 1]``), else one per output value.
        layer_attr: ``Extra(drop_rate=...)``.
        trans: transposed convolution (layer type ``deconv3d``).
        layer_type: ``None``, ``"conv3d"`` or ``"deconv3d"`` (which, as in v2, makes the
            layer transposed even with ``trans=False``).

    Returns:
        A volume ``(num_filters, outD, outH, outW)`` (auto name ``__conv3d_<n>__``).
        Filter ``w0``: ``[F, C/groups, kz, ky, kx]``; with ``trans=True``
        ``[F, kz, ky, kx, F/groups]`` (v2's memory layouts).

    Example:
        >>> vol = paddle.layer.data(name="vol", type=paddle.data_type.dense_vector(2 * 4 * 5 * 5),
        ...                         height=5, width=5, depth=4)
        >>> conv = paddle.layer.img_conv3d(input=vol, filter_size=3, num_filters=6,
        ...                                num_channels=2, padding=1)
        >>> conv.size
        600
    """
    name = base.layer_name(name, "conv3d")
    (inp,) = base.as_layers(input, layer=name)
    volume = input_volume(inp, num_channels, name=name)
    kind = _conv3d_type(layer_type, bool(trans), layer=name)
    trans = kind == "deconv3d"
    num_filters = base.positive_int(num_filters, layer=name, arg="num_filters")
    groups = int_at_least(groups, 1, layer=name, arg="groups")
    if volume[0] % groups or num_filters % groups:
        raise LayerConfigError(
            f"layer '{name}': groups={groups} must divide both the input channels "
            f"({volume[0]}) and num_filters ({num_filters})."
        )
    attrs = {
        "volume": volume,
        "num_filters": num_filters,
        "filter_size": triple(filter_size, 1, layer=name, arg="filter_size"),
        "stride": triple(stride, 1, layer=name, arg="stride"),
        "padding": triple(padding, 0, layer=name, arg="padding"),
        "groups": groups,
        "shared_biases": bool(shared_biases),
        "trans": trans,
        "act": as_activation(Relu() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_ONLY),
    }
    attrs["out_depth"] = _out_depth(kind, inp.spec, attrs, name)
    return base.build(
        kind,
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=base.param_attr_list(param_attr, 1, layer=name),
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


def _out_depth(kind: str, spec, attrs, name: str) -> int:
    """The output depth, recorded on the layer for the 3-D layers it feeds."""
    try:
        return get_kind(kind).out_volume(spec, attrs)[1]
    except LayerConfigError as exc:
        raise LayerConfigError(f"layer '{name}' ({kind}): {exc}") from None


# img_pool3d --------------------------------------------------------------------------
class Pool3DKind(Kind):
    name = "pool3d"

    def out_volume(self, spec, attrs):
        def size_of(n: int, i: int) -> int:
            k, s, p = attrs["pool_size"][i], attrs["stride"][i], attrs["padding"][i]
            return pool_output_size(n, k, s, p, attrs["ceil_mode"])

        return output_volume(spec, attrs, attrs["volume"][0], size_of)

    def infer_spec(self, inputs, attrs):
        return volume_spec(self.out_volume(inputs[0], attrs))

    def apply(self, params, inputs, attrs, *, key, mode):
        c, d, h, w = attrs["volume"]
        out = self.out_volume(volume_spec(attrs["volume"]), attrs)[1:]
        x = inputs[0].reshape(-1, c, d, h, w)
        axes = list(
            zip((d, h, w), out, attrs["pool_size"], attrs["stride"], attrs["padding"], strict=True)
        )
        return _pool3d(x, attrs["pool"], axes).reshape(x.shape[0], -1)


register_kind(Pool3DKind())


def window_counts(n: int, o: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """Per output position, the window's elements inside the input (or the padded input)."""
    start = np.arange(o) * s - p
    lo, hi = (-p, n + p) if include_pad else (0, n)
    return np.maximum(np.minimum(start + k, hi) - np.maximum(start, lo), 0)


def _outer(counts):
    a, b, c = counts
    return a[:, None, None] * b[None, :, None] * c[None, None, :]


def _pool3d(x, pool: str, axes):
    """Max, or v2's 3-D average: the sum over the window divided by the window's size
    within the padded input (padding counted, windows clipped at ``n + p``)."""
    pads = [(0, 0), (0, 0)] + [
        (p, p + max(0, (o - 1) * s + k - (n + 2 * p))) for n, o, k, s, p in axes
    ]
    window = (1, 1, *(a[2] for a in axes))
    strides = (1, 1, *(a[3] for a in axes))
    od, oh, ow = (a[1] for a in axes)
    if pool == "max":
        y = lax.reduce_window(x, -jnp.inf, lax.max, window, strides, pads)[..., :od, :oh, :ow]
        valid = _outer([window_counts(*a, False) for a in axes])
        return jnp.where(valid > 0, y, 0.0)
    total = lax.reduce_window(x, 0.0, lax.add, window, strides, pads)[..., :od, :oh, :ow]
    count = _outer([window_counts(*a, True) for a in axes])
    return total / np.maximum(count, 1).astype(np.float32)


def _pool3d_type(pool_type: Any, *, layer: str) -> str:
    """``"max"`` or ``"avg"``: v2's pool3d takes only max- and avg-projection."""
    pool = poolings.as_pooling(poolings.Max() if pool_type is None else pool_type, layer=layer)
    cudnn = (poolings.CudnnMax, poolings.CudnnAvg, poolings.CudnnAvgInclPad, poolings.MaxWithMask)
    if isinstance(pool, cudnn):
        raise LayerConfigError(
            f"layer '{layer}': img_pool3d supports Max() and Avg() pooling; received "
            f"{type(pool).__name__} (v2: pool-type is not in ['max-projection', 'avg-projection'])."
        )
    return "max" if isinstance(pool, poolings.Max) else "avg"


def _v2_triples(pool_size, stride, padding, padding_z, name):
    """v2's reading of the pool3d settings: an int for all axes or an ``(x, y, z)`` list;
    a padding list gives its z entry to y and leaves z to ``padding_z`` (else x)."""
    size = triple(pool_size, 1, layer=name, arg="pool_size")
    strides = triple(stride, 1, layer=name, arg="stride")
    pz, py, px = triple(padding, 0, layer=name, arg="padding")
    if isinstance(padding, (list, tuple)):  # v2: `padding, padding_y, padding_y = padding`
        py = pz
        pz = px if padding_z is None else int_at_least(padding_z, 0, layer=name, arg="padding_z")
    return size, strides, (pz, py, px)


@base.layer_function
def img_pool3d(
    input: Layer,
    pool_size: int | Sequence[int],
    name: str | None = None,
    num_channels: int | None = None,
    pool_type: BasePoolingType | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    layer_attr: ExtraAttr | None = None,
    pool_size_y: int | None = None,
    stride_y: int | None = None,
    padding_y: int | None = None,
    pool_size_z: int | None = None,
    stride_z: int | None = None,
    padding_z: int | None = None,
    ceil_mode: bool = True,
) -> Layer:
    """3-D max or average pooling of an NCDHW volume, per channel.

    ``out[c, z, y, x]`` = max (or mean) of ``in[c, z*s_z - p_z + i, y*s_y - p_y + j,
    x*s_x - p_x + k]`` over the window. Output size per axis ``1 + ceil((n + 2p - k) / s)``
    (``floor`` when ``ceil_mode=False``). Max ignores padding; average divides the
    window's sum by the window's size within the padded input (v2's 3-D average counts
    the padding). As in v2, ``pool_size``, ``stride`` and ``padding`` are one int for
    all axes or an ``(x, y, z)`` list, and the ``*_y`` / ``*_z`` arguments are ignored,
    except that a ``padding`` list gives its z entry to y and z takes ``padding_z``
    (else the x padding).

    Args:
        input: a volume (a data layer with ``height``, ``width``, ``depth``, or a 3-D
            layer's output).
        pool_size, stride, padding: an int or an ``(x, y, z)`` list.
        pool_size_y, stride_y, padding_y: the height setting, when it differs.
        pool_size_z, stride_z, padding_z: the depth setting, when it differs.
        name: the layer name (default ``__pool3d_<n>__``).
        num_channels: input channels (default: the input's).
        pool_type: ``paddle.pooling.Max()`` (default) or ``Avg()``.
        ceil_mode: round output sizes up (default) or down.
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A volume ``(C, outD, outH, outW)`` (auto name ``__pool3d_<n>__``); no parameters.

    Example:
        >>> vol = paddle.layer.data(name="vol", type=paddle.data_type.dense_vector(2 * 4 * 5 * 5),
        ...                         height=5, width=5, depth=4)
        >>> pool = paddle.layer.img_pool3d(input=vol, pool_size=2, stride=2, num_channels=2)
        >>> pool.size
        36
    """
    del pool_size_y, stride_y, padding_y, pool_size_z, stride_z  # ignored by v2 too
    name = base.layer_name(name, "pool3d")
    (inp,) = base.as_layers(input, layer=name)
    size, strides, pads = _v2_triples(pool_size, stride, padding, padding_z, name)
    attrs = {
        "volume": input_volume(inp, num_channels, name=name),
        "pool": _pool3d_type(pool_type, layer=name),
        "pool_size": size,
        "stride": strides,
        "padding": pads,
        "ceil_mode": bool(ceil_mode),
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    attrs["out_depth"] = _out_depth("pool3d", inp.spec, attrs, name)
    return base.build("pool3d", name=name, inputs=[inp], attrs=attrs)
