"""Convert minibatches into device-ready numpy arrays (v2 ``DataFeeder``).

A v2 minibatch is a list of samples, each a tuple of fields; ``feeding`` says which
field feeds which data layer. Dense fields become float32 ``[batch, dim]``, ids int32
``[batch]``, sparse fields :class:`Sparse`, sequences :class:`Seq` padded to a length
bucket (``paddle.init(seq_buckets=...)``, see ``buckets``) so a pass over ragged data
compiles a handful of times.

A minibatch may also arrive as whole columns, as tf.data or grain pipelines produce
them: a dict ``{data layer name: array}`` or a tuple of arrays in ``feeding`` order,
each array holding the batch on its leading axis. Dense and id columns then skip the
per-sample conversion (they are checked and copied once); sequence and sparse columns
are given per sample (a list, or an array ``[batch, T, ...]`` of equal lengths).

Errors name the data layer, the field and the sample, with what was received and what
was expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from paddle_lite._src import config
from paddle_lite._src.aligned import (
    ALIGN_FROM,
    aligned,
    aligned_copy,
    aligned_stack,
    aligned_zeros,
)
from paddle_lite._src.buckets import Policy, make_policy, pow2
from paddle_lite._src.data_types import DataType, InputType, SequenceType
from paddle_lite._src.errors import DataError
from paddle_lite._src.typing import Seq, Sparse


def feeding_index(data_types: Sequence[tuple[str, InputType]], feeding: Any) -> dict[str, int]:
    """``{data layer name: field index}`` from v2's ``feeding`` (None, list or dict)."""
    names = [name for name, _ in data_types]
    if feeding is None:
        return {name: i for i, name in enumerate(names)}
    if isinstance(feeding, Mapping):
        index = dict(feeding)
    elif isinstance(feeding, (list, tuple)):
        index = {name: i for i, name in enumerate(feeding)}
    else:
        raise TypeError("Feeding should be dict or sequence or None.")
    missing = [n for n in names if n not in index]
    if missing:
        raise DataError(
            f"feeding {feeding!r} gives no field for data layer(s) {missing}; "
            f"the network needs {names}."
        )
    return {name: int(index[name]) for name in names}


class _Field:
    """Where an error happened: data layer, field index, type (and, when the items being
    converted are the steps of one sample, that sample)."""

    def __init__(
        self, name: str, index: int, tp: InputType, sample: int | None = None, unit: str = ""
    ) -> None:
        self.name, self.index, self.type = name, index, tp
        self.sample, self.unit = sample, unit

    def at(self, sample: int, unit: str) -> _Field:
        """The same field, converting the ``unit`` items (steps, entries) of ``sample``."""
        return _Field(self.name, self.index, self.type, sample, unit)

    def error(self, what: str, item: int | None = None) -> DataError:
        where = f"data layer '{self.name}' (field {self.index}"
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


def _dense_rows(values: list[Any], field: _Field) -> np.ndarray:
    dim = field.type.dim
    stacked = _stacked_rows(values, dim)
    if stacked is not None:
        return stacked
    try:
        arr = np.asarray(values, dtype=np.float32).reshape(len(values), -1)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape[1] != dim:
        for i, v in enumerate(values):
            try:
                size = np.asarray(v, dtype=np.float32).size
            except (TypeError, ValueError):
                raise field.error(f"received non-numeric values {show(v, 60)}", i) from None
            if size != dim:
                raise field.error(f"received {size} values, expected {dim}", i)
    if arr is None or arr.shape[1] != dim:  # no items, or items of mixed shapes
        rows = [np.asarray(v, np.float32).reshape(-1) for v in values]
        arr = np.stack(rows) if rows else np.zeros((0, dim), np.float32)
    return aligned(arr)


def _ids(values: list[Any], field: _Field) -> np.ndarray:
    """Int32 ids in ``[0, dim)``, one per item (a one-element array counts as its id)."""
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged: some item is a list
        arr = None
    if arr is not None and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.reshape(-1)
    if arr is None or arr.ndim != 1:
        first = next((i for i, v in enumerate(values) if np.size(v) != 1), 0)
        raise field.error(f"received {show(values[first])}; expected one int per sample", first)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind != "f" or not np.all(np.mod(arr, 1) == 0):
            first = next((i for i, v in enumerate(values) if not _is_int(v)), 0)
            raise field.error(f"received {show(values[first])}; expected ints", first)
        arr = arr.astype(np.int64)
    bad = np.nonzero((arr < 0) | (arr >= field.type.dim))[0]
    if bad.size:
        raise field.error(f"id {int(arr[bad[0]])} is outside [0, {field.type.dim})", int(bad[0]))
    return aligned(arr.astype(np.int32))


