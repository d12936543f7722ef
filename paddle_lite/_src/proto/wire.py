"""The proto2 wire format, by hand: varints, fields, and a reader that skips what it does not know.

Each field is a varint key ``(field_number << 3) | wire_type`` followed by its value:
wire type 0 a varint (uint64, int32, bool; a negative int32 takes ten bytes), 1 eight
little-endian bytes (double), 2 a varint length and that many bytes (string,
sub-message), 5 four bytes; 3 and 4 start and end a group. ``proto`` builds Paddle's
``ParameterConfig`` on it and ``proto.model_config`` v2's ``ModelConfig``.

Example:
    ```python
    data = encode_field(1, "string", "pruning") + encode_field(2, "double", 0.5)
    reader = WireReader(data)
    reader.field()   # (1, 2, b'pruning')
    ```
"""

from __future__ import annotations

import struct
from typing import Any

from paddle_lite._src.errors import ParameterError

# The wire type of each field type (the types of ``proto.FIELDS``).
WIRE_TYPES = {
    "string": 2,
    "uint64": 0,
    "int32": 0,
    "bool": 0,
    "double": 1,
    "repeated_uint64": 0,
    "repeated_message": 2,
}


# encoding ---------------------------------------------------------------------------
def _varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _scalar(kind: str, value: Any) -> bytes:
    if kind == "double":
        return struct.pack("<d", float(value))
    if kind in ("string", "repeated_message"):
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return _varint(len(raw)) + raw
    return _varint(int(value))


def encode_field(num: int, kind: str, value: Any) -> bytes:
    """One field on the wire: its key, then its value."""
    return _varint((num << 3) | WIRE_TYPES[kind]) + _scalar(kind, value)


# decoding ---------------------------------------------------------------------------
_MAX_GROUP_DEPTH = 64  # protobuf's own parsers stop at 100 nested messages


class WireReader:
    """The fields of one message's bytes, in order; malformed bytes raise ``ParameterError``."""

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)
        self.pos = 0
        self.depth = 0

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ParameterError(
                f"malformed ParameterConfig: {n} bytes wanted at offset {self.pos} but the "
                f"message has {len(self.data)} bytes."
            )
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def varint(self) -> int:
        start = self.pos
        n = shift = 0
        while True:
            byte = self.take(1)[0]
            n |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return n & ((1 << 64) - 1)
            if shift >= 70:
                raise ParameterError(
                    f"malformed ParameterConfig: the varint at offset {start} runs past 10 "
                    "bytes (a varint has at most 10)."
                )

    def field(self) -> tuple[int, int, Any]:
        """``(number, wire type, raw value)`` of the next field (groups skipped whole)."""
        key = self.varint()
        num, wire = key >> 3, key & 7
        if wire == 0:
            return num, wire, self.varint()
        if wire == 1:
            return num, wire, self.take(8)
        if wire == 2:
            return num, wire, self.take(self.varint())
        if wire == 5:
            return num, wire, self.take(4)
        if wire == 3:
            self._skip_group(num)
            return num, wire, None
        raise ParameterError(
            f"malformed ParameterConfig: wire type {wire} of field {num} at offset {self.pos}."
        )

    def _skip_group(self, num: int) -> None:
        self.depth += 1
        if self.depth > _MAX_GROUP_DEPTH:
            raise ParameterError(
                f"malformed ParameterConfig: groups nested deeper than {_MAX_GROUP_DEPTH} at "
                f"offset {self.pos}."
            )
        while True:
            if self.done():
                raise ParameterError(f"malformed ParameterConfig: unterminated group {num}.")
            start = self.pos
            if self.varint() == (num << 3) | 4:
                self.depth -= 1
                return
            self.pos = start
            self.field()


def utf8_text(raw: bytes, field: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParameterError(
            f"malformed ParameterConfig: field '{field}' is not UTF-8 text ({err})."
        ) from None
