"""Id fields: a batch of items to int32 ids, each checked to be an int in range.

v2 took ints, bools (as 1 / 0), integral floats and one-element arrays as ids; ids must
be at least 0 and below the field's limit (the declared dim, unless the layers reading
the ids bound them otherwise: then ids at or past the dim are named in a warning).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paddle_lite._src.feeding.aligned import aligned_copy
from paddle_lite._src.feeding.field_context import Field, show


def ids_of(values: list[Any], field: Field) -> np.ndarray:
    """Int32 ids in ``[0, dim)``, one per item (a one-element array counts as its id)."""
    arr = _int_array(values, field)
    _check_range(arr, field)
    return aligned_copy(arr, np.int32)


def _int_array(values: Any, field: Field) -> np.ndarray:
    """``values`` as a 1-D integer array, or a ``DataError`` naming the first bad one."""
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged: some item is a list
        arr = None
    if arr is not None and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr is None or arr.ndim != 1:
        arr = _ids_one_by_one(values, field)
    if arr.dtype.kind == "b":  # v2 (Python 2 ints, SWIG) took True / False as ids 1 / 0
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        if arr.dtype.kind != "f" or not np.all(np.mod(arr, 1) == 0):
            first = next((i for i, v in enumerate(values) if not _is_int(v)), 0)
            raise field.error(f"received {show(values[first])}; expected ints", first)
        arr = arr.astype(np.int64)
    return arr


def _ids_one_by_one(values: Any, field: Field) -> np.ndarray:
    """The ids of a batch that does not convert at once (ints mixed with one-element
    arrays or lists), each checked to be one number."""
    items = []
    for i, v in enumerate(values):
        try:
            item = np.asarray(v)
        except ValueError:  # ragged
            item = None
        if item is None or item.ndim > 1 or item.size != 1:
            raise field.error(f"received {show(v)}; expected one int per sample", i)
        items.append(item.reshape(()))
    return np.array(items)


def _check_range(arr: np.ndarray, field: Field) -> None:
    """Ids are at least 0 and below ``field.limit`` (the declared dim unless the layers
    reading them bound them otherwise; then ids at or past the dim are named in a warning)."""
    dim, limit = field.type.dim, field.limit
    if arr.dtype == np.int64:  # one reduction: negatives wrap past dim
        if not arr.size or arr.view(np.uint64).max() < min(dim, limit or dim):
            return
    outside = arr < 0 if limit is None else (arr < 0) | (arr >= limit)
    bad = np.nonzero(outside)[0]
    if bad.size:
        why = f" ({field.why})" if field.why and limit != dim else ""
        shown = dim if limit is None else limit  # None: only a negative id is outside
        raise field.error(f"id {int(arr[bad[0]])} is outside [0, {shown}){why}", int(bad[0]))
    if limit is not None and limit > dim:  # number readers (no limit) take any id silently
        past = np.nonzero(arr >= dim)[0]
        if past.size:
            field.past_dim(int(arr[past[0]]))


def _is_int(value: Any) -> bool:
    """An int id: an int (a bool too, as in v2), an integral float, or a one-element
    array of one."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (float, np.floating)):
        return float(value).is_integer()
    return isinstance(value, (int, np.integer))
