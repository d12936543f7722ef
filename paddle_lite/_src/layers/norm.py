"""Normalisation layers: batch_norm and sum_to_one_norm (img_cmrnorm, the cross-map LRN, is
in ``image.cmrnorm``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
from jax import lax

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import BaseActivation, Relu, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    Fixed,
    HostChecks,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.image.geometry import (
    flat_image,
    plain_dense,
)
from paddle_lite._src.layers.image.volume import input_volume
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.layers import Message, height_width
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import InitSpec, Spec
from paddle_lite._src.values import Seq, data_of, step_mask, with_data

BATCH_NORM_TYPES = (None, "batch_norm", "cudnn_batch_norm", "mkldnn_batch_norm")


# batch_norm --------------------------------------------------------------------------
def _image_conf(n: Layer) -> Message:
    image = n.attrs.get("image")
    if image is None:  # v2 reads a flat input as channels of 1x1 images
        return Message(channels=int(n.attrs["channels"]), img_size=1, img_size_y=1)
    channels, height, width = image
    depth = n.attrs.get("out_depth")
    if depth:  # a 3-D image: channels of depth x height x width
        channels = int(n.attrs["channels"])
        return Message(channels=channels, img_size=width, img_size_y=height, img_size_z=depth)
    return Message(channels=channels, img_size=width, img_size_y=height)


def _batch_norm_fields(n: Layer, inputs: list[Message]) -> dict[str, Any]:
    """``epsilon``, the moving average's settings, the image sizes, and the input's
    ``image_conf``."""
    inputs[0].image_conf = _image_conf(n)
    extra = {"epsilon": n.attrs["epsilon"]}
    extra["moving_average_fraction"] = n.attrs["moving_average_fraction"]
    if n.attrs.get("use_global_stats") is not None:
        extra["use_global_stats"] = bool(n.attrs["use_global_stats"])
    if n.attrs.get("image") is None:  # v2 wrote a flat batch_norm's size only
        return extra
    return extra | height_width(n) | {"depth": n.attrs.get("out_depth") or 1}


def _batch_norm_from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    first, mean, var = cfg["inputs"][:3]
    return batch_norm(
        input=ins[0],
        act=rebuild.act(cfg),
        name=cfg["name"],
        num_channels=first.get("image_conf", Msg()).get("channels"),
        bias_attr=rebuild.bias(cfg),
        param_attr=rebuild.param(first),
        use_global_stats=cfg.get("use_global_stats"),
        moving_average_fraction=cfg.get("moving_average_fraction"),
        mean_var_names=[mean["input_parameter_name"], var["input_parameter_name"]],
    )


class BatchNormKind(Kind):
    name = "batch_norm"
    host = HostChecks(keeps_lengths=True)
    v2 = V2Layer(
        fields=_batch_norm_fields,
        dimless=("w0",),  # v2 declares the scale by its size only
        rebuild=_batch_norm_from_v2,
        reads=("batch_norm", "cudnn_batch_norm"),
    )
    stateful = True
    uses_row_weights = True  # batch statistics leave padding rows out

    def infer_spec(self, inputs, attrs):
        (s,) = inputs
        if s.size % attrs["channels"]:
            raise LayerConfigError(
                f"input size {s.size} is not divisible by the {attrs['channels']} channels."
            )
        return Spec(s.size, seq_level=s.seq_level, image=attrs["image"])

    def param_specs(self, inputs, attrs):
        c = attrs["channels"]
        named = attrs["mean_var_names"] is not None
        decls = [
            ParamDecl("w0", (1, c), ParamAttrAt(0), InitSpec("gaussian", 0.0, 1.0 / math.sqrt(c))),
            ParamDecl("w1", (1, c), ParamAttrAt(1) if named else Fixed(), attrs_mod.ZERO, True),
            ParamDecl("w2", (1, c), ParamAttrAt(2) if named else Fixed(), attrs_mod.ZERO, True),
        ]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, c), BiasAttr(), attrs_mod.SMART))
        return decls

    def channels_last(self, attrs, input_is_channels_last):
        image = attrs["image"]  # a chain continues through batch_norm, never starts
        return input_is_channels_last and bool(image) and image[0] == attrs["channels"]

    def apply(self, params, inputs, attrs, *, key, mode, row_weights=None):
        c, value = attrs["channels"], inputs[0]
        if isinstance(value, ChannelsLast):  # [N, H, W, C]: rows of pixels, channels last
            data = value.data
            x, axis = data.reshape(data.shape[0], -1, c), 2
        else:
            data = data_of(value)
            x, axis = data.reshape(-1, c, data.shape[-1] // c), 1  # rows: samples, or steps
        batch_stats = mode == "train" or attrs["use_global_stats"] is False
        if batch_stats:  # v2: a sequence's statistics are over its valid steps
            seq = isinstance(value, Seq)
            mean, var = _moments(x, _step_weights(value, row_weights) if seq else row_weights, axis)
        else:
            mean, var = params["w1"][0], jnp.maximum(params["w2"][0], 0.0)
        scale = params["w0"][0] * lax.rsqrt(var + attrs["epsilon"])
        y = (x - _channel(mean, axis)) * _channel(scale, axis)
        if attrs["bias"]:
            y = y + _channel(params["wbias"][0], axis)
        updates = {}
        if mode == "train":
            f = attrs["moving_average_fraction"]
            updates = {
                "w1": lax.stop_gradient(params["w1"] * f + mean[None, :] * (1.0 - f)),
                "w2": lax.stop_gradient(params["w2"] * f + var[None, :] * (1.0 - f)),
            }
        if isinstance(value, ChannelsLast):
            return ChannelsLast(y.reshape(data.shape)), updates
        return with_data(value, y.reshape(data.shape)), updates


register_kind(BatchNormKind())


def _moments(x: Any, weights: Any, axis: int = 1) -> tuple[Any, Any]:
    """Per-channel mean and biased variance of ``x`` ``[rows, C, pixels]`` (``axis=1``)
    or ``[rows, pixels, C]`` (``axis=2``) over the rows of weight 1 (all rows when
    ``weights`` is None): the real rows of a padded batch, or the valid steps of a
    sequence batch (v2 normalised a sequence over all its steps in the batch; a batch
    of no valid step gets 0, not a division by 0).

    With weights each moment is one contraction of the weights with the rows, in
    float32: as fast as the plain mean (a weighted sum of ``x * w`` or a plain mean
    less the padding rows' share cost ResNet-32's training step 5-8% on a CPU). A
    full batch gets the plain moments up to float32 rounding (a few ulps)."""
    rows = (0, 2) if axis == 1 else (0, 1)
    if weights is None:
        mean = x.mean(axis=rows)
        return mean, jnp.square(x - _channel(mean, axis)).mean(axis=rows)
    w = weights.astype(jnp.float32)
    count = jnp.maximum(jnp.sum(w) * (x.size // (x.shape[0] * x.shape[axis])), 1.0)
    spec = "r,rcp->c" if axis == 1 else "r,rpc->c"

    def moment(v: Any) -> Any:
        total = jnp.einsum(spec, w, v.astype(jnp.float32), precision=lax.Precision.HIGHEST)
        return (total / count).astype(x.dtype)

    mean = moment(x)
    return mean, moment(jnp.square(x - _channel(mean, axis)))


def _channel(v: Any, axis: int) -> Any:
    """``[C]`` broadcast along ``axis`` of a 3-D array."""
    return v[None, :, None] if axis == 1 else v[None, None, :]


def _step_weights(value: Seq, row_weights: Any) -> Any:
    """``[steps]`` weights of a sequence's rows: 0 on padding steps and on the steps of
    padding rows (``row_weights`` 0)."""
    mask = step_mask(value)
    if row_weights is None:
        return mask.reshape(-1)
    w = row_weights.reshape((-1,) + (1,) * (mask.ndim - 1))
    return (mask & (w > 0)).reshape(-1)


def _bn_channels(spec: Spec, num_channels: Any, *, layer: str) -> tuple[int, Any]:
    """Channels (``num_channels``, else the image's, else the size) and the output image.

    A sequence is normalised step by step, as v2 did (DeepSpeech2's sequence-wise
    batch norm): its steps are the rows the statistics run over."""
    plain_dense(Spec(spec.size, spec.dtype, 0, spec.image), layer=layer)
    if num_channels is None:
        return (spec.image[0] if spec.image else spec.size), spec.image
    c = base.positive_int(num_channels, layer=layer, arg="num_channels")
    if spec.size % c:
        raise LayerConfigError(
            f"layer '{layer}': num_channels={c} does not divide the input size {spec.size}."
        )
    if spec.image is None:
        return c, flat_image(spec.size, c)
    # an image of other channels: v2 refused it (its height and width do not hold them)
    return c, (spec.image if spec.image[0] == c else None)


def _mean_var_attrs(mean_var_names: Any, *, layer: str) -> list[attrs_mod.ParamAttr]:
    if mean_var_names is None:
        return []
    if (
        not isinstance(mean_var_names, (list, tuple))
        or len(mean_var_names) != 2
        or not all(isinstance(n, str) and n for n in mean_var_names)
    ):
        raise LayerConfigError(
            f"layer '{layer}': mean_var_names must be a pair of parameter names "
            f"(moving mean, moving variance); received {mean_var_names!r}."
        )
    return [attrs_mod.ParamAttr(name=n, is_static=True) for n in mean_var_names]


def _epsilon(epsilon: Any, *, layer: str) -> float:
    """v2's config_parser asserted ``epsilon >= 1e-5`` (cuDNN's smallest)."""
    value = base.number(epsilon, layer=layer, arg="epsilon")
    if not value >= 1e-5:
        raise LayerConfigError(
            f"layer '{layer}': epsilon must be >= 1e-05 (v2's bound); received {value:g}."
        )
    return value


def _bn_options(batch_norm_type, use_global_stats, *, layer: str) -> bool | None:
    if batch_norm_type not in BATCH_NORM_TYPES:
        raise LayerConfigError(
            f"layer '{layer}': batch_norm_type must be one of {BATCH_NORM_TYPES}; "
            f"received {batch_norm_type!r}."
        )
    return base.flag(use_global_stats, layer=layer, arg="use_global_stats", allow_none=True)


@base.layer_function
def batch_norm(
    input: Layer,
    act: BaseActivation | None = None,
    name: str | None = None,
    img3D: bool = False,
    num_channels: int | None = None,
    bias_attr: ParamAttr | bool | None = None,
    param_attr: ParamAttr | None = None,
    layer_attr: ExtraAttr | None = None,
    batch_norm_type: str | None = None,
    epsilon: float = 1e-5,
    moving_average_fraction: float = 0.9,
    use_global_stats: bool | None = None,
    mean_var_names: Sequence[str] | None = None,
) -> Layer:
    """Batch normalisation per channel: ``act(gamma * (x - mean) / sqrt(var + eps) + beta)``.

    Statistics run over the batch (and H, W of images; for a sequence, over all the
    valid steps of the batch, each step a row, as v2 did). Training uses the batch mean
    and biased variance and updates the moving statistics
    ``w1 = w1*f + mean*(1-f)``, ``w2 = w2*f + var*(1-f)`` (``f`` =
    ``moving_average_fraction``). Test uses the moving statistics, unless
    ``use_global_stats=False`` (then the test batch's own statistics; moving
    statistics change only in training). As in v2, ``use_global_stats`` does not
    affect training.

    Args:
        input: a layer; channels are ``num_channels``, else the image's channels,
            else the input size (one channel per feature).
        act: activation (default ``Relu``).
        name: the layer name (default ``__batch_norm_<n>__``).
        img3D: the input is a volume (NCDHW, see ``img_conv3d``): statistics per channel
            over the batch and ``D*H*W``; channels ``num_channels``, else the input's.
        num_channels: the channels ``C`` (default: the image's channels, else the input
            size).
        bias_attr: β: ``None``/``True`` zero init, ``False`` none, or a ``Param``.
        param_attr: γ; default ``Param(initial_mean=1.0, initial_std=0.0)``.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        batch_norm_type: ``None``, ``"batch_norm"``, ``"cudnn_batch_norm"`` or
            ``"mkldnn_batch_norm"`` (same numerics).
        epsilon: added to the variance; at least ``1e-5``, as v2 required.
        moving_average_fraction: ``f`` of the moving statistics' update.
        use_global_stats: ``None``/``True`` test with the moving statistics, ``False``
            with the test batch's own.
        mean_var_names: ``(mean_name, var_name)`` naming the moving statistics
            (to share them).

    Returns:
        A layer of the input's size (and image). Parameters, all ``[1, C]``: ``w0`` γ,
        ``w1`` moving mean and ``w2`` moving variance (static, init 0 as in v2),
        ``wbias`` β.

    Example:
        >>> bn = paddle.layer.batch_norm(input=conv, act=paddle.activation.Relu())
    """
    name = base.layer_name(name, "batch_norm")
    (inp,) = base.as_layers(input, layer=name)
    use_global_stats = _bn_options(batch_norm_type, use_global_stats, layer=name)
    if img3D:  # statistics per channel over the batch and D*H*W, as for 2-D images
        c, d, h, w = input_volume(inp, num_channels, name=name)
        channels, image, depth = c, (c * d, h, w), {"out_depth": d}
    else:
        (channels, image), depth = _bn_channels(inp.spec, num_channels, layer=name), {}
    attrs = {
        "channels": channels,
        "image": image,
        "epsilon": _epsilon(epsilon, layer=name),
        "moving_average_fraction": base.number(
            moving_average_fraction, layer=name, arg="moving_average_fraction"
        ),
        "use_global_stats": use_global_stats,
        "mean_var_names": None if mean_var_names is None else tuple(mean_var_names),
        "batch_norm_type": batch_norm_type,
        "act": as_activation(Relu() if act is None else act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
        **depth,
    }
    gamma = (
        attrs_mod.ParamAttr(initial_mean=1.0, initial_std=0.0)
        if param_attr is None
        else attrs_mod.as_param_attr(param_attr, layer=name, arg="param_attr")
    )
    return base.build(
        "batch_norm",
        name=name,
        inputs=[inp],
        attrs=attrs,
        param_attrs=[gamma, *_mean_var_attrs(mean_var_names, layer=name)],
        bias=attrs_mod.bias_param_attr(bias_attr, default_on=True, layer=name),
    )


# sum_to_one_norm ---------------------------------------------------------------------
class SumToOneNormKind(Kind):
    name = "sum_to_one_norm"
    host = HostChecks(keeps_lengths=True)

    def infer_spec(self, inputs, attrs):
        (s,) = inputs
        base.expect(s)
        return Spec(s.size, seq_level=s.seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        x = data_of(inputs[0])
        total = jnp.sum(x, axis=-1, keepdims=True)
        if isinstance(inputs[0], Seq):  # padding steps: no 0/0
            total = jnp.where(step_mask(inputs[0])[..., None], total, 1.0)
        return with_data(inputs[0], x / total)


register_kind(SumToOneNormKind())


@base.layer_function
def sum_to_one_norm(
    input: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Scale each row to sum to one: ``out_i = x_i / sum_k x_k``.

    v2 requires positive sums (e.g. after a ``Sigmoid`` or ``Exp`` activation); a zero
    sum gives inf/nan.

    Args:
        input: a dense layer; of a sequence, each step is a row (as in v2).
        name: the layer name (default ``__sum_to_one_norm_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        A layer of the input's size.

    Example:
        >>> scores = paddle.layer.fc(input=x, size=10, act=paddle.activation.Exp())
        >>> p = paddle.layer.sum_to_one_norm(input=scores)
        >>> p.size
        10
    """
    name = base.layer_name(name, "sum_to_one_norm_layer")
    (inp,) = base.as_layers(input, layer=name)
    attrs = base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY)
    return base.build("sum_to_one_norm", name=name, inputs=[inp], attrs=attrs)
