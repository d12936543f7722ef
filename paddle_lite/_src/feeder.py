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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from paddle_lite._src import config
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
    """Where an error happened: data layer, field index, type."""

    def __init__(self, name: str, index: int, tp: InputType) -> None:
        self.name, self.index, self.type = name, index, tp

    def error(self, what: str, sample: int | None = None) -> DataError:
        where = f"data layer '{self.name}' (field {self.index}"
        where += f", sample {sample})" if sample is not None else ")"
        return DataError(f"{where}: {what}; declared {self.type!r}.")


def _dense_rows(values: list[Any], field: _Field) -> np.ndarray:
    dim = field.type.dim
    try:
        arr = np.asarray(values, dtype=np.float32).reshape(len(values), -1)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape[1] != dim:
        for i, v in enumerate(values):
            try:
                size = np.asarray(v, dtype=np.float32).size
            except (TypeError, ValueError):
                raise field.error(f"received non-numeric values {v!r:.60}", i) from None
            if size != dim:
                raise field.error(f"received {size} values, expected {dim}", i)
    return arr


def _ids(values: list[Any], field: _Field) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except ValueError:
        raise field.error("ids are ragged; expected one int per sample") from None
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
            arr = arr.astype(np.int64)
        else:
            raise field.error(
                f"received {arr.dtype} values {arr.ravel()[:3].tolist()}..., expected ints"
            )
    flat = arr.reshape(-1)
    bad = np.nonzero((flat < 0) | (flat >= field.type.dim))[0]
    if bad.size:
        raise field.error(f"id {int(flat[bad[0]])} is outside [0, {field.type.dim})")
    return arr.astype(np.int32)


def _sparse(values: list[Any], field: _Field) -> Sparse:
    with_values = field.type.type == DataType.SparseValue
    k = pow2(max((len(v) for v in values), default=1))
    ids = np.zeros((len(values), k), np.int32)
    vals = np.zeros((len(values), k), np.float32)
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
        ids[i, : len(cols)] = _ids(list(cols), field)
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
    out = np.zeros((len(lengths), t) + flat.shape[1:], flat.dtype)
    start = 0
    for i, n in enumerate(lengths):
        out[i, :n] = flat[start : start + n]
        start += n
    return out


def _sequence(values: list[Any], field: _Field, bucket: Policy) -> Seq:
    for i, v in enumerate(values):
        if not isinstance(v, (list, tuple, np.ndarray)):
            raise field.error(
                f"expected a sequence (list of items), received {type(v).__name__}", i
            )
    lengths = [len(v) for v in values]
    flat = _items([item for v in values for item in v], field)
    data = _pad_steps(flat, lengths, bucket(max(lengths, default=1)))
    return Seq(data, np.asarray(lengths, np.int32))


def _nested(values: list[Any], field: _Field, bucket: Policy) -> Seq:
    subs = [[len(s) for s in v] for v in values]
    counts = [len(s) for s in subs]
    steps_per_sub = [n for s in subs for n in s]
    s_max = bucket(max(counts, default=1))
    flat = _items([item for v in values for s in v for item in s], field)
    steps = _pad_steps(flat, steps_per_sub, bucket(max(steps_per_sub, default=1)))
    sub_lengths = np.zeros((len(values), s_max), np.int32)
    for i, s in enumerate(subs):
        sub_lengths[i, : len(s)] = s
    data = _pad_steps(steps, counts, s_max)
    return Seq(data, np.asarray(counts, np.int32), sub_lengths)


def convert_field(
    values: list[Any], name: str, index: int, tp: InputType, bucket: Policy | None = None
) -> Any:
    """Convert one field of every sample of a batch; ``bucket`` pads sequence lengths."""
    field = _Field(name, index, tp)
    bucket = bucket or make_policy(None)
    if tp.seq_type == SequenceType.SEQUENCE:
        return _sequence(values, field, bucket)
    if tp.seq_type == SequenceType.SUB_SEQUENCE:
        return _nested(values, field, bucket)
    return _items(values, field)


def _column(column: Any, field: _Field, bucket: Policy) -> Any:
    """Convert a whole column of a pre-collated batch."""
    tp = field.type
    if not isinstance(column, np.ndarray) or tp.seq_type != SequenceType.NO_SEQUENCE:
        return convert_field(list(column), field.name, field.index, tp, bucket)
    if tp.type == DataType.Dense:
        if column.ndim < 1 or column[0].size != tp.dim:
            raise field.error(
                f"received a column of shape {column.shape}, expected [batch, {tp.dim}]"
            )
        return column.astype(np.float32).reshape(len(column), tp.dim)  # a copy
    if tp.type == DataType.Index:
        if column.ndim != 1 and column.shape[1:] != (1,):
            raise field.error(f"received a column of shape {column.shape}, expected [batch] ids")
        return _ids(column.reshape(-1), field).copy()
    return convert_field(list(column), field.name, field.index, tp, bucket)


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

    def __len__(self) -> int:
        return len(self.data_types)

    def __call__(self, batch: Sequence[Any]) -> dict[str, Any]:
        return self.convert(batch)

    def convert(self, batch: Any) -> dict[str, Any]:
        """``{data layer name: array}`` for a list of samples or a batch of columns."""
        if _is_columns(batch, len(self.data_types)):
            return self._convert_columns(batch)
        feeds = {}
        for name, tp in self.data_types:
            index = self.feeding[name]
            values = self._column(batch, name, index)
            feeds[name] = convert_field(values, name, index, tp, self.bucket)
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
            feeds[name] = _column(column, _Field(name, index, tp), self.bucket)
            sizes.add(len(column))
        if len(sizes) > 1:
            raise DataError(f"the batch's columns have different lengths {sorted(sizes)}.")
        return feeds

    @staticmethod
    def _column(batch: Sequence[Any], name: str, index: int) -> list[Any]:
        try:
            return [sample[index] for sample in batch]
        except (IndexError, TypeError):
            sizes = sorted({len(s) if hasattr(s, "__len__") else 0 for s in batch})
            raise DataError(
                f"data layer '{name}' reads field {index}, but samples have {sizes} fields."
            ) from None
