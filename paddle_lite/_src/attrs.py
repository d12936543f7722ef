"""Parameter and layer attributes (v2 ``paddle.attr``).

``ParamAttr`` says how a parameter is named, initialised and updated;
``ExtraAttr`` adds per-layer extras (dropout, error clipping, device).
"""

from __future__ import annotations

import copy
import math
import numbers
from typing import Any

import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerTypeError, ParameterError
from paddle_lite._src.initializers import Initializer, lookup
from paddle_lite._src.specs import InitSpec, ParamSpec, Shape


def _unset_if_zero(value: float | None) -> float | None:
    """v2 treats 0 for l1/l2/momentum as unset: the optimizer's global value applies."""
    return None if value is None or value == 0 else float(value)


def _check_param_attr(name, initial_max, initial_min, initializer, sharding) -> None:
    """ParamAttr's argument checks (typed errors naming the argument)."""
    if name is not None and (not isinstance(name, str) or not name):
        raise LayerTypeError(f"ParamAttr name must be a non-empty str; received {name!r}.")
    if (initial_max is None) != (initial_min is None):
        raise LayerConfigError("ParamAttr: initial_max and initial_min must be given together.")
    if initial_max is not None and not initial_min < initial_max:
        raise LayerConfigError(
            f"ParamAttr: initial_min must be < initial_max; received "
            f"min={initial_min}, max={initial_max}."
        )
    if initializer is not None and not (callable(initializer) or isinstance(initializer, str)):
        raise LayerTypeError(
            "ParamAttr initializer must be callable(name) -> ndarray, an Initializer or a "
            f"registered initializer name; received {initializer!r}."
        )
    if isinstance(initializer, str):
        lookup(initializer)
    if sharding not in (None, "rows"):
        raise LayerConfigError(f"ParamAttr sharding must be None or 'rows'; received {sharding!r}.")


class ParamAttr:
    """How one parameter is named, initialised and updated.

    Args:
        name: the parameter's name; layers giving the same name share it.
        is_static: never updated by training.
        initial_std, initial_mean: Gaussian init (``initial_strategy`` 0).
        initial_max, initial_min: uniform init in ``[min, max]`` (strategy 1).
        l1_rate, l2_rate: per-parameter regularisation (0 or None: global value).
        learning_rate: multiplier on the global learning rate.
        momentum: per-parameter momentum (0 or None: global value).
        gradient_clipping_threshold: per-parameter elementwise gradient clip.
        sparse_update: update only the rows touched by a batch.
        sharding: ``"rows"`` to split a 2-D parameter (an embedding table) by rows over
            the devices of ``paddle.init(trainer_count=...)`` instead of copying it to
            each, so a table larger than one device's memory trains.
        update_hooks: a ``HookAttr`` or list of them.
        initializer: ``callable(name) -> ndarray``, an ``Initializer`` object, or
            the name of a registered initializer.

    With none of the four ``initial_*`` set and no ``initializer``, v2's "smart" init
    applies: Gaussian with mean 0 and std ``1/sqrt(shape[0])``.
    """

    def __init__(
        self,
        name: str | None = None,
        is_static: bool = False,
        initial_std: float | None = None,
        initial_mean: float | None = None,
        initial_max: float | None = None,
        initial_min: float | None = None,
        l1_rate: float | None = None,
        l2_rate: float | None = None,
        learning_rate: float | None = None,
        momentum: float | None = None,
        gradient_clipping_threshold: float | None = None,
        sparse_update: bool = False,
        update_hooks: Any = None,
        initializer: Any = None,
        sharding: str | None = None,
    ) -> None:
        _check_param_attr(name, initial_max, initial_min, initializer, sharding)
        self.name = name
        self.is_static = bool(is_static)
        self.initial_std = initial_std
        self.initial_mean = initial_mean
        self.initial_max = initial_max
        self.initial_min = initial_min
        self.l1_rate = l1_rate
        self.l2_rate = l2_rate
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.gradient_clipping_threshold = gradient_clipping_threshold
        self.sparse_update = bool(sparse_update)
        self.update_hooks = _hooks(update_hooks)
        self.initializer = initializer
        self.sharding = sharding

    def __repr__(self) -> str:
        set_fields = {k: v for k, v in vars(self).items() if v not in (None, False)}
        args = ", ".join(f"{k}={v!r}" for k, v in set_fields.items())
        return f"ParamAttr({args})"

    def set_default_parameter_name(self, name: str) -> None:
        """Name the parameter ``name`` unless it already has a name."""
        if self.name is None:
            self.name = name

    def init_spec(self, default: InitSpec) -> InitSpec:
        """The init this attribute asks for, or ``default`` when it asks for none."""
        if self.initial_max is not None:
            mean = (self.initial_max + self.initial_min) / 2.0
            return InitSpec("uniform", mean, mean - self.initial_min)
        if self.initial_std is not None or self.initial_mean is not None:
            std = 0.01 if self.initial_std is None else float(self.initial_std)
            return InitSpec("gaussian", float(self.initial_mean or 0.0), std)
        if isinstance(self.initializer, Initializer):
            return self.initializer.to_init_spec()
        if isinstance(self.initializer, str):
            return InitSpec(strategy=self.initializer)
        if self.initializer is not None:
            return InitSpec(strategy="callable", fn=self.initializer)
        return default

    def to_spec(
        self, name: str, shape: Shape, default: InitSpec, owner: str, role: str
    ) -> ParamSpec:
        """Resolve into the ``ParamSpec`` of a parameter of ``shape``."""
        static = self.is_static
        init = self.init_spec(default)
        if init.smart:
            init = smart_init(shape)
        return ParamSpec(
            name=self.name or name,
            shape=tuple(shape),
            init=init,
            learning_rate=1.0
            if self.learning_rate is None or static
            else float(self.learning_rate),
            momentum=None if static else _unset_if_zero(self.momentum),
            decay_rate=None if static else _unset_if_zero(self.l2_rate),
            decay_rate_l1=None if static else _unset_if_zero(self.l1_rate),
            gradient_clipping_threshold=_unset_if_zero(self.gradient_clipping_threshold),
            is_static=static,
            sparse_update=self.sparse_update,
            sparsity_ratio=_sparsity(self.update_hooks),
            sharding=self.sharding,
            owner=owner,
            role=role,
        )


