"""Inference (v2 ``paddle.infer`` and ``paddle.inference.Inference``).

The whole input runs as one batch, padded to a power-of-two size so inputs of
varying length reuse a handful of compiled programs.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import jax
import numpy as np

from paddle_lite._src import compile as compile_mod
from paddle_lite._src import config
from paddle_lite._src.arg_checks import not_their_network, renamed, require_parameters
from paddle_lite._src.compat import early_names
from paddle_lite._src.distributed.parallel import pad_rows
from paddle_lite._src.errors import (
    ArgumentTypeError,
    DataError,
    DataWarning,
    ParameterError,
    TopologyError,
)
from paddle_lite._src.feeding.buckets import pow2
from paddle_lite._src.feeding.checks import explain_infer_input, feeder_for
from paddle_lite._src.files.params import source_name
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers.recurrent.beam_search import BeamResult
from paddle_lite._src.layers.recurrent.generation import beam_fields
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.proto import inference_file as v2_inference_file
from paddle_lite._src.proto import inference_payload as v2_inference_payload
from paddle_lite._src.readers.minibatch import batch
from paddle_lite._src.topology import Topology, load_inference_topology
from paddle_lite._src.tracebacks import api_boundary, user_stacklevel
from paddle_lite._src.values import Seq

FIELDS = ("value", "id", "prob")


def _as_fields(field: Any) -> list[str]:
    fields = list(field) if isinstance(field, (list, tuple)) else [field]
    for f in fields:
        if f not in FIELDS:
            raise DataError(f"infer field must be one of {FIELDS}; received {f!r}.")
    return fields


class Inference:
    """A reusable inference program for ``output_layer`` with ``parameters``.

    Args:
        parameters: a ``Parameters`` holding what the outputs need (copied at creation).
        output_layer: a layer or a list of layers.
        fileobj: instead of ``output_layer``, a stream written by
            ``Topology.serialize_for_inference`` — paddle_lite's, or v2's pickled
            ModelConfig (read without running code; see ``proto.inference_file``).
        output: ``output_layer``'s name in the v2 of early 2017.

    Example:
        ```python
        inferer = paddle.inference.Inference(parameters=params, output_layer=prediction)
        probs = inferer.infer(input=[(image,) for image in images])
        ```
    """

    @api_boundary
    def __init__(
        self,
        parameters: Parameters,
        output_layer: Any = None,
        fileobj: Any = None,
        output: Any = None,
    ) -> None:
        where = "paddle.inference.Inference"
        output_layer = renamed(output_layer, output, ("output_layer", "output"), where)
        require_parameters(parameters, where)
        if output_layer is not None:
            topology = Topology(output_layer)
        elif fileobj is not None:
            topology = _file_topology(fileobj)
        else:
            raise ValueError("Inference needs output_layer or fileobj; neither was given.")
        self.topology = topology
        self.outputs: list[Layer] = list(topology.outputs)
        missing = [n for n in topology.params if n not in parameters]
        if missing:
            raise ParameterError(not_their_network(topology, parameters, missing))
        _check_shapes(topology, parameters)
        self._params: dict[str, Any] = {}
        self.load(parameters)
        self._forward = compile_mod.make_infer(self._needed(), config.get("precision", "float32"))

    @api_boundary
    def load(self, parameters: Parameters) -> None:
        """Copy the values the outputs need from ``parameters`` (no recompilation), all as
        of one moment (a trainer training them in another thread: after one whole step)."""
        values = parameters.values()
        self._params = {n: jax.device_put(values[n]) for n in self.topology.params}

    def _needed(self) -> list[Layer]:
        """The outputs, plus the input of each ``max_id`` (its ``prob`` field)."""
        extra = [o.inputs[0] for o in self.outputs if o.kind == "maxid"]
        return self.outputs + extra

    def _run(self, input: Sequence[Any], feeding: Any) -> list[Any]:
        """The output values of the samples ``input``: run padded to a power-of-two batch
        (the added rows weigh 0, so batch statistics leave them out), or, where some
        output's rows do not split into samples, as it is (v2's batch)."""
        _check_samples(input)
        try:
            feeds = feeder_for(self.topology, feeding).convert(input)
        except DataError as err:
            raise explain_infer_input(err, self.topology, feeding, input) from None
        n = len(input)
        total = pow2(n)
        values = [trim(v, n, total) for v in self._forward(self._params, pad_rows(feeds, total))]
        if any(v is None for v in values):
            values = [trim(v, n, n) for v in self._forward(self._params, feeds)]
        return values

    @api_boundary
    def iter_infer(
        self, input: Sequence[Any], feeding: Any = None
    ) -> Iterator[list[dict[str, Any]]]:
        """Yield, for the (single) batch, one ``{field: array}`` per output layer."""
        values = self._run(input, feeding)
        n = len(self.outputs)
        sources = iter(values[n:])  # the input of each max_id output, in order (_needed)
        yield [
            output_fields(layer, value, next(sources) if layer.kind == "maxid" else None)
            for layer, value in zip(self.outputs, values[:n], strict=True)
        ]

    @api_boundary
    def iter_infer_field(self, field: Any, **kwargs: Any) -> Iterator[list[Any]]:
        """Like ``iter_infer``, yielding only ``field`` (``"value"``, ``"id"``, ``"prob"``
        or a list of them) of each output, batch by batch."""
        fields = _as_fields(field)
        for result in self.iter_infer(**kwargs):
            for each in result:
                yield [_pick(each, f) for f in fields]

    @api_boundary
    def infer(
        self,
        input: Sequence[Any],
        field: Any = "value",
        flatten_result: bool = True,
        feeding: Any = None,
    ) -> Any:
        """v2 ``infer``: per field, the outputs of all output layers concatenated on axis 0.

        Returns:
            One array for a single field, else a list (one per field); ``[]`` for an
            empty input.
        """
        _check_samples(input)
        if len(input) == 0:
            return []
        retv: list[list[Any]] | None = None
        for result in self.iter_infer_field(field=field, input=input, feeding=feeding):
            retv = retv or [[] for _ in result]
            for i, item in enumerate(result):
                retv[i].append(item)
        fields = _as_fields(field)
        if flatten_result:
            retv = [
                _flattened(items, self.outputs, f) for items, f in zip(retv, fields, strict=True)
            ]
        else:
            for items, f in zip(retv, fields, strict=True):
                missing = _absent(items, self.outputs, f)
                if missing:  # v2 returned None there too
                    message = f"infer(): {missing}; its entry is None."
                    warnings.warn(message, DataWarning, user_stacklevel())
        return retv[0] if len(retv) == 1 else retv


def _check_samples(input: Any) -> None:
    """Raise ``ArgumentTypeError`` unless ``input`` is a list of samples (v2 took
    ``len(input)`` and made one batch of them)."""
    if not (hasattr(input, "__len__") and hasattr(input, "__getitem__")):
        raise ArgumentTypeError(
            f"infer(): input must be a list of samples (one batch, as in v2); received "
            f"{type(input).__name__}. Pass list(...) of it, or a reader as "
            "paddle.infer(output_layer, parameters, reader=..., batch_size=...)."
        )


def _file_topology(fileobj: Any) -> Topology:
    """The topology of a stream from ``serialize_for_inference``: paddle_lite's JSON, or
    the pickled ModelConfig v2 wrote (read with ``proto.inference_payload``, rebuilt with
    ``proto.inference_file``)."""
    where = source_name(fileobj)
    data = fileobj.read() if hasattr(fileobj, "read") else fileobj
    try:
        if isinstance(data, bytes) and v2_inference_payload.is_v2_inference_file(data):
            payload = v2_inference_payload.load_payload(data, f"v2 inference file {where}")
            return v2_inference_file.rebuild(*payload)
        return load_inference_topology(data)
    except TopologyError as err:
        if where in str(err):
            raise
        raise TopologyError(f"inference file {where}: {err}") from None


def _check_shapes(topology: Topology, parameters: Parameters) -> None:
    """Every parameter the topology declares must have that shape in ``parameters``."""
    wrong = [
        f"'{name}': topology {tuple(spec.shape)}, parameters {parameters.get_shape(name)}"
        for name, spec in topology.params.items()
        if tuple(spec.shape) != parameters.get_shape(name)
    ]
    if wrong:
        raise ParameterError(
            f"the parameters do not fit this topology ({'; '.join(wrong)}); load the "
            "parameters saved with this network."
        )


def real_rows(rows: int, n: int, total: int) -> int | None:
    """How many of an output's ``rows`` belong to the first ``n`` samples of a batch of
    ``total`` (the rest repeat a sample to pad a short batch), or None where that is not
    a whole number of rows.

    A layer may change the row count (``resize`` re-cuts the batch matrix,
    ``switch_order`` gives a row per pixel); its rows keep the samples' order and each
    sample has the same share of them, so the first ``rows * n / total`` are the real
    samples'.
    """
    if n >= total:
        return rows
    kept, rest = divmod(rows * n, total)
    return None if rest else kept


def trim(value: Any, n: int, total: int) -> Any:
    """The rows of an output value that belong to the first ``n`` samples of a batch of
    ``total``, on the host (see ``real_rows``); None where they do not split."""
    if isinstance(value, BeamResult):
        return BeamResult(*(np.asarray(v)[:n] for v in value))
    if isinstance(value, Seq):
        data = np.asarray(value.data)
        k = real_rows(data.shape[0], n, total)
        if k is None:
            return None
        sub = None if value.sub_lengths is None else np.asarray(value.sub_lengths)[:k]
        return Seq(data[:k], np.asarray(value.lengths)[:k], sub)
    value = np.asarray(value)
    k = real_rows(value.shape[0], n, total)
    return None if k is None else value[:k]


def seq_rows(value: Seq) -> np.ndarray:
    """The steps of a padded batch of sequences as rows, one after another, as v2 holds
    them: a nested sequence gives the steps of each sub-sequence in turn."""
    data = np.asarray(value.data)
    if value.sub_lengths is None:
        return np.concatenate([data[i, :k] for i, k in enumerate(value.lengths)], axis=0)
    sub = np.asarray(value.sub_lengths)
    rows = [
        data[i, s, : sub[i, s]] for i, k in enumerate(np.asarray(value.lengths)) for s in range(k)
    ]
    return np.concatenate(rows, axis=0) if rows else data.reshape(0, *data.shape[3:])


def output_fields(layer: Layer, value: Any, source: Any) -> dict[str, Any]:
    """The v2 fields (``value``, ``id``, ``prob``) of one output value: sequences as
    their steps' rows concatenated; ``source`` is the input of a ``max_id`` output."""
    if isinstance(value, BeamResult):
        return beam_fields(value)
    if isinstance(value, Seq):
        value = seq_rows(value)
    if layer.kind == "maxid":
        probs = seq_rows(source) if isinstance(source, Seq) else np.asarray(source)
        return {"id": value, "prob": np.max(probs, axis=-1, keepdims=True)}
    if layer.spec.dtype == "int32":
        return {"id": value}
    return {"value": value}


