"""Dense fields: a batch of items to one aligned float32 ``[N, dim]`` array.

Two fast paths (numpy vectors of one shape, and arrays stacked in one copy) give the
checked path's arrays bit for bit; anything else is converted and checked item by item,
so a bad item raises a ``DataError`` naming its sample. Samples of 2 or 3 dimensions are
images, flattened as v2's DataFeeder did.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from operator import attrgetter
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataWarning
from paddle_lite._src.feeding.aligned import ALIGN_FROM, aligned, aligned_empty, aligned_stack
from paddle_lite._src.feeding.field_context import Field, show
from paddle_lite._src.tracebacks import user_stacklevel

_shape = attrgetter("shape")


def _stacked_rows(values: list[Any], dim: int) -> np.ndarray | None:
    """``values`` as an aligned float32 ``[N, dim]`` array in one copy, when they are
    arrays of one shape with ``dim`` elements each and large enough to realign; else
    ``None``."""
    first = values[0] if values else None
    if not isinstance(first, np.ndarray) or first.ndim == 0 or first.size != dim:
        return None
    if len(values) * dim * 4 < ALIGN_FROM:  # float32 bytes; small: np.asarray is faster
        return None
    try:  # the shapes in one C-level pass
        if set(map(_shape, values)) == {first.shape}:
            return aligned_stack(values, np.float32).reshape(len(values), dim)
    except (AttributeError, TypeError):  # values that are not arrays, or not numbers
        pass
    return None


def _vector_rows(values: list[Any], dim: int) -> np.ndarray | None:
    """``values`` as float32 ``[N, dim]`` when every one is a numpy vector of ``dim``
    numbers (what the book's readers yield), else ``None``.

    The same arrays as the checked path below, for less: the checks are C-level
    passes over the batch (types, lengths) instead of per-sample shape tuples, and
    numpy itself refuses values that do not cast (object arrays holding None)."""
    first = values[0]
    if type(first) is not np.ndarray or first.shape != (dim,):
        return None
    try:
        if set(map(type, values)) != _ONLY_ARRAYS:
            return None
        if len(values) * dim * 4 < ALIGN_FROM:  # as in dense_rows: small, np.asarray
            out = np.asarray(values, np.float32)  # of shape [N, dim] only if all are (dim,)
            return out if out.shape == (len(values), dim) else None
        if set(map(len, values)) != {dim}:  # the concatenation checks only their sum
            return None
        out = aligned_empty((len(values), dim), np.float32)
        np.concatenate(values, out=out.reshape(-1), casting="same_kind")  # as aligned_stack
    except (TypeError, ValueError):  # 0-d arrays, arrays of other ranks or dtypes
        return None
    return out


_ONLY_ARRAYS = {np.ndarray}


def dense_rows(values: list[Any], field: Field) -> np.ndarray:
    dim = field.type.dim
    if not values:  # an empty sequence has no rows
        return aligned(np.zeros((0, dim), np.float32))
    vectors = _vector_rows(values, dim)
    if vectors is not None:
        return vectors
    stacked = _stacked_rows(values, dim)
    if stacked is not None:
        _check_sample_ndim(values[0].shape, field, values[0], 0)
        return stacked
    missing = next((i for i, v in enumerate(values) if v is None), None)
    if missing is not None:
        raise field.error(f"received None; expected {dim} numbers", missing)
    try:
        arr = np.asarray(values, dtype=np.float32)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim < 1 or arr.size != len(values) * dim:
        return aligned(_rows_one_by_one(values, field))  # no items, or items of mixed shapes
    _check_sample_ndim(arr.shape[1:], field, values[0], 0)
    if np.isnan(arr).any():
        _check_no_none(values, field)  # numpy reads None as NaN
    return aligned(arr.reshape(len(values), dim))


def _rows_one_by_one(values: list[Any], field: Field) -> np.ndarray:
    """The rows of items whose batch does not convert at once; each item checked."""
    dim, rows = field.type.dim, []
    for i, v in enumerate(values):
        v = listed(v)
        try:
            row = np.asarray(v, dtype=np.float32)
        except (TypeError, ValueError):
            raise field.error(f"received non-numeric values {show(v, 60)}", i) from None
        if row.size != dim:
            raise field.error(f"received {row.size} values, expected {dim}" + _sized(row), i)
        _check_sample_ndim(row.shape, field, v, i)
        if np.isnan(row).any():
            _check_no_none([v], field, i)
        rows.append(row.reshape(-1))
    return np.stack(rows) if rows else np.zeros((0, dim), np.float32)


def _sized(row: np.ndarray) -> str:
    """A hint for an image-shaped sample of another size than the declared dim."""
    if row.ndim < 2:
        return ""
    return (
        f" (a sample of shape {row.shape}: v2's dense_array took images whose size changed "
        "from batch to batch; here a data layer has one size: resize or pad the images "
        "to it)"
    )


def _check_no_none(values: list[Any], field: Field, first: int = 0) -> None:
    for i, v in enumerate(values, first):
        items = v if isinstance(v, (list, tuple)) else [v]
        flat = [y for x in items for y in (x if isinstance(x, (list, tuple)) else [x])]
        if any(x is None for x in flat):
            raise field.error(f"received None among the values {show(v, 60)}", i)


def listed(value: Any) -> Any:
    """An iterator (a generator, or a Python 3 ``map``: a list in Python 2, where v2 ran)
    as a list of its items; any other value as it is."""
    if isinstance(value, Iterator):
        return list(value)
    return value


def _check_sample_ndim(shape: tuple[int, ...], field: Field, first: Any, item: int) -> None:
    """v2's DataFeeder took dense samples of 1 to 3 dimensions and flattened them (the
    last two giving an image's height and width); more is an error, as in v2. A sample
    of nested lists (not an array, as an image would come) is flattened too but named in
    a ``DataWarning``: ``[[1, 2], [3, 4]]`` for ``dense_vector(4)`` is more often a
    sequence declared as a vector than a 2 x 2 image."""
    if len(shape) > 3:
        raise field.error(f"received a sample of shape {shape}; at most 3 dimensions", item)
    check_image_shape(shape, field, item)
    if len(shape) > 1 and not isinstance(first, np.ndarray):
        warnings.warn(
            f"data layer '{field.name}' (field {field.index!r}) received dense samples of "
            f"nested lists, shape {shape}; each is flattened row-major into its "
            f"{field.type.dim} values, as v2's DataFeeder did. Pass flat vectors to silence "
            "this (or declare a sequence type if the inner lists are steps).",
            DataWarning,
            stacklevel=user_stacklevel(),
        )


def check_image_shape(shape: tuple[int, ...], field: Field, item: int | None = 0) -> None:
    """A sample of 2 or 3 dimensions is an image of its last two (v2's DataFeeder set them
    as the frame height and width, which v2's image layers read in place of the square
    they assumed when the data layer declares no height and width); it must be the image
    the network was built for, or v2's results would differ."""
    if field.image is None or len(shape) < 2:
        return
    (c, h, w), layer = field.image
    if tuple(shape[-2:]) == (h, w):
        return
    hint = ""
    if len(shape) == 3 and shape[-1] == c and shape[0] == h:
        hint = " The samples look height x width x channels: transpose them to (C, H, W)."
    raise field.error(
        f"received a sample of shape {tuple(shape)}, which v2 read as images of height "
        f"{shape[-2]} and width {shape[-1]}; layer '{layer}' reads this data layer as "
        f"(C, H, W) = {(c, h, w)}. Declare the data layer with height= and width= of the "
        f"images, or pass samples of shape {(c, h, w)} or flat vectors.{hint}",
        item,
    )