def _hooks(update_hooks: Any) -> list[HookAttr]:
    hooks = [] if update_hooks is None else update_hooks
    hooks = list(hooks) if isinstance(hooks, (list, tuple)) else [hooks]
    for hook in hooks:
        if not isinstance(hook, HookAttr):
            raise LayerTypeError(
                f"ParamAttr update_hooks must be paddle.attr.Hook objects; received {hook!r}."
            )
    return hooks


def _sparsity(hooks: list[HookAttr]) -> float | None:
    """The pruning ratio of the hooks (v2's default 0.6 when the hook sets none)."""
    for hook in hooks:
        return 0.6 if hook.sparsity_ratio is None else float(hook.sparsity_ratio)
    return None


def smart_init(shape: Shape) -> InitSpec:
    """v2's ``initial_smart``: N(0, 1/sqrt(shape[0]))."""
    fan = shape[0] if shape else 1
    return InitSpec("gaussian", 0.0, 1.0 / math.sqrt(fan), smart=True)


SMART = InitSpec("gaussian", 0.0, 0.0, smart=True)  # resolved per shape by ParamAttr.to_spec
ZERO = InitSpec("gaussian", 0.0, 0.0)


def as_param_attr(attr: Any, *, layer: str, arg: str) -> ParamAttr:
    """``None`` gives a fresh default; a ``ParamAttr`` is copied; anything else is refused."""
    if attr is None:
        return ParamAttr()
    if isinstance(attr, ParamAttr):
        return copy.copy(attr)
    raise LayerTypeError(
        f"layer '{layer}': {arg} must be a paddle.attr.Param; received {attr!r} of type "
        f"{type(attr).__name__}."
    )