def _flattened(items: list[Any], outputs: list[Layer], field: str) -> np.ndarray:
    """``field`` of every output layer in one array along axis 0, as v2 returned it
    (``flatten_result=True``); a clear error where their widths differ or one has no
    such field (v2's numpy.concatenate failed on its None)."""
    missing = _absent(items, outputs, field)
    if missing:
        raise TopologyError(f"{missing}; ask for the fields it has (see paddle.infer's field).")
    try:
        return np.concatenate(items, axis=0)
    except ValueError:
        names = [o.name for o in outputs]
        shapes = [np.shape(v) for v in items]  # one per output layer (a single batch)
        raise TopologyError(
            f"infer(): the '{field}' outputs of {names} have shapes {shapes}, which do not "
            "stack into one array along axis 0 (v2's infer concatenated them); infer each "
            "layer on its own, or use "
            "paddle.inference.Inference(...).infer(..., flatten_result=False) for one array "
            "per output layer."
        ) from None


def _pick(result: dict[str, Any], field: str) -> Any:
    """``field`` of one output, or None where the layer has no such field (v2's
    ``Arguments`` gave None, e.g. for the ``id`` of a dense layer)."""
    return result.get(field)


def _absent(items: list[Any], outputs: list[Layer], field: str) -> str | None:
    """A sentence naming the output layer without ``field`` among ``items`` (one per
    output layer per batch), or None when every item has it."""
    for i, item in enumerate(items):
        if item is None:
            layer = outputs[i % len(outputs)]
            return f"layer '{layer.name}' ({layer.kind}) has no '{field}' output"
    return None


