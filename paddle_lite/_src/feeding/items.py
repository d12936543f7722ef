"""One field of a minibatch, item by item: dense rows, ids and sparse rows (v2 feeder).

Each converter takes the field's values for the batch (one per sample, or one per step
of a sequence) and returns a numpy array (``Sparse`` for
sparse fields); a bad value raises a ``DataError`` naming the data layer, the field,
the sample (and the step or entry) with what was received and what was declared.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from operator import attrgetter
from typing import Any

import numpy as np

from paddle_lite._src.data_types import DataType, InputType
from paddle_lite._src.errors import DataError, DataWarning
from paddle_lite._src.feeding.aligned import (
    ALIGN_FROM,
    aligned,
    aligned_copy,
    aligned_empty,
    aligned_stack,
    aligned_zeros,
)
from paddle_lite._src.feeding.buckets import pow2
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import Sparse


class Field:
    """Where an error happened: data layer, field index, type (and, when the items being
    converted are the steps of one sample, that sample)."""

    def __init__(
        self,
        name: str,
        index: int,
        tp: InputType,
        sample: int | None = None,
        unit: str = "",
        *,
        limit: tuple[int | None, str] | None = None,
        image: tuple[tuple[int, int, int], str] | None = None,
    ) -> None:
        self.name, self.index, self.type = name, index, tp
        self.sample, self.unit = sample, unit
        # ``((C, H, W), layer)``: the image a layer reads this dense field as, when the data
        # layer declares no height and width (``checks.image_inputs``); None: any.
        self.image = image
        # Ids are below ``self.limit`` (None: no upper bound), ``why`` names the layer
        # setting it: the declared dim unless the layers reading the ids bound them
        # otherwise (``checks.id_limits``), as v2, whose DataFeeder never checked
        # ids against the declared dim (its layers did).
        self.limit, self.why = limit if limit is not None else (tp.dim, "")
        self._warned = [False]  # shared with the copies ``at`` makes: one warning a field

    def at(self, sample: int, unit: str) -> Field:
        """The same field, converting the ``unit`` items (steps, entries) of ``sample``."""
        item = copy.copy(self)  # shares ``_warned``
        item.sample, item.unit = sample, unit
        return item

    def past_dim(self, id_: int) -> None:
        """Warn, once for this field, that an id at or past the declared dim was accepted."""
        if self._warned[0]:
            return
        self._warned[0] = True
        warnings.warn(
            f"data layer '{self.name}' (field {self.index!r}) received id {id_}, at or past its "
            f"declared {self.type!r}; accepted, as v2 did, because {self.why}. Declare the "
            "data layer with the range its ids really have to silence this.",
            DataWarning,
            stacklevel=user_stacklevel(),
        )

    def error(self, what: str, item: int | None = None) -> DataError:
        where = f"data layer '{self.name}' (field {self.index!r}"
        if self.sample is not None:
            where += f", sample {self.sample}" + (
                f", {self.unit} {item}" if item is not None else ""
            )
        elif item is not None:
            where += f", sample {item}"
        return DataError(f"{where}): {what}; declared {self.type!r}.")


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
        if len(values) * dim * 4 < ALIGN_FROM:  # as in _dense_rows: small, np.asarray
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


def _dense_rows(values: list[Any], field: Field) -> np.ndarray:
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


def show(value: Any, limit: int = 40) -> str:
    """``repr (type)`` of a received value, the repr cut to ``limit`` characters."""
    text = repr(value)
    return f"{text[: limit - 3] + '...' if len(text) > limit else text} ({type(value).__name__})"


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


def _sparse(values: list[Any], field: Field) -> Sparse:
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


def convert_items(values: list[Any], field: Field) -> Any:
    """Convert a flat list of non-sequence items of ``field``'s type."""
    return _ITEMS.get(field.type.type, _sparse)(values, field)


def item_converter(field: Field) -> Any:
    """The function ``convert_items`` calls for ``field``'s type (chosen once)."""
    return _ITEMS.get(field.type.type, _sparse)


_ITEMS = {DataType.Dense: _dense_rows, DataType.Index: ids_of}