def whole(value: Any) -> int | None:
    """``value`` as an int where it is a whole number: an int, a numpy integer, or a float
    without a fraction, which is what Python 3 makes of a v2 program's Python 2 division
    (``padding=(filter_size - 1) / 2`` is ``1.0``); None for anything else (a bool too)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return None


def flag(value: Any, *, layer: str, arg: str, allow_none: bool = False) -> bool | None:
    """A boolean argument as v2 took it: ``bool``, a numpy bool or an integer (``0``/``1``).

    v2 stored these in protobuf ``bool`` fields, which take any integer (``reverse=i % 2``
    builds a reversed layer for odd ``i``); floats, strings and other objects are refused.
    ``None`` passes through when ``allow_none``.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_, numbers.Integral)):
        return bool(value)
    expected = "None, a bool or 0/1" if allow_none else "a bool or 0/1"
    raise LayerTypeError(
        f"layer '{layer}': {arg} must be {expected}; received {value!r} of type "
        f"{type(value).__name__}."
    )


def switch(value: Any) -> Any:
    """An on/off attribute (``bias_attr``, ``padding_attr``) as v2 read it, comparing
    ``value == True``: bools, numpy bools and integers become ``value == 1``; anything else
    (``None``, a ``ParamAttr``) is returned unchanged."""
    if isinstance(value, (bool, np.bool_, numbers.Integral)):
        return bool(value == 1)
    return value


def bias_param_attr(bias_attr: Any, *, default_on: bool, layer: str) -> ParamAttr | None:
    """v2's bias rules: which ``bias_attr`` values give a bias, and its attribute.

    For layers with a bias by default, ``None``/``True`` give a zero bias and ``False``
    none; for the others only ``True`` or a ``ParamAttr`` add one. As in v2 (which
    compared ``bias_attr == True``), ``1`` and numpy bools count as bools.
    """
    if isinstance(bias_attr, ParamAttr):
        return copy.copy(bias_attr)
    bias_attr = switch(bias_attr)
    if bias_attr is True or (bias_attr is None and default_on):
        return ParamAttr(initial_mean=0.0, initial_std=0.0)
    if bias_attr is None or bias_attr is False:
        return None
    raise LayerTypeError(
        f"layer '{layer}': bias_attr must be None, a bool or a paddle.attr.Param; "
        f"received {bias_attr!r}."
    )


class ExtraAttr:
    """Per-layer extras: ``drop_rate`` (dropout), ``error_clipping_threshold``, ``device``."""

    FIELDS = ("error_clipping_threshold", "drop_rate", "device")

    def __init__(
        self,
        error_clipping_threshold: float | None = None,
        drop_rate: float | None = None,
        device: int | None = None,
    ) -> None:
        for field, value in (
            ("error_clipping_threshold", error_clipping_threshold),
            ("drop_rate", drop_rate),
        ):
            if value is not None and value < 0:
                raise ValueError(f"ExtraAttr {field} must be >= 0; received {value}.")
        if drop_rate is not None and drop_rate >= 1:
            raise ValueError(f"ExtraAttr drop_rate must be < 1; received {drop_rate}.")
        self.error_clipping_threshold = error_clipping_threshold
        self.drop_rate = drop_rate
        self.device = device

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.set_fields().items())
        return f"ExtraAttr({args})"

    def set_fields(self) -> dict[str, Any]:
        """The fields that were given (not None), by name."""
        return {k: v for k, v in vars(self).items() if v is not None}


class HookAttr:
    """A parameter update hook; v2 knows ``type='pruning'`` with ``sparsity_ratio``:
    when training starts, that fraction of the parameter's values (the smallest in
    magnitude; default 0.6) is set to zero and kept there after every update."""

    def __init__(self, type: str = "pruning", sparsity_ratio: float | None = None) -> None:
        if type != "pruning":
            raise ParameterError(f"HookAttr type must be 'pruning'; received {type!r}.")
        if sparsity_ratio is not None and not 0.0 <= sparsity_ratio <= 1.0:
            raise ParameterError(
                f"HookAttr sparsity_ratio must be in [0, 1]; received {sparsity_ratio}."
            )
        self.type = type
        self.sparsity_ratio = sparsity_ratio

    def __repr__(self) -> str:
        return f"HookAttr(type={self.type!r}, sparsity_ratio={self.sparsity_ratio!r})"


def to_bias(attr: Any) -> Any:
    """v2's ``attr.to_bias``: a bool/ParamAttr/None passes through as a bias attribute."""
    return attr
