"""One field of a minibatch, item by item: the converter of the field's declared type.

Each converter takes the field's values for the batch (one per sample, or one per step
of a sequence) and returns a numpy array (``Sparse`` for sparse fields); a bad value
raises a ``DataError`` naming the data layer, the field, the sample (and the step or
entry) with what was received and what was declared. The converters are in
``dense_rows``, ``ids`` and ``sparse_items``; ``field_context`` says where an error is.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src.data_types import DataType
from paddle_lite._src.feeding.dense_rows import dense_rows
from paddle_lite._src.feeding.field_context import Field
from paddle_lite._src.feeding.ids import ids_of
from paddle_lite._src.feeding.sparse_items import sparse_items


def convert_items(values: list[Any], field: Field) -> Any:
    """Convert a flat list of non-sequence items of ``field``'s type."""
    return _ITEMS.get(field.type.type, sparse_items)(values, field)


def item_converter(field: Field) -> Any:
    """The function ``convert_items`` calls for ``field``'s type (chosen once)."""
    return _ITEMS.get(field.type.type, sparse_items)


_ITEMS = {DataType.Dense: dense_rows, DataType.Index: ids_of}