def _is_int(value: Any) -> bool:
    """An int id: an int (not bool), an integral float, or a one-element array of one."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (float, np.floating)):
        return float(value).is_integer()
    return isinstance(value, (int, np.integer))


def show(value: Any, limit: int = 40) -> str:
    """``repr (type)`` of a received value, the repr cut to ``limit`` characters."""
    text = repr(value)
    return f"{text[: limit - 3] + '...' if len(text) > limit else text} ({type(value).__name__})"


def _sparse(values: list[Any], field: _Field) -> Sparse:
    with_values = field.type.type == DataType.SparseValue
    k = pow2(max((len(v) for v in values), default=1))
    ids = aligned_zeros((len(values), k), np.int32)
    vals = aligned_zeros((len(values), k), np.float32)
    for i, row in enumerate(values):
        if not row:
            continue
        if with_values:
            try:
                cols, v = zip(*row, strict=False)
            except (TypeError, ValueError):
                raise field.error(
                    f"expected a list of (id, value) pairs, received {row!r:.60}", i
                ) from None
            vals[i, : len(cols)] = v
        else:
            cols = row
            vals[i, : len(cols)] = 1.0
        ids[i, : len(cols)] = _ids(list(cols), field.at(i, "entry"))
    return Sparse(ids, vals)


def _items(values: list[Any], field: _Field) -> Any:
    """Convert a flat list of non-sequence items of ``field``'s type."""
    kind = field.type.type
    if kind == DataType.Dense:
        return _dense_rows(values, field)
    if kind == DataType.Index:
        return _ids(values, field)
    return _sparse(values, field)


def _pad_steps(flat: Any, lengths: list[int], t: int) -> Any:
    """Scatter ``flat`` (sum(lengths) items) into ``[len(lengths), t, ...]``."""
    if isinstance(flat, Sparse):
        return Sparse(_pad_steps(flat.ids, lengths, t), _pad_steps(flat.values, lengths, t))
    out = aligned_zeros((len(lengths), t) + flat.shape[1:], flat.dtype)
    start = 0
    for i, n in enumerate(lengths):
        out[i, :n] = flat[start : start + n]
        start += n
    return out


def _located(flat: list[Any], samples: list[Any], field: _Field, unit: str) -> Any:
    """``_items(flat)``; on a bad item, the error names its sample and position in it."""
    try:
        return _items(flat, field)
    except DataError:
        for i, sample in enumerate(samples):
            _items(list(sample), field.at(i, unit))  # raises for the first bad sample
        raise


_STEPS = (list, tuple, np.ndarray)
_NEEDS_A_STEP = (
    "; this network feeds it to a layer that needs at least one step (last_seq, first_seq, "
    "max pooling or a CRF): drop or pad the sample"
)


def _check_steps(values: list[Any], field: _Field, nonempty: bool, nested: bool) -> None:
    """Every sample is a list of steps (of lists of steps when nested), non-empty if asked."""
    for i, v in enumerate(values):
        if not isinstance(v, _STEPS):
            raise field.error(
                f"expected a sequence (list of items), received {type(v).__name__}", i
            )
        if nonempty and len(v) == 0:
            raise field.error("the sequence is empty" + _NEEDS_A_STEP, i)
        for j, sub in enumerate(v if nested else ()):
            if not isinstance(sub, _STEPS):
                raise field.error(
                    f"expected a list of sub-sequences; sub-sequence {j} is a {type(sub).__name__}",
                    i,
                )
            if nonempty and len(sub) == 0:
                raise field.error(f"sub-sequence {j} is empty" + _NEEDS_A_STEP, i)


def _sequence(values: list[Any], field: _Field, bucket: Policy, nonempty: bool = False) -> Seq:
    _check_steps(values, field, nonempty, nested=False)
    lengths = [len(v) for v in values]
    flat = _located([item for v in values for item in v], values, field, "step")
    data = _pad_steps(flat, lengths, bucket(max(lengths, default=1)))
    return Seq(data, np.asarray(lengths, np.int32))


def _nested(values: list[Any], field: _Field, bucket: Policy, nonempty: bool = False) -> Seq:
    _check_steps(values, field, nonempty, nested=True)
    subs = [[len(s) for s in v] for v in values]
    counts = [len(s) for s in subs]
    steps_per_sub = [n for s in subs for n in s]
    s_max = bucket(max(counts, default=1))
    per_sample = [[item for s in v for item in s] for v in values]
    flat = _located([item for items in per_sample for item in items], per_sample, field, "item")
    steps = _pad_steps(flat, steps_per_sub, bucket(max(steps_per_sub, default=1)))
    sub_lengths = aligned_zeros((len(values), s_max), np.int32)
    for i, s in enumerate(subs):
        sub_lengths[i, : len(s)] = s
    data = _pad_steps(steps, counts, s_max)
    return Seq(data, np.asarray(counts, np.int32), sub_lengths)


def convert_field(
    values: list[Any],
    name: str,
    index: int,
    tp: InputType,
    bucket: Policy | None = None,
    nonempty: bool = False,
) -> Any:
    """Convert one field of every sample of a batch; ``bucket`` pads sequence lengths
    (default: the configured ladder); ``nonempty`` refuses empty sequences."""
    field = _Field(name, index, tp)
    bucket = bucket or make_policy(None)
    if tp.seq_type == SequenceType.SEQUENCE:
        return _sequence(values, field, bucket, nonempty)
    if tp.seq_type == SequenceType.SUB_SEQUENCE:
        return _nested(values, field, bucket, nonempty)
    return _items(values, field)


