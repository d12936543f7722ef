"""Paddle's ``ParameterConfig`` message in proto2 wire format, without protobuf.

Every parameter of a v2 tar has a ``<name>.protobuf`` member holding a serialized
``ParameterConfig`` (Paddle's ``ParameterConfig.proto``). This module encodes and
decodes that message by hand and converts it to and from ``ParamSpec``.

The wire format itself is in ``proto.wire``. Decoding skips unknown fields of any
wire type (groups included); encoding writes the set fields in field-number order, as
protobuf does, and repeated ``dims`` unpacked (proto2's default).

Example:
    ```python
    cfg = from_spec(spec)            # ParamSpec -> ParameterConfig
    data = encode(cfg)               # the bytes of '<name>.protobuf'
    assert to_spec(decode(data)) == spec
    ```
"""

from __future__ import annotations

import dataclasses
import math
import struct
from typing import Any

from paddle_lite._src.errors import ParameterError
from paddle_lite._src.proto.wire import WIRE_TYPES, WireReader, encode_field, utf8_text
from paddle_lite._src.specs import InitSpec, ParamSpec

# (field number, attribute, type), from Paddle's proto/ParameterConfig.proto.
FIELDS: tuple[tuple[int, str, str], ...] = (
    (1, "name", "string"),
    (2, "size", "uint64"),
    (3, "learning_rate", "double"),
    (4, "momentum", "double"),
    (5, "initial_mean", "double"),
    (6, "initial_std", "double"),
    (7, "decay_rate", "double"),
    (8, "decay_rate_l1", "double"),
    (9, "dims", "repeated_uint64"),
    (10, "device", "int32"),
    (11, "initial_strategy", "int32"),
    (12, "initial_smart", "bool"),
    (13, "num_batches_regularization", "int32"),
    (14, "is_sparse", "bool"),
    (15, "format", "string"),
    (16, "sparse_remote_update", "bool"),
    (17, "gradient_clipping_threshold", "double"),
    (18, "is_static", "bool"),
    (19, "para_id", "uint64"),
    (20, "update_hooks", "repeated_message"),
    (21, "need_compact", "bool"),
    (22, "sparse_update", "bool"),
    (23, "is_shared", "bool"),
    (24, "parameter_block_size", "uint64"),
)
_BY_NUMBER = {num: (attr, kind) for num, attr, kind in FIELDS}

DEFAULTS: dict[str, Any] = {
    "name": "",
    "size": 0,
    "learning_rate": 1.0,
    "momentum": 0.0,
    "initial_mean": 0.0,
    "initial_std": 0.01,
    "decay_rate": 0.0,
    "decay_rate_l1": 0.0,
    "device": -1,
    "initial_strategy": 0,
    "initial_smart": False,
    "num_batches_regularization": 1,
    "is_sparse": False,
    "format": "",
    "sparse_remote_update": False,
    "gradient_clipping_threshold": 0.0,
    "is_static": False,
    "para_id": 0,
    "need_compact": False,
    "sparse_update": False,
    "is_shared": False,
    "parameter_block_size": 0,
}


@dataclasses.dataclass(frozen=True)
class ParameterConfig:
    """The fields of one ``ParameterConfig``; ``None`` means "not present".

    ``dims`` is the repeated ``dims`` field and ``update_hooks`` the raw bytes of
    each ``ParameterUpdaterHookConfig`` sub-message (kept, not interpreted).
    Use ``value`` to read a field with proto2's default filled in.
    """

    name: str | None = None
    size: int | None = None
    learning_rate: float | None = None
    momentum: float | None = None
    initial_mean: float | None = None
    initial_std: float | None = None
    decay_rate: float | None = None
    decay_rate_l1: float | None = None
    dims: tuple[int, ...] = ()
    device: int | None = None
    initial_strategy: int | None = None
    initial_smart: bool | None = None
    num_batches_regularization: int | None = None
    is_sparse: bool | None = None
    format: str | None = None
    sparse_remote_update: bool | None = None
    gradient_clipping_threshold: float | None = None
    is_static: bool | None = None
    para_id: int | None = None
    update_hooks: tuple[bytes, ...] = ()
    need_compact: bool | None = None
    sparse_update: bool | None = None
    is_shared: bool | None = None
    parameter_block_size: int | None = None

    def value(self, field: str) -> Any:
        """The field's value, or proto2's default when it is not present."""
        got = getattr(self, field)
        return DEFAULTS.get(field) if got is None else got


