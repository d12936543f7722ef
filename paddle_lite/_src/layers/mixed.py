"""The mixed layer: the sum of projections and operators, then bias and activation.

A projection maps one input layer to the mixed layer's width (``x W``, a table row,
a copy, ``x * w`` ...); an operator combines several inputs without parameters.
Projections are not layers: they are small immutable objects that only feed
``mixed``. The i-th projection's weight is the mixed layer's parameter ``w{i}``
(default name ``_<mixed name>.w{i}``, v2's ``___mixed_0__.w0``).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import jax.numpy as jnp

from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.activations import as_activation
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer, Spec
from paddle_lite._src.kinds import Kind, ParamDecl, register_kind
from paddle_lite._src.layers import _base
from paddle_lite._src.layers.core import project, same_seq_level
from paddle_lite._src.typing import Seq, data_of, with_data


class AddToSealedMixedLayerException(LayerConfigError):
    """``+=`` on a mixed layer whose inputs are already fixed (v2's exception name)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Projection:
    """One input of a mixed layer: its ``type``, input layer(s) and settings.

    ``size`` 0 means "the mixed layer's size"; ``param_attr`` is ``None`` for the
    parameterless types (identity, operators).
    """

    type: str
    inputs: tuple[Layer, ...]
    size: int = 0
    offset: int | None = None
    scale: float = 1.0
    param_attr: attrs_mod.ParamAttr | None = None

    @property
    def origin(self) -> Layer | list[Layer]:
        """v2's ``proj.origin``: the input layer (a list for operators)."""
        return list(self.inputs) if self.type == "dotmul_operator" else self.inputs[0]

    def to_attr(self, first_input: int) -> dict[str, Any]:
        """The plain-data description stored in the mixed layer's attributes."""
        item: dict[str, Any] = {
            "type": self.type,
            "inputs": tuple(range(first_input, first_input + len(self.inputs))),
            "size": self.size,
        }
        if self.offset is not None:
            item["offset"] = self.offset
        if self.type == "dotmul_operator":
            item["scale"] = self.scale
        return item


_DENSE_ONLY = ("identity", "identity_offset", "dotmul", "scaling", "dotmul_operator")


def _size_arg(value: Any, where: str) -> int:
    """A size >= 0 (0: inferred); ``where`` names the function or layer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayerTypeError(f"{where}: size must be an int; received {value!r}.")
    if value < 0:
        raise LayerConfigError(f"{where}: size must be >= 0 (0: inferred); received {value}.")
    return value


def _projection(fn: str, kind: str, input: Any, size: int, param_attr: Any) -> Projection:  # noqa: A002
    layer = _base.as_layer(input, layer=fn, arg="input")
    attr = attrs_mod.as_param_attr(param_attr, layer=fn, arg="param_attr")
    return Projection(kind, (layer,), _size_arg(size, f"{fn}()"), param_attr=attr)


# projections ----------------------------------------------------------------------
@_base.layer_function
def full_matrix_projection(input, size=0, param_attr=None):  # noqa: A002
    """``out += x W`` with ``W`` of shape ``[input.size, size]`` (dense or sparse ``x``).

    Args:
        input: a layer; size: output width (0: the mixed layer's); param_attr: for ``W``.

    Returns:
        A projection of width ``size`` for :func:`mixed`.

    Example::

        m = paddle.layer.mixed(size=8, input=[paddle.layer.full_matrix_projection(input=x)])
    """
    return _projection("full_matrix_projection", "full_matrix", input, size, param_attr)


@_base.layer_function
def trans_full_matrix_projection(input, size=0, param_attr=None):  # noqa: A002
    """``out += x Wᵀ`` with ``W`` of shape ``[size, input.size]`` (share it with a
    ``full_matrix_projection`` of the opposite direction through ``param_attr``).

    Args:
        input: a dense layer; size: output width (0: the mixed layer's); param_attr: for ``W``.

    Returns:
        A projection of width ``size`` for :func:`mixed`.

    Example::

        proj = paddle.layer.trans_full_matrix_projection(input=x, size=8)
    """
    return _projection("trans_full_matrix_projection", "trans_full_matrix", input, size, param_attr)


@_base.layer_function
def table_projection(input, size=0, param_attr=None):  # noqa: A002
    """``out += W[id]``: the row of the ``[vocab, size]`` table for each integer id.

    Args:
        input: an integer-id layer (``vocab = input.size``); size: row width (0: the mixed
            layer's); param_attr: for the table.

    Returns:
        A projection of width ``size`` for :func:`mixed`.

    Example::

        proj = paddle.layer.table_projection(input=word_ids, size=32)
    """
    return _projection("table_projection", "table", input, size, param_attr)


@_base.layer_function
def identity_projection(input, offset=None, size=None):  # noqa: A002
    """``out += x``, or with ``offset`` the slice ``x[offset : offset + size]``.

    ``size`` is ignored without ``offset`` and defaults to ``input.size - offset``.

    Returns:
        A parameterless projection of width ``input.size`` (or ``size``).

    Example::

        proj = paddle.layer.identity_projection(input=x, offset=2, size=3)
    """
    fn = "identity_projection"
    layer = _base.as_layer(input, layer=fn, arg="input")
    if offset is None:
        return Projection("identity", (layer,))
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LayerTypeError(f"{fn}(): offset must be an int >= 0; received {offset!r}.")
    width = layer.size - offset if size is None else _size_arg(size, f"{fn}()")
    if width <= 0 or offset + width > layer.size:
        raise LayerConfigError(
            f"{fn}(): the slice [{offset}, {offset + width}) does not fit the input "
            f"'{layer.name}' of size {layer.size}; expected 0 <= offset < offset + size <= "
            f"{layer.size}."
        )
    return Projection("identity_offset", (layer,), width, offset=offset)


@_base.layer_function
def dotmul_projection(input, param_attr=None):  # noqa: A002
    """``out += x ⊙ w`` with a learned ``w`` of shape ``[1, input.size]``.

    Returns:
        A projection of width ``input.size`` for :func:`mixed`.

    Example::

        proj = paddle.layer.dotmul_projection(input=x)
    """
    return _projection("dotmul_projection", "dotmul", input, 0, param_attr)


@_base.layer_function
def scaling_projection(input, param_attr=None):  # noqa: A002
    """``out += w x`` with one learned scalar ``w`` (shape ``[1, 1]``).

    Returns:
        A projection of width ``input.size`` for :func:`mixed`.

    Example::

        proj = paddle.layer.scaling_projection(input=x)
    """
    return _projection("scaling_projection", "scaling", input, 0, param_attr)


def dotmul_operator(a=None, b=None, scale=1, **kwargs):
    """``out += scale * (a ⊙ b)`` for two layers of equal size; no parameters.

    ``x=`` and ``y=`` are deprecated spellings of ``a=`` and ``b=``.

    Returns:
        An operator of width ``a.size`` for :func:`mixed`.

    Example::

        op = paddle.layer.dotmul_operator(a=x, b=y, scale=0.5)
    """
    fn = "dotmul_operator"
    unknown = sorted(set(kwargs) - {"x", "y"})
    if unknown:
        raise LayerTypeError(
            f"{fn}() got an unexpected keyword argument '{unknown[0]}'. "
            "Valid arguments: a, b, scale."
        )
    if kwargs:
        warnings.warn(
            f"{fn}: x and y are deprecated; use a and b.", DeprecationWarning, stacklevel=2
        )
    a, b = kwargs.get("x", a), kwargs.get("y", b)
    la = _base.as_layer(a, layer=fn, arg="a")
    lb = _base.as_layer(b, layer=fn, arg="b")
    if la.size != lb.size:
        raise LayerConfigError(
            f"{fn}(): a and b must have the same size; received "
            f"{la.size} ('{la.name}') and {lb.size} ('{lb.name}')."
        )
    value = _base.number(scale, layer=fn, arg="scale")
    return Projection("dotmul_operator", (la, lb), scale=value)


# the kind -------------------------------------------------------------------------
def _implied_size(item: dict[str, Any], specs: list[Spec]) -> int:
    """The output width a projection implies (0: none, take the mixed layer's)."""
    kind = item["type"]
    if kind in ("identity", "dotmul", "scaling", "dotmul_operator"):
        return specs[0].size
    return item["size"]


def _check_input(i: int, item: dict[str, Any], specs: list[Spec]) -> None:
    kind, dtypes = item["type"], {s.dtype for s in specs}
    if kind == "table" and dtypes != {"int32"}:
        raise LayerConfigError(
            f"projection {i} (table) needs integer ids; received {specs[0].dtype} values."
        )
    if kind in ("full_matrix", "trans_full_matrix") and "int32" in dtypes:
        raise LayerConfigError(
            f"projection {i} ({kind}) needs dense or sparse values; received "
            "integer ids. Use table_projection for ids."
        )
    if kind in _DENSE_ONLY and dtypes != {"float32"}:
        raise LayerConfigError(
            f"projection {i} ({kind}) needs dense values; received {sorted(dtypes)}."
        )
    if kind == "dotmul_operator" and specs[0].size != specs[1].size:
        raise LayerConfigError(
            f"projection {i} (dotmul_operator) needs equal sizes; received "
            f"{specs[0].size} and {specs[1].size}."
        )


def _item_sizes(inputs, attrs) -> list[int]:  # noqa: ANN001
    """Each projection's own output width (0 when it takes the layer's), checked."""
    sizes = []
    for i, item in enumerate(attrs["projections"]):
        specs = [inputs[j] for j in item["inputs"]]
        _check_input(i, item, specs)
        sizes.append(_implied_size(item, specs))
    return sizes


def mixed_size(inputs, attrs) -> int:  # noqa: ANN001
    """The layer's width: for a sum, ``attrs["size"]`` or the one its projections agree
    on; for a concatenation (``attrs["combine"] == "concat"``), the sum of their widths."""
    sizes = _item_sizes(inputs, attrs)
    if attrs.get("combine") == "concat":
        missing = [i for i, n in enumerate(sizes) if not n]
        if missing:
            raise LayerConfigError(
                f"projections {missing} of a concat have no size; pass size= to each."
            )
        return sum(sizes)
    size = attrs["size"]
    for i, (item, implied) in enumerate(zip(attrs["projections"], sizes, strict=True)):
        if implied and size and implied != size:
            raise LayerConfigError(
                f"projection {i} ({item['type']}) has output size {implied}, but the layer size "
                f"is {size}; all projections and operators must agree."
            )
        size = size or implied
    if not size:
        raise LayerConfigError(
            "size is not set and no projection implies one; pass "
            "mixed(size=...) or a projection size."
        )
    return size


def _weight_shape(item: dict[str, Any], in_size: int, size: int) -> tuple[int, int] | None:
    return {
        "full_matrix": (in_size, size),
        "trans_full_matrix": (size, in_size),
        "table": (in_size, size),
        "dotmul": (1, size),
        "scaling": (1, 1),
    }.get(item["type"])


def _term(item: dict[str, Any], w: Any, xs: list[Any]) -> Any:
    kind = item["type"]
    if kind == "full_matrix":
        return project(xs[0], w)
    if kind == "trans_full_matrix":
        return project(xs[0], w.T)
    if kind == "table":
        return w[data_of(xs[0])]
    x = data_of(xs[0])
    if kind == "identity":
        return x
    if kind == "identity_offset":
        return x[..., item["offset"] : item["offset"] + item["size"]]
    if kind == "dotmul":
        return x * w[0]
    if kind == "scaling":
        return x * w[0, 0]
    return item["scale"] * x * data_of(xs[1])


class MixedKind(Kind):
    name = "mixed"

    def infer_spec(self, inputs, attrs):
        level = same_seq_level(inputs, "mixed inputs")
        return Spec(mixed_size(inputs, attrs), seq_level=level)

    def param_specs(self, inputs, attrs):
        size = mixed_size(inputs, attrs)
        concat = attrs.get("combine") == "concat"
        widths = _item_sizes(inputs, attrs) if concat else None
        decls = []
        for i, item in enumerate(attrs["projections"]):
            width = widths[i] if concat else size
            shape = _weight_shape(item, inputs[item["inputs"][0]].size, width)
            if shape is not None:
                decls.append(ParamDecl(f"w{i}", shape, ("param", i), attrs_mod.SMART))
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, size), ("bias",), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        if attrs.get("open"):
            raise LayerConfigError("a mixed layer is computed before its `with` block ended.")
        terms = [
            _term(item, params.get(f"w{i}"), [inputs[j] for j in item["inputs"]])
            for i, item in enumerate(attrs["projections"])
        ]
        if attrs.get("combine") == "concat":
            out = jnp.concatenate(terms, axis=-1)
        else:
            out = sum(terms[1:], terms[0])
        if attrs["bias"]:
            out = out + params["wbias"][0]
        seq = next((x for x in inputs if isinstance(x, Seq)), None)
        return with_data(seq, out) if seq is not None else out


register_kind(MixedKind())


class MixedLayer(Layer):
    """A mixed layer; open (taking ``+=``) until its ``with`` block ends, then sealed."""

    __slots__ = ("_pending", "_config")

    def __init__(self, name: str, config: dict[str, Any]) -> None:
        attrs = {"open": True, "size": config["size"], "projections": ()}
        super().__init__(name, "mixed", (), attrs, Spec(config["size"]))
        object.__setattr__(self, "_pending", [])
        object.__setattr__(self, "_config", config)

    def __iadd__(self, other: Any) -> MixedLayer:
        if not self.attrs.get("open"):
            raise AddToSealedMixedLayerException(
                f"layer '{self.name}': cannot add {other!r} to a mixed layer whose inputs are "
                "sealed (its `with` block ended or it was built with input=); use "
                f"`{self.name} + other` for a new layer."
            )
        if not isinstance(other, Projection):
            raise LayerTypeError(
                f"layer '{self.name}': mixed inputs must be projections or operators; received "
                f"{other!r}. Wrap a layer in paddle.layer.identity_projection(input=...) or "
                "full_matrix_projection(input=...)."
            )
        self._pending.append(other)
        return self

    def __enter__(self) -> MixedLayer:
        if not self.attrs.get("open") or self._pending:
            raise AddToSealedMixedLayerException(
                f"layer '{self.name}': a `with` block needs a fresh mixed layer built "
                "without input=."
            )
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        if exc_type is None:
            self._seal()
        return False

    def _seal(self) -> None:
        if not self._pending:
            raise LayerConfigError(
                f"layer '{self.name}' (mixed): no projection or operator was "
                "added; add at least one with `+=` or input=[...]."
            )
        inputs: list[Layer] = []
        items = []
        for proj in self._pending:
            items.append(proj.to_attr(len(inputs)))
            inputs.extend(proj.inputs)
        cfg = self._config
        attrs = {
            "size": cfg["size"],
            "projections": tuple(items),
            "act": cfg["act"],
            **cfg["extra"],
        }
        if cfg.get("combine"):
            attrs["combine"] = cfg["combine"]
        node = _base.build(
            "mixed",
            name=self.name,
            inputs=inputs,
            attrs=attrs,
            param_attrs=[p.param_attr or attrs_mod.ParamAttr() for p in self._pending],
            bias=cfg["bias"],
        )
        self._init(node.name, node.kind, node.inputs, node.attrs, node.spec, node.params)


@_base.layer_function
def mixed(size=0, input=None, name=None, act=None, bias_attr=False, layer_attr=None):  # noqa: A002
    """The sum of projections and operators: ``act(sum_i proj_i(x_i) + b)``.

    Either pass ``input=[proj, ...]``, or fill it in a ``with`` block::

        with paddle.layer.mixed(size=8) as m:
            m += paddle.layer.full_matrix_projection(input=x)
            m += paddle.layer.identity_projection(input=y)

    After the block ``m`` is an ordinary layer; ``+=`` on it raises
    ``AddToSealedMixedLayerException``.

    Args:
        size: output width; 0 infers it from the projections (all must agree).
        input: a projection/operator or a list of them; None for the ``with`` form.
        act: activation (default ``Linear``).
        bias_attr: ``False`` (default) no bias; ``True`` or a ``Param`` adds one.
        layer_attr: ``Extra(drop_rate=..., error_clipping_threshold=...)``.

    Returns:
        A layer of size ``size`` (or the inferred size); projection ``i`` owns the
        weight ``_<name>.w{i}``, the bias is ``_<name>.wbias`` ``[1, size]``.

    Example::

        m = paddle.layer.mixed(input=[paddle.layer.dotmul_operator(a=x, b=y)])
    """
    name = _base.layer_name(name, "mixed")
    config = {
        "size": _size_arg(size, f"layer '{name}'"),
        "act": as_activation(act, layer=name),
        "bias": attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name),
        "extra": _base.extra_fields(layer_attr, layer=name, supported=_base.DROP_AND_CLIP),
    }
    layer = MixedLayer(name, config)
    if input is None:
        return layer
    for item in input if isinstance(input, (list, tuple)) else [input]:
        layer += item
    layer._seal()
    return layer


def concat_projections(
    projections: list[Projection], *, name: str, act: Any, layer_attr: Any, bias_attr: Any
) -> Layer:
    """v2's concat of projections: each projection's output side by side.

    Projection ``i`` owns ``_<name>.w{i}`` shaped for its own ``size``.
    """
    config = {
        "size": 0,
        "act": as_activation(act, layer=name),
        "bias": attrs_mod.bias_param_attr(bias_attr, default_on=False, layer=name),
        "extra": _base.extra_fields(layer_attr, layer=name, supported=_base.DROP_AND_CLIP),
        "combine": "concat",
    }
    layer = MixedLayer(name, config)
    for item in projections:
        layer += item
    layer._seal()
    return layer
