"""Layer nodes and automatic naming.

A layer is an immutable node: its kind, input nodes, static attributes, the spec
of its output and the specs of the parameters it owns (see ``specs``). Its name and
its parameter names are fixed when it is created.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from paddle_lite._src.errors import LayerConfigError
from paddle_lite._src.specs import ParamSpec, Spec


class NameScope:
    """Per-prefix counters that produce v2 auto names ``__<prefix>_<n>__``."""

    def __init__(self) -> None:
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()
        self.evaluators: list[Any] = []  # evaluators declared in this scope (v2 globals)
        self.layers: weakref.WeakValueDictionary[str, Layer] = weakref.WeakValueDictionary()
        self.submodels: list[Any] = []  # recurrent-group steps being defined, innermost last

    def next_name(self, prefix: str) -> str:
        with self._lock:
            n = self._counters.get(prefix, 0)
            self._counters[prefix] = n + 1
        return f"__{prefix}_{n}__"

    def reset(self) -> None:
        with self._lock:
            self._counters.clear()
            self.evaluators.clear()
            self.layers.clear()


_scope_stack: list[NameScope] = [NameScope()]
_serials = itertools.count()


def next_serial() -> int:
    """A new creation serial. Layers take theirs when built; a printer, which is no layer,
    takes one to keep its place among them in the ModelConfig (``Topology.proto``)."""
    return next(_serials)


def auto_name(prefix: str) -> str:
    """The next automatic layer name for ``prefix`` in the current scope."""
    return _scope_stack[-1].next_name(prefix)


def current_scope() -> NameScope:
    """The naming scope layers and evaluators are declared in now."""
    return _scope_stack[-1]


def reset_names() -> None:
    """Restart every automatic-name counter of the current scope at 0.

    Call it before rebuilding a model in the same process to get the same layer
    and parameter names again.
    """
    _scope_stack[-1].reset()


@contextlib.contextmanager
def name_scope() -> Iterator[NameScope]:
    """A fresh set of name counters for the layers built inside the block.

    Example:
        >>> with paddle.layer.name_scope():
        ...     a = paddle.layer.fc(input=x, size=2)   # __fc_layer_0__
    """
    scope = NameScope()
    _scope_stack.append(scope)
    try:
        yield scope
    finally:
        _scope_stack.pop()


def current_submodel() -> Any:
    """The innermost recurrent-group step being defined now, or None."""
    models = _scope_stack[-1].submodels
    return models[-1] if models else None


@contextlib.contextmanager
def submodel(model: Any) -> Iterator[Any]:
    """Define layers inside ``model``, a recurrent group's step (v2 sub-model).

    ``model`` has a ``name`` and a ``layers`` list: every layer created inside the
    block is appended to it, and ``qualified_name`` gives ``<name>@<model.name>``.
    """
    scope = _scope_stack[-1]
    scope.submodels.append(model)
    try:
        yield model
    finally:
        scope.submodels.pop()


def qualified_name(name: str) -> str:
    """v2's full name: ``name@<group>`` inside a recurrent group's step, else ``name``."""
    model = current_submodel()
    if model is None or name.endswith("@" + model.name):
        return name
    return f"{name}@{model.name}"


def freeze(attrs: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a fresh copy of ``attrs``."""
    return MappingProxyType(dict(attrs))


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_site() -> str:
    """``file:line`` of the innermost caller outside paddle_lite (empty if none)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return ""
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class Layer:
    """What every layer function returns: an immutable node of the network (v2
    ``LayerOutput``).

    A program reads ``name`` (``__<prefix>_<n>__`` when none was given), ``size`` (the
    output width per sample, ``C*H*W`` for an image), ``num_filters``, ``height`` and
    ``width`` (of an image output, else None), ``activation``, ``parents`` (the input
    layers), ``layer_type`` (``"fc"``, ``"img_conv"`` ...) and ``data_type`` (the
    ``InputType`` of a data layer). ``+``, ``-`` and ``*`` combine layers (see
    ``paddle.op``).
    """

    # name; kind: the registered kind that computes it; inputs: the input nodes; attrs:
    # static attributes, read-only; spec: what it produces per sample; params: the
    # ParamSpecs it owns, in declaration order; serial: creation order (v2 lists data
    # layers in definition order); where: ``file:line`` of the user code that created it
    __slots__ = (
        "name",
        "kind",
        "inputs",
        "attrs",
        "spec",
        "params",
        "serial",
        "where",
        "__weakref__",
    )

    name: str
    kind: str
    inputs: tuple[Layer, ...]
    attrs: Mapping[str, Any]
    spec: Spec
    params: tuple[ParamSpec, ...]
    serial: int
    where: str

    def __init__(
        self,
        name: str,
        kind: str,
        inputs: tuple[Layer, ...],
        attrs: Mapping[str, Any],
        spec: Spec,
        params: tuple[ParamSpec, ...] = (),
    ) -> None:
        self._init(name, kind, inputs, attrs, spec, params)

    def _init(self, name, kind, inputs, attrs, spec, params) -> None:
        for field, value in (
            ("name", name),
            ("kind", kind),
            ("inputs", tuple(inputs)),
            ("attrs", freeze(attrs)),
            ("spec", spec),
            ("params", tuple(params)),
            ("serial", next(_serials)),
            ("where", _user_site()),
        ):
            object.__setattr__(self, field, value)
        current_scope().layers[name] = self
        model = current_submodel()
        if model is not None:
            model.layers.append(self)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"layer '{self.name}' is immutable; cannot set '{key}'.")

    def __repr__(self) -> str:
        return f"<Layer {self.name!r} kind={self.kind} size={self.spec.size}>"

    # v2 LayerOutput attributes -------------------------------------------------
    @property
    def full_name(self) -> str:
        """The layer's name (v2 ``full_name``)."""
        return self.name

    @property
    def layer_type(self) -> str:
        """The layer's kind, such as ``"fc"`` (v2 ``layer_type``)."""
        return self.kind

    @property
    def parents(self) -> list[Layer]:
        """The input layers, in order."""
        return list(self.inputs)

    @property
    def size(self) -> int:
        """The output width per sample (``C*H*W`` for an image)."""
        return self.spec.size

    @property
    def activation(self) -> Any:
        """The output activation (recurrent layers keep theirs as ``cell_act``)."""
        return self.attrs.get("act", self.attrs.get("cell_act"))

    @property
    def num_filters(self) -> int | None:
        """The channels of an image output, else None."""
        return self.spec.image[0] if self.spec.image else None

    @property
    def height(self) -> int | None:
        """The height of an image output, else None."""
        return self.spec.image[1] if self.spec.image else None

    @property
    def width(self) -> int | None:
        """The width of an image output, else None."""
        return self.spec.image[2] if self.spec.image else None

    @property
    def depth(self) -> int | None:
        """1 for an image output (paddle_lite images are 2-D), else None."""
        return 1 if self.spec.image else None

    @property
    def reverse(self) -> bool:
        """True for a recurrent layer that runs backwards in time."""
        return bool(self.attrs.get("reverse", False))

    @property
    def outputs(self) -> list[str]:
        """v2's output names of the layer: ``["default"]``."""
        return ["default"]

    @property
    def data_type(self) -> Any:
        """The ``InputType`` of a data layer, else None."""
        return self.attrs.get("type")

    # arithmetic on layers (v2 layer_math) ---------------------------------------
    def __add__(self, other: Any) -> Layer:
        return _operator("add")(self, other)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Layer:
        return _operator("sub")(self, other)

    def __rsub__(self, other: Any) -> Layer:
        return _operator("add")(_operator("neg")(self), other)

    def __neg__(self) -> Layer:
        return _operator("neg")(self)

    def __mul__(self, other: Any) -> Layer:
        return _operator("mul")(self, other)

    __rmul__ = __mul__


