"""Sparse fields (``sparse_binary_vector``, ``sparse_float_vector``): a batch of items to
``Sparse`` ids and values, padded to a power of two entries per row.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from paddle_lite._src.data_types import DataType
from paddle_lite._src.errors import DataError, DataWarning
from paddle_lite._src.feeding.aligned import aligned_zeros
from paddle_lite._src.feeding.buckets import pow2
from paddle_lite._src.feeding.field_context import Field, show
from paddle_lite._src.feeding.ids import ids_of
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import Sparse


def _sparse_rows(values: list[Any], field: Field) -> list[Any]:
    """Each sparse item as a sized collection. v2 extended its column list with the item,
    so any iterable served: a generator, or a Python 3 ``map`` (a list in Python 2)."""
    rows = []
    for i, v in enumerate(values):
        if not hasattr(v, "__len__") or (type(v) is np.ndarray and v.ndim == 0):
            try:
                v = list(v)
            except TypeError:
                raise field.error(f"expected a list of ids, received {show(v)}", i) from None
        rows.append(v)
    return rows


def sparse_items(values: list[Any], field: Field) -> Sparse:
    with_values = field.type.type == DataType.SparseValue
    values = _sparse_rows(values, field)
    longest = max((len(v) for v in values), default=1)
    k = pow2(longest)
    ids = aligned_zeros((len(values), k), np.int32)
    vals = aligned_zeros((len(values), k), np.float32)
    for i, row in enumerate(values):
        if len(row) == 0:
            continue
        if with_values:
            try:
                cols, v = zip(*row, strict=False)
            except (TypeError, ValueError):
                raise field.error(_not_pairs(row), i) from None
            vals[i, : len(cols)] = v
        else:
            cols = row
            vals[i, : len(cols)] = 1.0
        try:
            ids[i, : len(cols)] = ids_of(list(cols), field.at(i, "entry"))
        except DataError as err:
            if with_values and _parallel(row):
                raise DataError(f"{err}{_parallel(row)}") from None
            raise
    if not with_values and longest >= field.type.dim > 2:  # rare: most rows are short
        _check_not_dense(values, ids, field)
    return Sparse(ids, vals)


def _check_not_dense(rows: list[Any], ids: np.ndarray, field: Field) -> None:
    """Warn when a sparse_binary item looks like a dense 0/1 vector (``dim`` ids, each 0 or
    1), which v2 read, as this feeder does, as ids 0 and 1 repeated."""
    dim = field.type.dim
    for i, row in enumerate(rows):
        if len(row) == dim and ids[i, :dim].max() <= 1:
            warnings.warn(
                f"data layer '{field.name}' (field {field.index!r}) received a sparse_binary "
                f"item of {dim} ids, each 0 or 1: a dense 0/1 vector? Such an "
                "item lists the ids of its ones, [i for i, x in enumerate(row) if x]; it is "
                "read as the ids 0 and 1 repeated, as v2 read it.",
                DataWarning,
                stacklevel=user_stacklevel(),
            )
            return


def _not_pairs(row: Any) -> str:
    """What is wrong with a sparse_float item that is not a list of (id, value) pairs."""
    return f"expected a list of (id, value) pairs, received {row!r:.60}" + _parallel(row)


def _parallel(row: Any) -> str:
    """A hint when ``row`` may be two parallel lists ``(ids, values)``: v2 read each list as
    one pair, taking ``(ids[0], values[0])`` as the ids and ``(ids[1], values[1])`` as the
    values."""
    if len(row) == 2 and all(hasattr(part, "__len__") for part in row):
        return " (two parallel lists of ids and values? pass list(zip(ids, values)))"
    return ""
