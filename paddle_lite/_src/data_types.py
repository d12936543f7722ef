"""Input types of data layers (v2 ``paddle.data_type``).

An ``InputType`` says what one field of a sample is: its dimension, whether it is
a plain value, a sequence or a nested sequence, and how each item is encoded.
On the device, dense items are float32 ``[batch, dim]``, ids int32 ``[batch]``,
sparse items padded id (and value) lists, and sequences are padded along time
with lengths (see DESIGN.md).
"""

from __future__ import annotations

import enum
import numbers
from typing import Any

from paddle_lite._src.errors import LayerConfigError, LayerTypeError


class SequenceType(enum.IntEnum):
    """How a field is nested: a plain value (0), a sequence (1) or a sequence of sequences (2)."""

    NO_SEQUENCE = 0
    SEQUENCE = 1
    SUB_SEQUENCE = 2

    def __repr__(self) -> str:
        return f"SequenceType.{self.name}"

    __str__ = __repr__


class DataType(enum.IntEnum):
    """What a field holds: dense floats, sparse ids, sparse ``(id, value)`` pairs or an id."""

    Dense = 0
    SparseNonValue = 1
    SparseValue = 2
    Index = 3

    def __repr__(self) -> str:
        return f"DataType.{self.name}"

    __str__ = __repr__


class InputType:
    """The declared type of one input field: ``dim``, ``seq_type`` and ``type``."""

    __slots__ = ("dim", "seq_type", "type")

    def __init__(self, dim: int, seq_type: SequenceType, tp: DataType) -> None:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise LayerTypeError(f"InputType dim must be an int; received {dim!r}.")
        if dim <= 0:
            raise LayerConfigError(f"InputType dim must be positive; received {dim}.")
        self.dim = int(dim)  # numpy integers too, as v2 took them
        self.seq_type = SequenceType(seq_type)
        self.type = DataType(tp)

    def __repr__(self) -> str:
        """v2's words: ``dense_vector(784)``, ``integer_value_sequence(10)``."""
        base = _CONSTRUCTORS[self.type]
        return f"{base}{_SEQ_SUFFIX[self.seq_type]}({self.dim})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputType) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self.dim, self.seq_type, self.type))

    def to_json(self) -> dict[str, Any]:
        """The JSON form ``{"dim", "seq_type", "type"}``."""
        return {"dim": self.dim, "seq_type": int(self.seq_type), "type": int(self.type)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> InputType:
        """Rebuild an ``InputType`` from [`to_json`][paddle_lite.data_type.InputType.to_json]
        output."""
        return cls(int(obj["dim"]), SequenceType(obj["seq_type"]), DataType(obj["type"]))


_CONSTRUCTORS = {
    DataType.Dense: "dense_vector",
    DataType.SparseNonValue: "sparse_binary_vector",
    DataType.SparseValue: "sparse_float_vector",
    DataType.Index: "integer_value",
}
_SEQ_SUFFIX = {
    SequenceType.NO_SEQUENCE: "",
    SequenceType.SEQUENCE: "_sequence",
    SequenceType.SUB_SEQUENCE: "_sub_sequence",
}


def dense_vector(dim: int, seq_type: SequenceType = SequenceType.NO_SEQUENCE) -> InputType:
    """A dense float vector of ``dim`` values."""
    return InputType(dim, seq_type, DataType.Dense)


def dense_array(dim: int, seq_type: SequenceType = SequenceType.NO_SEQUENCE) -> InputType:
    """A dense float array of ``dim`` values in all, fed as a numpy array of any shape."""
    return InputType(dim, seq_type, DataType.Dense)


def sparse_binary_vector(dim: int, seq_type: SequenceType = SequenceType.NO_SEQUENCE) -> InputType:
    """A sparse 0/1 vector of dimension ``dim``, fed as a list of non-zero ids."""
    return InputType(dim, seq_type, DataType.SparseNonValue)


def sparse_float_vector(dim: int, seq_type: SequenceType = SequenceType.NO_SEQUENCE) -> InputType:
    """A sparse float vector of dimension ``dim``, fed as a list of ``(id, value)``."""
    return InputType(dim, seq_type, DataType.SparseValue)


def integer_value(value_range: int, seq_type: SequenceType = SequenceType.NO_SEQUENCE) -> InputType:
    """An integer id in ``[0, value_range)``."""
    return InputType(value_range, seq_type, DataType.Index)


def dense_vector_sequence(dim: int) -> InputType:
    """A sequence of dense float vectors of ``dim`` values each."""
    return dense_vector(dim, SequenceType.SEQUENCE)


def dense_vector_sub_sequence(dim: int) -> InputType:
    """A sequence of sequences of dense float vectors of ``dim`` values."""
    return dense_vector(dim, SequenceType.SUB_SEQUENCE)


def sparse_binary_vector_sequence(dim: int) -> InputType:
    """A sequence of sparse 0/1 vectors of dimension ``dim`` (lists of ids)."""
    return sparse_binary_vector(dim, SequenceType.SEQUENCE)


def sparse_binary_vector_sub_sequence(dim: int) -> InputType:
    """A sequence of sequences of sparse 0/1 vectors of dimension ``dim``."""
    return sparse_binary_vector(dim, SequenceType.SUB_SEQUENCE)


def sparse_float_vector_sequence(dim: int) -> InputType:
    """A sequence of sparse float vectors of dimension ``dim`` (``(id, value)`` lists)."""
    return sparse_float_vector(dim, SequenceType.SEQUENCE)


def sparse_float_vector_sub_sequence(dim: int) -> InputType:
    """A sequence of sequences of sparse float vectors of dimension ``dim``."""
    return sparse_float_vector(dim, SequenceType.SUB_SEQUENCE)


def integer_value_sequence(value_range: int) -> InputType:
    """A sequence of integer ids in ``[0, value_range)`` (also ``integer_sequence``)."""
    return integer_value(value_range, SequenceType.SEQUENCE)


def integer_value_sub_sequence(dim: int) -> InputType:
    """A sequence of sequences of integer ids in ``[0, dim)`` (v2 names the range ``dim``)."""
    return integer_value(dim, SequenceType.SUB_SEQUENCE)


integer_sequence = integer_value_sequence
# PyDataProvider2's own names for the two sparse types; v2's data_type re-exports every
# PyDataProvider2 name holding "value", "vector" or "array", these two included.
sparse_non_value_slot = sparse_binary_vector
sparse_value_slot = sparse_float_vector
