"""Checks on what training, testing and inference read: readers, batches, empty sequences.

The feeder checks each field of each sample; this module checks the edges around it, so an
error says which pass and batch it came from and never surfaces as a tracer message:

- ``reader_batches`` iterates ``reader()``: a reader that is not callable or returns a
  non-iterable is a ``ReaderTypeError``; a batch that is not a non-empty sized
  collection of samples a ``DataError``; a reader that raises a ``ReaderError``
  naming the call and the batch, with the reader's own exception (and traceback) as its
  ``__cause__``; a reader that yields nothing warns or raises.
- ``numbered`` adds the batch number to the feeder's ``DataError``.
- ``nonempty_sequences`` lists the sequence data layers an empty sequence must not feed:
  those reaching a layer that picks or compares steps (``last_seq``, ``first_seq``, max
  pooling, CRF: ``HostChecks.needs_a_step``), where a sequence of no steps has no
  defined value.
- ``image_inputs`` gives the image each image layer reads a dense data layer as.
- ``id_limits`` gives the range of the ids of each data layer whose readers bound them
  otherwise than by the declared dim (a cost's label indexes its input's columns:
  ``HostChecks.id_bound``).

Example:
    ```python
    batches = reader_batches(reader, "train() pass 0", on_empty="warn")
    for feeds in map(numbered(feeder.convert, "train() pass 0"), batches):
        ...
    ```
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any

from paddle_lite._src.data_types import SequenceType
from paddle_lite._src.errors import DataError, DataWarning, PaddleLiteError, ReaderError
from paddle_lite._src.feeding.feeder import DataFeeder
from paddle_lite._src.feeding.lengths import check_lengths, length_checks
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.readers.decorator import ReaderTypeError, called
from paddle_lite._src.topology import Topology
from paddle_lite._src.tracebacks import user_stacklevel


def _show(value: Any, limit: int = 60) -> str:
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    return f"{type(value).__name__} {text[: limit - 3] + '...' if len(text) > limit else text}"


def _iterate(reader: Any, where: str) -> Iterator[Any]:
    if not callable(reader):
        raise ReaderTypeError(
            f"{where}: the reader must be callable (a reader creator's result, e.g. "
            f"paddle.batch(reader, 32)); received {_show(reader)}."
        )
    batches = called(reader, where)
    try:
        return iter(batches)
    except TypeError:
        raise ReaderTypeError(
            f"{where}: reader() returned {_show(batches)}, which is not iterable; a reader is "
            "a function returning an iterable of batches, e.g. paddle.batch(reader, 32)."
        ) from None


def check_batch(batch: Any, index: int, where: str) -> None:
    """A batch is a non-empty sized collection of samples (a list, by ``paddle.batch``)."""
    if isinstance(batch, (str, bytes)) or not isinstance(batch, Sized):
        raise DataError(
            f"{where}, batch {index}: received {_show(batch)}; a batch is a list of samples. "
            "Wrap a reader of samples with paddle.batch(reader, batch_size)."
        )
    if len(batch) == 0:
        raise DataError(f"{where}, batch {index}: the batch is empty; expected samples.")


def reader_batches(reader: Any, where: str, on_empty: str = "warn") -> Iterator[Any]:
    """The batches of ``reader()``, checked; the reader's failures become ``ReaderError``.

    Args:
        reader: the user's batch reader.
        where: the call reading it, for messages (``"train() pass 2"``).
        on_empty: ``"warn"`` (a ``DataWarning``) or ``"raise"`` (a ``DataError``)
            when the reader yields no batch at all.

    Yields:
        Each batch, unchanged.
    """
    batches = _iterate(reader, where)
    for index in itertools.count():
        try:
            batch = next(batches)
        except StopIteration:
            if index == 0:
                _empty(where, on_empty)
            return
        except PaddleLiteError:
            raise
        except Exception as err:
            raise ReaderError(
                f"{where}: the reader raised {type(err).__name__}: {err} while producing batch "
                f"{index} (the reader's traceback is above)."
            ) from err
        if type(batch) is not list or not batch:  # paddle.batch yields non-empty lists
            check_batch(batch, index, where)
        yield batch


def _empty(where: str, on_empty: str) -> None:
    message = (
        f"{where}: the reader yielded no batch. Check that the reader creator returns samples "
        "(an empty file, a firstn(..., 0) or a finished generator reused as a reader?)."
    )
    if on_empty == "raise":
        raise DataError(message)
    warnings.warn(message, DataWarning, stacklevel=user_stacklevel())


def numbered(convert: Callable[[Any], Any], where: str) -> Callable[[Any], Any]:
    """``convert``, with the batch's number (calls counted from 0) added to its DataErrors."""
    count = itertools.count()

    def convert_numbered(batch: Any) -> Any:
        index = next(count)
        try:
            return convert(batch)
        except DataError as err:
            if converts(convert, [batch]):
                raise DataError(
                    f"{where}, batch {index}: the reader yielded a single sample, "
                    f"{_show(batch)}, where a batch (a list of samples) belongs: wrap the "
                    "reader of samples with paddle.batch, e.g. "
                    "reader=paddle.batch(reader, batch_size=32)."
                ) from None
            raise DataError(f"{where}, batch {index}: {err}") from None

    return convert_numbered