# Operators on layers (``a + b``, ``2 * a``) build layers, which live above this module;
# the layer package registers their implementations here when it is imported.
_OPERATORS: dict[str, Callable[..., Layer]] = {}
OPERATOR_NAMES = ("add", "sub", "neg", "mul")


def register_operators(**ops: Callable[..., Layer]) -> None:
    """Install the implementations of ``+``, ``-`` (binary and unary) and ``*`` on layers.

    Args:
        **ops: ``add(a, b)``, ``sub(a, b)``, ``neg(a)`` and ``mul(a, b)``, each returning
            a new layer (``paddle_lite._src.layers.arith`` provides them).

    Example:
        >>> register_operators(add=arith.add, sub=arith.sub, neg=arith.neg, mul=arith.mul)
    """
    unknown = sorted(set(ops) - set(OPERATOR_NAMES))
    if unknown:
        raise LayerConfigError(
            f"register_operators: unknown operators {unknown}; expected {list(OPERATOR_NAMES)}."
        )
    _OPERATORS.update(ops)


def _operator(name: str) -> Callable[..., Layer]:
    try:
        return _OPERATORS[name]
    except KeyError:
        raise LayerConfigError(
            f"arithmetic on layers ('{name}') is not available: the layer package has not "
            "been imported; import paddle_lite (or paddle_lite.layer) first."
        ) from None