def _column(column: Any, field: _Field, bucket: Policy, nonempty: bool) -> Any:
    """Convert a whole column of a pre-collated batch."""
    tp = field.type
    if not isinstance(column, np.ndarray) or tp.seq_type != SequenceType.NO_SEQUENCE:
        return convert_field(list(column), field.name, field.index, tp, bucket, nonempty)
    if tp.type == DataType.Dense:
        if column.ndim < 1 or column[0].size != tp.dim:
            raise field.error(
                f"received a column of shape {column.shape}, expected [batch, {tp.dim}]"
            )
        return aligned_copy(column.reshape(len(column), tp.dim), np.float32)
    if tp.type == DataType.Index:
        if column.ndim != 1 and column.shape[1:] != (1,):
            raise field.error(f"received a column of shape {column.shape}, expected [batch] ids")
        return _ids(column.reshape(-1), field)  # a fresh array
    return convert_field(list(column), field.name, field.index, tp, bucket, nonempty)


def _is_columns(batch: Any, n_fields: int) -> bool:
    """Whether ``batch`` is columns (a dict, or a tuple of arrays) rather than samples."""
    if isinstance(batch, Mapping):
        return True
    return (
        isinstance(batch, tuple)
        and len(batch) >= n_fields
        and all(isinstance(c, np.ndarray) and c.ndim >= 1 for c in batch)
    )


class DataFeeder:
    """Turn a minibatch (list of sample tuples) into ``{data layer name: array}``.

    Example::

        feeder = DataFeeder([("x", dense_vector(2)), ("y", integer_value(3))], {"x": 0, "y": 1})
        feeds = feeder([([0.1, 0.2], 1), ([0.3, 0.4], 2)])
    """

    def __init__(
        self,
        data_types: Sequence[tuple[str, InputType]],
        feeding: Any = None,
        seq_buckets: Any = None,
        *,
        nonempty: Iterable[str] = (),
    ) -> None:
        for item in data_types:
            if not (
                isinstance(item, (tuple, list))
                and len(item) == 2
                and isinstance(item[1], InputType)
            ):
                raise TypeError(f"data_types entries must be (name, InputType); received {item!r}.")
        self.data_types = list(data_types)
        self.feeding = feeding_index(self.data_types, feeding)
        spec = config.get("seq_buckets") if seq_buckets is None else seq_buckets
        self.bucket = make_policy(spec)
        self.nonempty = frozenset(nonempty)

    def __len__(self) -> int:
        return len(self.data_types)

    def __call__(self, batch: Sequence[Any]) -> dict[str, Any]:
        return self.convert(batch)

    def convert(self, batch: Any) -> dict[str, Any]:
        """``{data layer name: array}`` for a list of samples or a batch of columns."""
        if _is_columns(batch, len(self.data_types)):
            return self._convert_columns(batch)
        if len(batch) == 0:
            raise DataError(
                "the batch is empty; a batch is a non-empty list of samples "
                "(paddle.batch never yields an empty one)."
            )
        feeds = {}
        for name, tp in self.data_types:
            index = self.feeding[name]
            values = self._column(batch, name, index)
            feeds[name] = convert_field(values, name, index, tp, self.bucket, name in self.nonempty)
        return feeds

    def _convert_columns(self, batch: Any) -> dict[str, Any]:
        feeds, sizes = {}, set()
        for name, tp in self.data_types:
            index = self.feeding[name]
            if isinstance(batch, Mapping):
                if name not in batch:
                    raise DataError(
                        f"the batch dict has no column for data layer '{name}'; its keys are "
                        f"{sorted(batch)}."
                    )
                column = batch[name]
            else:
                column = batch[index]
            field = _Field(name, index, tp)
            feeds[name] = _column(column, field, self.bucket, name in self.nonempty)
            sizes.add(len(column))
        if len(sizes) > 1:
            raise DataError(f"the batch's columns have different lengths {sorted(sizes)}.")
        return feeds

    @staticmethod
    def _column(batch: Sequence[Any], name: str, index: int) -> list[Any]:
        try:
            return [sample[index] for sample in batch]
        except (IndexError, TypeError, KeyError):
            return [_field_of(sample, i, name, index) for i, sample in enumerate(batch)]


def _field_of(sample: Any, i: int, name: str, index: int) -> Any:
    """Field ``index`` of sample ``i``, or a :class:`DataError` saying what the sample is."""
    try:
        return sample[index]
    except (IndexError, TypeError, KeyError):
        size = len(sample) if hasattr(sample, "__len__") else 0
        raise DataError(
            f"data layer '{name}' reads field {index}, but samples have [{size}] fields: "
            f"sample {i}, of type {type(sample).__name__}, has {size}. Each sample is a "
            "tuple with a field per data layer (see the feeding argument)."
        ) from None