@api_boundary
def infer(
    output_layer: Any = None,
    parameters: Parameters | None = None,
    input: Sequence[Any] | None = None,
    feeding: Any = None,
    field: Any = "value",
    **early: Any,
) -> Any:
    """Run ``output_layer`` on ``input`` (a list of samples, one batch).

    Args:
        output_layer: a layer or a list of layers (any intermediate layer too).
        parameters: the trained ``Parameters``.
        input: samples as tuples of the input fields the outputs need.
        feeding: ``{data layer name: field index}``; default: data-layer order.
        field: ``'value'``, ``'id'`` (``max_id`` outputs), ``'prob'``, or a list.
        **early: the arguments of the v2 of early 2017: ``output`` (``output_layer``),
            ``reader_dict`` (``feeding``), and ``reader``, a reader of batches (or, with
            ``batch_size``, of samples) in place of ``input``; its samples run as one
            input, so the result is the batches' results concatenated.

    Returns:
        A numpy array for one field (outputs concatenated on axis 0), else a list.

    Example:
        ```python
        probs = paddle.infer(output_layer=predict, parameters=params, input=[(img,)])
        ```
    """
    output_layer, input, feeding = _early_arguments(output_layer, input, feeding, early)
    require_parameters(parameters, "paddle.infer")
    cache = parameters.cache("inferers")
    outputs = tuple(output_layer) if isinstance(output_layer, (list, tuple)) else (output_layer,)
    key = tuple(id(o) for o in outputs)
    entry = cache.get(key)
    if entry is None:
        inferer = Inference(parameters, list(outputs))
        entry = cache.setdefault(key, [inferer, parameters.version, outputs, threading.Lock()])
    with entry[3]:  # one thread at a time per cached inferer
        version = parameters.version
        if entry[1] != version or parameters.holder is not None:
            entry[0].load(parameters)
            entry[1] = version
        return entry[0].infer(input=input, field=field, feeding=feeding)


