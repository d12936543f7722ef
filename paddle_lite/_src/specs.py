"""Output and parameter specs: what a layer produces per sample and the parameters it owns.

``Spec`` describes a layer's output, ``ParamSpec`` one parameter (its global name, shape,
initialisation and update settings) and ``InitSpec`` how that parameter starts. Each is a
frozen dataclass with a JSON round trip (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from paddle_lite._src.errors import LayerConfigError

Shape = tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a layer produces per sample.

    ``size`` is the flat feature width, ``dtype`` ``"float32"`` or ``"int32"``,
    ``seq_level`` 0 (plain), 1 (sequence) or 2 (nested sequence) and ``image``
    the ``(channels, height, width)`` of an image output (``size == C*H*W``).
    """

    size: int
    dtype: str = "float32"
    seq_level: int = 0
    image: tuple[int, int, int] | None = None

    def __post_init__(self) -> None:
        if self.image is not None:
            c, h, w = self.image
            if c * h * w != self.size:
                raise LayerConfigError(
                    f"image shape {self.image} has {c * h * w} values but size is {self.size}."
                )

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "dtype": self.dtype,
            "seq_level": self.seq_level,
            "image": list(self.image) if self.image else None,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Spec:
        image = tuple(obj["image"]) if obj.get("image") else None
        return cls(obj["size"], obj["dtype"], obj["seq_level"], image)


@dataclasses.dataclass(frozen=True)
class InitSpec:
    """How a parameter is initialised.

    ``strategy`` is ``"gaussian"`` (``mean``, ``std``), ``"uniform"``
    (``[mean - std, mean + std]``, v2's storage of min/max), the name of a
    registered initializer (``kwargs`` passed to it), or ``"callable"`` (``fn`` is
    v2's ``initializer=callable(name) -> ndarray``). ``smart`` marks v2's default
    fan-in Gaussian (kept for the ``ParameterConfig`` round trip).
    """

    strategy: str = "gaussian"
    mean: float = 0.0
    std: float = 0.0
    smart: bool = False
    kwargs: tuple[tuple[str, Any], ...] = ()
    fn: Any = dataclasses.field(default=None, compare=False)

    def __repr__(self) -> str:
        """v2's words: ``ParamAttr(initial_mean=0, initial_std=0.01)`` and the like."""
        if self.strategy == "callable":
            return f"ParamAttr(initializer={getattr(self.fn, '__name__', repr(self.fn))})"
        if self.smart:
            return "ParamAttr() (v2's default: gaussian with std 1/sqrt(fan_in))"
        if self.kwargs or self.strategy not in ("gaussian", "uniform"):
            args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs)
            return f"ParamAttr(initializer=paddle.initializer.{self.strategy}({args}))"
        if self.strategy == "uniform":
            low, high = self.mean - self.std, self.mean + self.std
            return f"ParamAttr(initial_min={low:g}, initial_max={high:g})"
        return f"ParamAttr(initial_mean={self.mean:g}, initial_std={self.std:g})"

    __str__ = __repr__

    def describe(self) -> str:
        if self.strategy == "callable":
            return f"callable {getattr(self.fn, '__name__', repr(self.fn))}"
        if self.strategy in ("gaussian", "uniform") and not self.kwargs:
            return f"{self.strategy}(mean={self.mean:g}, std={self.std:g})"
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs)
        return f"{self.strategy}({args})"

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "mean": self.mean,
            "std": self.std,
            "smart": self.smart,
            "kwargs": [[k, v] for k, v in self.kwargs],
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> InitSpec:
        kwargs = tuple((k, v) for k, v in obj.get("kwargs", ()))
        return cls(obj["strategy"], obj["mean"], obj["std"], obj["smart"], kwargs)


@dataclasses.dataclass(frozen=True)
class ParamSpec:
    """A parameter a layer owns: its global name, shape, init and update settings.

    ``None`` for ``momentum``, ``decay_rate``, ``decay_rate_l1`` and
    ``gradient_clipping_threshold`` means "unset: take the optimizer's global value"
    (v2 treats 0 the same way for l2 and momentum). ``sparsity_ratio`` comes from a
    pruning ``HookAttr``: that fraction of the weights, the smallest in magnitude when
    training starts, is held at zero. ``sharding="rows"`` splits a 2-D parameter by rows
    over the devices of the data mesh (see ``distributed``). ``owner`` (the layer that
    declared it) and ``role`` (``w0``, ``wbias`` ...) are for messages and lookup.
    """

    name: str
    shape: Shape
    init: InitSpec
    learning_rate: float = 1.0
    momentum: float | None = None
    decay_rate: float | None = None
    decay_rate_l1: float | None = None
    gradient_clipping_threshold: float | None = None
    is_static: bool = False
    sparse_update: bool = False
    sparsity_ratio: float | None = None
    sharding: str | None = None  # "rows": split by rows over the devices of the data mesh
    owner: str = dataclasses.field(default="", compare=False)
    role: str = dataclasses.field(default="", compare=False)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if out["sharding"] is None:
            del out["sharding"]
        out["shape"] = list(self.shape)
        out["init"] = self.init.to_json()
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ParamSpec:
        fields = dict(obj)
        fields["shape"] = tuple(fields["shape"])
        fields["init"] = InitSpec.from_json(fields["init"])
        return cls(**fields)