def converts(convert: Callable[[Any], Any], batch: Any) -> bool:
    """Whether ``convert(batch)`` succeeds: a probe, after a batch failed, of what the
    user meant (its warnings are dropped)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            convert(batch)
        except Exception:
            return False
    return True


def explain_infer_input(
    err: DataError,
    topology: Topology,
    feeding: Any,
    input: Any,
) -> DataError:
    """``err`` (``infer``'s samples did not convert) said as the mistake it most often is:
    ``input`` given as one sample, or one sample's value, in place of a list of samples;
    or a cost inferred without the labels it reads (infer the layer it scores instead)."""
    try:
        convert = feeder_for(topology, feeding).convert
    except DataError:  # the feeding itself: err says so
        return err
    meanings = (
        ([input], "a single sample", "input=[sample]"),
        ([(input,)], "a single sample's value", "input=[(value,)]"),
    )
    if isinstance(input, list) and converts(convert, [(sample,) for sample in input]):
        return err  # samples given bare: err already says to wrap each one
    for meant, what, write in meanings:
        if converts(convert, meant):
            return DataError(
                f"infer(): input is {what}, {_show(input)}; input is a list of samples (one "
                f"batch): write {write}, e.g. input=[(x,) for x in xs]."
            )
    return _cost_without_labels(err, topology, feeding, input)


def _cost_without_labels(err: DataError, topology: Topology, feeding: Any, input: Any) -> DataError:
    """``err`` said as a cost inferred without its labels, where the samples do feed what
    the cost scores (its input); else ``err``."""
    costs = [o for o in topology.outputs if get_kind(o.kind).is_cost]
    if not costs:
        return err
    scored = [c.inputs[0] for c in costs]
    predictions = Topology([o for o in topology.outputs if o not in costs] + scored)
    if not converts(feeder_for(predictions, feeding).convert, input):
        return err
    labels = sorted(set(topology.data_layers()) - set(predictions.data_layers()))
    names = ", ".join(f"'{c.name}' ({c.kind})" for c in costs)
    inputs = ", ".join(f"'{s.name}'" for s in scored)
    why = str(err).rstrip(".")
    return DataError(
        f"infer(): output_layer {names} is a cost: it reads the label data layer(s) {labels} "
        f"too, which the samples do not feed ({why}). To predict, infer the layer the cost "
        f"scores, its input {inputs} (the layer passed to the cost as input=): "
        "paddle.infer(output_layer=prediction, ...); to compute the cost, give every sample "
        "its label too."
    )


def nonempty_sequences(topology: Topology) -> frozenset[str]:
    """The sequence data layers that reach a layer whose kind ``needs_a_step``
    (``HostChecks``)."""
    sources: dict[int, frozenset[str]] = {}  # node -> the sequence data layers it reads
    found: set[str] = set()
    for node in topology.nodes:  # inputs come before their users
        own = frozenset()
        if node.kind == "data" and node.attrs["type"].seq_type != SequenceType.NO_SEQUENCE:
            own = frozenset([node.name])
        sources[id(node)] = own.union(*(sources[id(i)] for i in node.inputs))
        if get_kind(node.kind).host.needs_a_step:
            found |= sources[id(node)]
    return frozenset(found)


def _reader_bound(node: Any, position: int) -> tuple[float, str] | None:
    """``(bound, reader)`` on the ids ``node`` reads at input ``position``: ``inf`` when it
    takes them as numbers; None when the data layer's declared dim bounds them."""
    bound = get_kind(node.kind).host.id_bound(position, [i.spec for i in node.inputs], node.attrs)
    if bound is None:
        return None
    if bound == math.inf:
        return math.inf, f"layer '{node.name}' reads them as numbers"
    return bound, f"layer '{node.name}' ({node.kind}) takes ids below {bound}"


def id_limits(topology: Topology) -> dict[str, tuple[int | None, str]]:
    """``{data layer: (limit, why)}`` for the data layers whose ids the layers reading them
    bound otherwise than by the declared dim; ``limit`` is the tightest reader's bound
    (None: no bound, every reader takes them as numbers) and ``why`` names that reader.

    As in v2, which never checked ids against the declared dim: a cost's label is below its
    input's width, a rank_cost label is a number. A reader sized by the declared dim (an
    embedding's rows, where XLA would clamp a larger id silently) bounds them by the dim;
    data layers not listed keep it."""
    readers: dict[str, list[tuple[float, str]]] = {}
    for node in topology.nodes:
        for position, inp in enumerate(node.inputs):
            if inp.kind == "data":
                declared = (inp.attrs["type"].dim, "")
                bound = _reader_bound(node, position) or declared
                readers.setdefault(inp.name, []).append(bound)
    limits = {}
    for name, bounds in readers.items():
        bound, why = min(bounds, key=lambda b: b[0])
        if why:  # a reader's own bound, not the declared dim
            limits[name] = (None if bound == math.inf else int(bound), why)
    return limits


def image_inputs(topology: Topology) -> dict[str, tuple[tuple[int, int, int], str]]:
    """``{data layer: ((C, H, W), layer)}`` for the dense data layers declaring no height
    and width that an image layer reads as its input image (``attrs["image"]``): the
    image that layer was built for (a square one). v2's DataFeeder gave a layer the
    height and width of samples of 2 or 3 dimensions instead, so the feeder refuses
    samples of other heights and widths rather than read them differently."""
    images = {}
    for node in topology.nodes:
        image = node.attrs.get("image") if node.inputs else None
        data = node.inputs[0] if image is not None else None
        if data is None or data.kind != "data" or not isinstance(image, tuple):
            continue
        if len(image) == 3 and not (data.attrs.get("height") and data.attrs.get("width")):
            images.setdefault(data.name, (tuple(image), node.name))
    return images


def feeder_for(topology: Topology, feeding: Any = None) -> DataFeeder:
    """The feeder of ``topology``'s data layers, refusing empty sequences where needed and
    bounding ids by the declared dim unless the layers reading them bound them otherwise
    (``id_limits``), and checking that the inputs of each recurrent group, and of
    each layer that pairs rows, have the same lengths (``feeding.lengths``)."""
    checks = length_checks(topology.nodes)
    return DataFeeder(
        topology.data_type(),
        feeding,
        nonempty=nonempty_sequences(topology),
        id_limits=id_limits(topology),
        images=image_inputs(topology),
        check=functools.partial(check_lengths, checks) if checks else None,
    )


def checked(
    reader: Any, convert: Callable[[Any], Any], where: str, on_empty: str = "warn"
) -> tuple[Iterable[Any], Callable[[Any], Any]]:
    """``(batches, convert)`` for ``prefetch``: ``reader_batches`` and ``numbered``."""
    return reader_batches(reader, where, on_empty), numbered(convert, where)
