"""Convert minibatches into device-ready numpy arrays (v2 ``DataFeeder``).

A v2 minibatch is a list of samples, each a tuple of fields; ``feeding`` says which
field feeds which data layer. Dense fields become float32 ``[batch, dim]``, ids int32
``[batch]``, sparse fields ``Sparse``, sequences ``Seq`` padded to a length
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

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from paddle_lite._src import config
from paddle_lite._src.data_types import DataType, InputType, SequenceType
from paddle_lite._src.errors import DataError, DataWarning
from paddle_lite._src.feeding.aligned import aligned_copy, aligned_zeros
from paddle_lite._src.feeding.buckets import Policy, make_policy
from paddle_lite._src.feeding.dense_rows import check_image_shape
from paddle_lite._src.feeding.field_context import Field
from paddle_lite._src.feeding.fields import feeding_index
from paddle_lite._src.feeding.ids import ids_of
from paddle_lite._src.feeding.items import convert_items, item_converter
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import Seq, Sparse


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


def _located(flat: list[Any], samples: list[Any], field: Field, unit: str) -> Any:
    """``convert_items(flat)``; on a bad item, the error names its sample and position in it."""
    try:
        return convert_items(flat, field)
    except DataError:
        for i, sample in enumerate(samples):
            convert_items(list(sample), field.at(i, unit))  # raises for the first bad sample
        raise


_STEPS = (list, tuple, np.ndarray)
_NOT_STEPS = (str, bytes, Mapping)
_NEEDS_A_STEP = (
    "; this network feeds it to a layer that needs at least one step (last_seq, first_seq, "
    "max pooling or a CRF): drop or pad the sample"
)


def _as_steps(v: Any, field: Field, i: int, j: int | None = None) -> Any:
    """The steps of sample ``i`` (its sub-sequence ``j``) as a list: any iterable but a
    string or a dict (v2 took a ``range``, a ``deque``, an ``array.array``; a ``map`` was
    a list in Python 2); a set is named in a ``DataWarning`` (its steps come in its
    iteration order); anything else is a ``DataError``."""
    if isinstance(v, _STEPS):
        return v
    if isinstance(v, Iterable) and not isinstance(v, _NOT_STEPS):
        if isinstance(v, (set, frozenset)):
            warnings.warn(
                f"data layer '{field.name}' (field {field.index!r}) received a sequence given "
                "as a set: its steps come in the set's iteration order, without duplicates; "
                "pass a list.",
                DataWarning,
                stacklevel=user_stacklevel(),
            )
        return list(v)
    if j is None:
        raise field.error(f"expected a sequence (list of items), received {type(v).__name__}", i)
    raise field.error(
        f"expected a list of sub-sequences; sub-sequence {j} is a {type(v).__name__}", i
    )


def _check_steps(values: list[Any], field: Field, nonempty: bool, nested: bool) -> None:
    """Every sample is a list of steps (of lists of steps when nested), non-empty if asked;
    other iterables are made lists in place (``_as_steps``)."""
    for i, v in enumerate(values):
        if not isinstance(v, _STEPS):
            v = values[i] = _as_steps(v, field, i)
        if nonempty and len(v) == 0:
            raise field.error("the sequence is empty" + _NEEDS_A_STEP, i)
        for j, sub in enumerate(v if nested else ()):
            if not isinstance(sub, _STEPS):
                if type(v) is not list:
                    v = values[i] = list(v)
                sub = v[j] = _as_steps(sub, field, i, j)
            if nonempty and len(sub) == 0:
                raise field.error(f"sub-sequence {j} is empty" + _NEEDS_A_STEP, i)


def _sequence(values: list[Any], field: Field, bucket: Policy, nonempty: bool = False) -> Seq:
    _check_steps(values, field, nonempty, nested=False)
    lengths = [len(v) for v in values]
    flat = _located([item for v in values for item in v], values, field, "step")
    data = _pad_steps(flat, lengths, bucket(max(lengths, default=1)))
    return Seq(data, np.asarray(lengths, np.int32))


def _nested(values: list[Any], field: Field, bucket: Policy, nonempty: bool = False) -> Seq:
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


def field_converter(field: Field, bucket: Policy, nonempty: bool = False) -> tuple[Any, tuple]:
    """``(function, args)``: ``function(values, *args)`` converts ``field``'s values for a
    batch (one per sample)."""
    if field.type.seq_type == SequenceType.SEQUENCE:
        return _sequence, (field, bucket, nonempty)
    if field.type.seq_type == SequenceType.SUB_SEQUENCE:
        return _nested, (field, bucket, nonempty)
    return item_converter(field), (field,)


def _column(column: Any, field: Field, bucket: Policy, nonempty: bool) -> Any:
    """Convert a whole column of a pre-collated batch."""
    tp = field.type
    if not isinstance(column, np.ndarray) or tp.seq_type != SequenceType.NO_SEQUENCE:
        return _per_sample(list(column), field, bucket, nonempty)
    if tp.type == DataType.Dense:
        check_image_shape(column.shape[1:], field, None)
        if column.ndim < 1 or column[0].size != tp.dim:
            one = column.shape == (tp.dim,)  # one sample's field, read as a batch's column
            hint = (
                " (a single sample: a reader of samples is wrapped with "
                "paddle.batch(reader, batch_size))"
            )
            raise field.error(
                f"received a column of shape {column.shape}, expected [batch, {tp.dim}]"
                + (hint if one else "")
            )
        return aligned_copy(column.reshape(len(column), tp.dim), np.float32)
    if tp.type == DataType.Index:
        if column.ndim != 1 and column.shape[1:] != (1,):
            raise field.error(f"received a column of shape {column.shape}, expected [batch] ids")
        return ids_of(column.reshape(-1), field)  # a fresh array
    return _per_sample(list(column), field, bucket, nonempty)


def _per_sample(values: list[Any], field: Field, bucket: Policy, nonempty: bool) -> Any:
    function, args = field_converter(field, bucket, nonempty)
    return function(values, *args)


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

    Ids are refused below 0 and at or past the declared dim, except for the data layers in
    ``id_limits`` (``{name: (limit, why)}``, from ``checks.id_limits``: the layers
    reading them bound them otherwise), whose ids must be below ``limit`` (None: any) and
    past the dim are accepted with one ``DataWarning`` a field; ``unbounded`` names data
    layers whose ids have no upper bound. ``nonempty`` names the sequence data layers an
    empty sequence must not feed. ``images`` (``{name: ((C, H, W), layer)}``, from
    ``checks.image_inputs``) gives the image a layer reads a dense data layer as:
    samples of 2 or 3 dimensions must end in its height and width.

    Example:
        ```python
        feeder = DataFeeder([("x", dense_vector(2)), ("y", integer_value(3))], {"x": 0, "y": 1})
        feeds = feeder([([0.1, 0.2], 1), ([0.3, 0.4], 2)])
        ```
    """

    def __init__(
        self,
        data_types: Sequence[tuple[str, InputType]],
        feeding: Any = None,
        seq_buckets: Any = None,
        *,
        nonempty: Iterable[str] = (),
        unbounded: Iterable[str] = (),
        id_limits: Mapping[str, tuple[int | None, str]] | None = None,
        images: Mapping[str, tuple[tuple[int, int, int], str]] | None = None,
        check: Callable[[dict[str, Any]], None] | None = None,
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
        # ids bounded by the layers reading them, not the declared dim (``id_limits``)
        self.id_limits = dict(id_limits or {})
        for name in unbounded:
            self.id_limits[name] = (None, "every layer reading them takes them as numbers")
        self.images = dict(images or {})
        self.check = check  # a check of the converted batch as a whole (host numpy arrays)
        # Built once, so a batch only reads its fields and calls their converters.
        self._fields = [self._field(name, tp) for name, tp in self.data_types]
        indices = [index for _, index, *_ in self._fields]
        self._shared = {index for index in indices if indices.count(index) > 1}

    def _field(self, name: str, tp: InputType) -> tuple[str, int, Field, Any, tuple]:
        """``(name, field index, Field, converter, its arguments)`` of one data layer."""
        limit, image = self.id_limits.get(name), self.images.get(name)
        field = Field(name, self.feeding[name], tp, limit=limit, image=image)
        return (
            name,
            field.index,
            field,
            *field_converter(field, self.bucket, name in self.nonempty),
        )

    def __len__(self) -> int:
        return len(self.data_types)

    def __call__(self, batch: Sequence[Any]) -> dict[str, Any]:
        return self.convert(batch)

    def convert(self, batch: Any) -> dict[str, Any]:
        """``{data layer name: array}`` for a list of samples or a batch of columns."""
        if type(batch) is not list:
            if _is_columns(batch, len(self.data_types)):
                return self._convert_columns(batch)
            batch = _samples(batch)
        if len(batch) == 0:
            raise DataError(
                "the batch is empty; a batch is a non-empty list of samples "
                "(paddle.batch never yields an empty one)."
            )
        feeds, reused = {}, {}
        for name, index, _, convert, args in self._fields:
            try:
                values = [sample[index] for sample in batch]
            except (IndexError, TypeError, KeyError):
                values = [_field_of(sample, i, name, index) for i, sample in enumerate(batch)]
            if index in self._shared:  # read by several data layers: iterators once
                if index not in reused:
                    reused[index] = [_reusable(v) for v in values]
                values = list(reused[index])
            try:
                feeds[name] = convert(values, *args)
            except DataError as err:
                raise _bare_array_hint(err, batch[0]) from None
        if self.check is not None:
            self.check(feeds)
        return feeds

    @property
    def fixed_shapes(self) -> bool:
        """Whether every batch of a size converts to arrays of the same shapes (no
        sequence and no sparse field, whose padded lengths follow the samples)."""
        return all(
            tp.seq_type == SequenceType.NO_SEQUENCE and tp.type in (DataType.Dense, DataType.Index)
            for _, tp in self.data_types
        )

    def samples_in(self, batch: Any) -> int:
        """How many samples ``batch`` (a list of samples, or columns) holds, unconverted."""
        if type(batch) is not list and _is_columns(batch, len(self.data_types)):
            columns = list(batch.values()) if isinstance(batch, Mapping) else batch
            return len(columns[0]) if len(columns) else 0
        return len(_samples(batch))

    def _convert_columns(self, batch: Any) -> dict[str, Any]:
        feeds, sizes = {}, set()
        for name, _, field, _, _ in self._fields:
            if isinstance(batch, Mapping):
                if name not in batch:
                    raise DataError(
                        f"the batch dict has no column for data layer '{name}'; its keys are "
                        f"{sorted(batch)}."
                    )
                column = batch[name]
            else:
                column = batch[field.index]
            feeds[name] = _column(column, field, self.bucket, name in self.nonempty)
            sizes.add(len(column))
        if len(sizes) > 1:
            raise DataError(f"the batch's columns have different lengths {sorted(sizes)}.")
        if self.check is not None:
            self.check(feeds)
        return feeds


def _reusable(value: Any) -> Any:
    """``value`` with every iterator in it (at any depth of lists and tuples) made a list,
    so that each data layer reading one field sees all its items."""
    if isinstance(value, Iterator):
        value = list(value)
    elif not isinstance(value, (list, tuple)):
        return value
    items = [_reusable(item) for item in value]
    if all(a is b for a, b in zip(items, value, strict=True)):
        return value
    return items


def _samples(batch: Any) -> Any:
    """The samples of a batch that is not a list: an iterator's as a list (v2's feeder
    listed the samples it was given, so a generator served); sized batches as they are."""
    if hasattr(batch, "__len__"):
        return batch
    try:
        return list(batch)
    except TypeError:
        raise DataError(
            f"received a batch of type {type(batch).__name__}; a batch is a list of samples."
        ) from None


def _bare_array_hint(err: DataError, sample: Any) -> DataError:
    """``err``, with a hint when samples are bare numpy arrays (indexed as their fields)."""
    if not isinstance(sample, np.ndarray):
        return err
    return DataError(
        f"{err} The samples are numpy arrays of shape {sample.shape}, so their elements were "
        "read as fields: a sample is a tuple with one field per data layer; wrap an array "
        "that is one field, e.g. (image,)."
    )


def _field_of(sample: Any, i: int, name: str, index: Any) -> Any:
    """Field ``index`` of sample ``i``, or a ``DataError`` saying what the sample is."""
    try:
        return sample[index]
    except (IndexError, TypeError, KeyError):
        if isinstance(sample, Mapping):
            raise DataError(
                f"data layer '{name}' reads field {index!r}, but sample {i} is a dict with keys "
                f"{sorted(map(str, sample))[:8]}: map each data layer to its key with "
                "feeding={'layer': 'key', ...} (v2 read sample[feeding[layer]])."
            ) from None
        size = len(sample) if hasattr(sample, "__len__") else 0
        hint = ""
        if isinstance(sample, (int, float, np.number)):
            hint = (
                " A sample that is a single number often means the reader yields samples, "
                "not batches: wrap it with paddle.batch(reader, batch_size)."
            )
        raise DataError(
            f"data layer '{name}' reads field {index!r}, but samples have [{size}] fields: "
            f"sample {i}, of type {type(sample).__name__}, has {size}. Each sample is a "
            f"tuple with a field per data layer (see the feeding argument).{hint}"
        ) from None