# encoding ---------------------------------------------------------------------------
def encode(config: ParameterConfig) -> bytes:
    """The proto2 serialization of ``config`` (set fields in field-number order).

    Args:
        config: the message; ``name`` and ``size`` (required) must be set.

    Returns:
        The bytes ``SerializeToString()`` of Paddle's generated class would give.
    """
    if config.name is None or config.size is None:
        raise ParameterError(
            f"ParameterConfig needs the required fields name and size; received "
            f"name={config.name!r}, size={config.size!r}."
        )
    out = bytearray()
    for num, attr, kind in FIELDS:
        value = getattr(config, attr)
        values = value if kind.startswith("repeated") else ([] if value is None else [value])
        for item in values:
            out += encode_field(num, kind, item)
    return bytes(out)


# decoding ---------------------------------------------------------------------------
def _convert(attr: str, kind: str, wire: int, raw: Any) -> list[Any]:
    """The decoded value(s) of one known field, or ``[]`` for a wire-type mismatch."""
    if kind == "repeated_uint64" and wire == 2:  # packed encoding, accepted on read
        sub, out = WireReader(raw), []
        while not sub.done():
            out.append(sub.varint())
        return out
    if wire != WIRE_TYPES[kind]:
        return []
    if kind == "double":
        return [struct.unpack("<d", raw)[0]]
    if kind == "string":
        return [utf8_text(raw, attr)]
    if kind == "repeated_message":
        return [bytes(raw)]
    if kind == "int32":
        return [raw - (1 << 64) if raw >= 1 << 63 else raw]
    if kind == "bool":
        return [raw != 0]
    return [raw]


def decode(data: bytes) -> ParameterConfig:
    """Parse a serialized ``ParameterConfig``; unknown fields are skipped.

    Args:
        data: the message bytes (a ``<name>.protobuf`` tar member).

    Returns:
        The ``ParameterConfig``; raises ``ParameterError`` when the bytes
        are malformed or the required ``name``/``size`` are missing.
    """
    reader = WireReader(data)
    fields: dict[str, Any] = {"dims": [], "update_hooks": []}
    while not reader.done():
        num, wire, raw = reader.field()
        if num not in _BY_NUMBER or wire == 3:
            continue
        attr, kind = _BY_NUMBER[num]
        values = _convert(attr, kind, wire, raw)
        if kind.startswith("repeated"):
            fields[attr].extend(values)
        elif values:
            fields[attr] = values[0]
    config = ParameterConfig(
        **{**fields, "dims": tuple(fields["dims"]), "update_hooks": tuple(fields["update_hooks"])}
    )
    if config.name is None or config.size is None:
        raise ParameterError(
            f"malformed ParameterConfig: required field name or size missing "
            f"(name={config.name!r}, size={config.size!r})."
        )
    return config


# ParamSpec <-> ParameterConfig ------------------------------------------------------
def _init_fields(spec: ParamSpec) -> dict[str, Any]:
    init = spec.init
    if init.strategy in ("uniform", "gaussian"):
        uniform = init.strategy == "uniform"
        return {
            "initial_mean": init.mean,
            "initial_std": init.std,
            "initial_strategy": int(uniform),
            "initial_smart": not uniform and init.smart,
        }
    fan = spec.shape[0] if spec.shape else max(spec.size, 1)
    return {
        "initial_mean": 0.0,
        "initial_std": 1.0 / math.sqrt(fan),
        "initial_strategy": 0,
        "initial_smart": True,
    }