_EARLY = ("output", "reader", "batch_size", "reader_dict")


def _early_arguments(
    output_layer: Any, input: Any, feeding: Any, early: dict[str, Any]
) -> tuple[Any, Any, Any]:
    """``(output_layer, input, feeding)`` from today's arguments or early 2017's."""
    unknown = sorted(set(early) - set(_EARLY))
    if unknown:
        raise TypeError(f"infer() got unexpected keyword arguments {unknown}.")
    where = "paddle.infer"
    output_layer = renamed(output_layer, early.get("output"), ("output_layer", "output"), where)
    feeding = renamed(feeding, early.get("reader_dict"), ("feeding", "reader_dict"), where)
    reader = early.get("reader")
    if reader is None and callable(input):  # infer(output, parameters, reader) by position
        reader, input = input, None
    if reader is not None:
        if input is not None:
            raise ArgumentTypeError(f"{where} received both input= and reader=; pass one.")
        when = early_names.ARGUMENTS["reader"][1]
        early_names.warn_renamed(f"{where}: reader=", "input=<a list of samples>", when)
        size = early.get("batch_size")
        batches = reader() if size is None else batch(reader, size)()
        input = [sample for minibatch in batches for sample in minibatch]
    if output_layer is None or input is None:
        raise ArgumentTypeError(f"{where} needs output_layer= and input= (samples).")
    return output_layer, input, feeding
