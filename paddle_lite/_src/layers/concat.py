"""``concat``: features side by side, of layers or of projections (then a mixed layer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from paddle_lite._src.activations import BaseActivation, as_activation
from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import HostChecks, Kind, V2Layer, register_kind
from paddle_lite._src.layers import base, mixed
from paddle_lite._src.layers.projections import Projection
from paddle_lite._src.proto import rebuild
from paddle_lite._src.proto.model_config import Msg
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data


def _from_v2(cfg: Msg, ins: list[Layer]) -> Layer:
    return concat(input=ins, name=cfg["name"], act=rebuild.act(cfg))


class ConcatKind(Kind):
    name = "concat"
    per_row = True
    host = HostChecks(keeps_lengths=True, aligns_rows=True)
    v2 = V2Layer(rebuild=_from_v2)

    def infer_spec(self, inputs, attrs):
        base.expect(inputs)
        level = base.same_seq_level(inputs, "concat inputs")
        size = sum(s.size for s in inputs)
        images = [s.image for s in inputs]
        image = None
        if all(images) and len({im[1:] for im in images}) == 1:
            image = (sum(im[0] for im in images), *images[0][1:])
        return Spec(size, seq_level=level, image=image)

    def apply(self, params, inputs, attrs, *, key, mode):
        out = jnp.concatenate([data_of(x) for x in inputs], axis=-1)
        return with_data(inputs[0], out)


register_kind(ConcatKind())


@base.layer_function
def concat(
    input: Sequence[Layer] | Sequence[Projection],
    act: BaseActivation | None = None,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
    bias_attr: ParamAttr | bool | None = None,
) -> Layer:
    """Concatenate features side by side: ``act([x_1, x_2, ..., x_n])``.

    The inputs are all layers, or all projections (v2's concat of projections:
    ``act([p_1(x_1), ..., p_n(x_n)] + b)``, each projection with its own width and
    weight). Images of equal height and width concatenate along their channels.

    Args:
        input: a list of layers (dense, of one sequence level), or a list of
            projections, each with its width set (``size=`` where it has one).
        act: activation (default ``Linear``; v2's ``Identity``).
        name: the layer name (default ``__concat_<n>__``).
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.
        bias_attr: projections only: ``True`` or a ``Param`` adds a bias of the output
            size; ``None``/``False`` (default) none. Layers take no bias.

    Returns:
        A layer whose size is the sum of the input (or projection) sizes; an image
        ``(sum of channels, H, W)`` when the inputs are images of one ``H, W``.
        Projection ``i`` owns ``_<name>.w{i}``, the bias is ``_<name>.wbias``.

    Example:
        >>> xy = paddle.layer.concat(input=[x, y])
        >>> xy.size
        16
        >>> both = paddle.layer.concat(input=[
        ...     paddle.layer.full_matrix_projection(input=x, size=4),
        ...     paddle.layer.identity_projection(input=y)], bias_attr=True)
        >>> both.size
        12
    """
    name = base.layer_name(name, "concat")
    items = input if isinstance(input, (list, tuple)) else [input]
    if items and all(_is_projection(item) for item in items):
        return mixed.concat_projections(
            list(items), name=name, act=act, layer_attr=layer_attr, bias_attr=bias_attr
        )
    inputs = base.as_layers(input, layer=name)
    if bias_attr not in (None, False):
        raise LayerConfigError(f"layer '{name}': concat of layers takes no bias_attr.")
    attrs = {
        "act": as_activation(act, layer=name),
        **base.extra_fields(layer_attr, layer=name, supported=base.DROP_AND_CLIP),
    }
    return base.build("concat", name=name, inputs=inputs, attrs=attrs)


def _is_projection(item: Any) -> bool:
    return hasattr(item, "to_attr") and hasattr(item, "param_attr")