def from_spec(spec: ParamSpec) -> ParameterConfig:
    """The ``ParameterConfig`` v2 writes for a parameter declared like ``spec``.

    Like v2's config parser it always sets name, size, initial mean/std/strategy/smart
    and dims, and the update settings only when they differ from "unset": a
    ``learning_rate`` other than 1, a set momentum/decay/clipping threshold,
    ``is_static`` when true, and ``sparse_update`` (with ``sparse_remote_update``)
    when true. An init with no ParameterConfig equivalent (a callable or registered
    initializer) is written as v2 writes ``Param(initializer=...)``: smart init.

    Example:
        ```python
        from_spec(spec).dims   # (13, 1)
        ```
    """
    sparse = True if spec.sparse_update else None
    return ParameterConfig(
        name=spec.name,
        size=spec.size,
        learning_rate=None if spec.learning_rate == 1.0 else spec.learning_rate,
        momentum=spec.momentum,
        decay_rate=spec.decay_rate,
        decay_rate_l1=spec.decay_rate_l1,
        dims=tuple(int(d) for d in spec.shape),
        sparse_remote_update=sparse,
        gradient_clipping_threshold=spec.gradient_clipping_threshold,
        is_static=True if spec.is_static else None,
        sparse_update=sparse,
        update_hooks=() if spec.sparsity_ratio is None else (pruning_hook(spec.sparsity_ratio),),
        **_init_fields(spec),
    )


def pruning_hook(sparsity_ratio: float) -> bytes:
    """A serialized ``ParameterUpdaterHookConfig`` ``{type: "pruning", sparsity_ratio}``."""
    return encode_field(1, "string", "pruning") + encode_field(2, "double", sparsity_ratio)


def hook_sparsity(hooks: tuple[bytes, ...]) -> float | None:
    """The sparsity ratio of the first pruning hook (v2's default 0.6), or None."""
    for raw in hooks:
        reader, kind, ratio = WireReader(raw), None, 0.6
        while not reader.done():
            num, wire, value = reader.field()
            if num == 1 and wire == 2:
                kind = utf8_text(value, "update_hooks.type")
            elif num == 2 and wire == 1:
                ratio = struct.unpack("<d", value)[0]
        if kind == "pruning":
            return ratio
    return None


def _unset_if_zero(value: float | None) -> float | None:
    return None if value is None or value == 0 else float(value)


def to_spec(config: ParameterConfig) -> ParamSpec:
    """The ``ParamSpec`` a ``ParameterConfig`` describes (owner and role empty).

    The shape is ``dims``, or ``(1, size)`` when there are none; 0 for momentum,
    decay rates and clipping threshold means "unset" (``None``), as in v2.

    Example:
        ```python
        to_spec(decode(data)).shape   # (13, 1)
        ```
    """
    shape = tuple(config.dims) if config.dims else (1, config.size)
    if math.prod(shape) != config.size:
        raise ParameterError(
            f"parameter '{config.name}': ParameterConfig dims {list(config.dims)} hold "
            f"{math.prod(shape)} values but size is {config.size}."
        )
    strategy = "uniform" if config.value("initial_strategy") == 1 else "gaussian"
    init = InitSpec(
        strategy,
        float(config.value("initial_mean")),
        float(config.value("initial_std")),
        smart=strategy == "gaussian" and bool(config.initial_smart),
    )
    return ParamSpec(
        name=config.name or "",
        shape=shape,
        init=init,
        learning_rate=float(config.value("learning_rate")),
        momentum=_unset_if_zero(config.momentum),
        decay_rate=_unset_if_zero(config.decay_rate),
        decay_rate_l1=_unset_if_zero(config.decay_rate_l1),
        gradient_clipping_threshold=_unset_if_zero(config.gradient_clipping_threshold),
        is_static=bool(config.is_static),
        sparse_update=bool(config.sparse_update),
        sparsity_ratio=hook_sparsity(config.update_hooks),
    )
