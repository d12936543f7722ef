"""``event.gm``: v2's GradientMachine as training events expose it.

v2 passed its C++ GradientMachine to ``EndForwardBackward``, ``EndIteration`` and
``EndPass`` (``event.gm``); programs called ``event.gm.getLayerOutputs(name)`` to read
the values some layers had for the batch just trained (book chapter 6's score diffs,
the recommender's feature layers). ``GradientMachine`` gives that call its v2
result, and costs nothing until it is called: the trainer runs no extra device work
for it. When called, it runs one jitted forward pass (compiled once per set of
names) of those layers on that batch, in training mode with the PRNG key the step
used (so dropout draws the same masks and batch norm uses the batch's statistics).

The parameters it reads are the trainer's parameters right after that batch's
update (after the whole dispatch under ``steps_per_dispatch``): the step's own
parameters are donated to the update and gone. v2 read the values its forward pass
left, computed with the parameters from before the update; the two differ by one
update. ``GradientMachine.gradient`` (behind ``parameters.get_grad`` in an
``EndForwardBackward`` handler) is computed the same way: the gradient of the batch's
summed cost (and of the ``extra_layers`` costs the step trains), at those parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from paddle_lite._src import config
from paddle_lite._src.compile import cost_sum, forward
from paddle_lite._src.errors import LayerConfigError, TopologyError
from paddle_lite._src.graph import Layer
from paddle_lite._src.inference import output_fields, trim
from paddle_lite._src.kinds import get_kind
from paddle_lite._src.lowering import precision as precision_mod
from paddle_lite._src.lowering import xla_options
from paddle_lite._src.topology import Topology
from paddle_lite._src.training.chunks import Chunk, Feeds
from paddle_lite._src.training.device_state import DeviceState
from paddle_lite._src.training.steps import TrainState
from paddle_lite._src.values import VALID, Seq


class LayerForwards:
    """A trainer's jitted forward passes of sets of layers, compiled when first asked."""

    def __init__(self, topology: Topology, costs: Any = (), aux_costs: Any = ()) -> None:
        self.topology = topology
        self.costs = [*costs, *aux_costs]  # every cost layer the step trains
        self._jitted: dict[tuple[tuple[str, ...], str], Callable[..., Any]] = {}
        self._grads: dict[str, Callable[..., Any]] = {}

    def layers(self, names: tuple[str, ...]) -> list[Layer]:
        """The layers named ``names`` (the input of each ``max_id`` appended)."""
        wanted = [self.topology.get_layer(n) for n in names]
        return wanted + [w.inputs[0] for w in wanted if _reports_max(w)]

    def run(self, names: tuple[str, ...], params: Any, feeds: Any, key: Any) -> list[Any]:
        """The values of the layers ``names`` (and each ``max_id``'s input) on ``feeds``,
        computed at the ``paddle.init(precision=...)`` the training step runs at."""
        precision = config.get("precision", "float32")
        if (names, precision) not in self._jitted:
            self._jitted[names, precision] = self._compile(self.layers(names), precision)
        return self._jitted[names, precision](params, feeds, key)

    def gradients(self, trainable: Any, fixed: Any, feeds: Any, key: Any) -> dict[str, Any]:
        """``{name: d(summed cost)/d(name)}`` of the ``trainable`` parameters on ``feeds``
        (padding rows weigh 0), at the precision the training step runs at."""
        precision = config.get("precision", "float32")
        if precision not in self._grads:
            costs, names = self.costs, frozenset(c.name for c in self.costs)
            values = precision_mod.computed_at(
                precision, lambda p, f, k: forward(costs, p, f, k, "train", names)[0]
            )

            def total(trainable: Any, fixed: Any, feeds: Any, key: Any) -> Any:
                out = values({**fixed, **trainable}, feeds, key)
                return cost_sum(out, len(costs), feeds.get(VALID))

            self._grads[precision] = xla_options.jit(jax.grad(total))
        return self._grads[precision](trainable, fixed, feeds, key)

    @staticmethod
    def _compile(layers: list[Layer], precision: str) -> Callable[..., Any]:
        def values(params: Any, feeds: Any, key: Any) -> list[Any]:
            return forward(layers, params, feeds, key, "train")[0]

        return xla_options.jit(precision_mod.computed_at(precision, values))


class GradientMachine:
    """The batch a training step just ran, as v2's ``event.gm`` (see the module doc).

    Example:
        ```python
        def handler(event):
            if isinstance(event, paddle.event.EndIteration):
                out = event.gm.getLayerOutputs("score")["score"]["value"]  # [batch, size]
        ```
    """

    def __init__(
        self,
        forwards: LayerForwards,
        device: DeviceState,
        feeds: Callable[[], Feeds],
        step: int,
        size: int,
    ) -> None:
        self._forwards, self._device, self._feeds = forwards, device, feeds
        self._step, self._size = step, size
        self._grads: dict[str, np.ndarray] | None = None  # computed by the first gradient()

    def gradient(self, name: str) -> np.ndarray | None:
        """The gradient of the batch's summed cost with respect to parameter ``name``
        (float32, the parameter's shape), or None for one the step does not train
        (``is_static``, ``immutable_parameters``). See the module docstring."""
        if self._grads is None:
            state, key = self._live_state("parameters.get_grad")
            grads = self._forwards.gradients(state.trainable, state.fixed, self._feeds(), key)
            self._grads = {n: np.asarray(g, np.float32) for n, g in grads.items()}
        return self._grads.get(name)

    def _live_state(self, what: str) -> tuple[TrainState, Any]:
        """The trainer's state now, and the PRNG key the batch's step used; an error
        naming ``what`` outside the handler, when the trainer holds no state."""
        state = self._device.on_device_state()
        if state is None:
            raise TopologyError(
                f"{what} must be called inside the event handler that received it, while "
                "the trainer trains."
            )
        return state, jax.random.fold_in(state.key, self._step)

    def getLayerOutputs(self, layerNames: Any) -> dict[str, dict[str, Any]]:
        """``{name: {"value", "id", "prob"}}`` for the layers named ``layerNames`` (a name
        or a list of names), as v2's ``GradientMachine.getLayerOutputs``.

        ``value`` is a float32 ``[rows, size]`` array (rows: one per sample, one per
        step of every sequence, concatenated, or as many as a layer that changes the row
        count gives, such as ``resize``), ``id`` an int32 ``[rows]`` array for id
        layers (``max_id``, whose ``value`` is the largest probability), and a field
        the layer does not have is None.
        """
        names = _names(layerNames)
        state, key = self._live_state("event.gm.getLayerOutputs")
        params = {**state.fixed, **state.trainable}
        feeds = self._feeds()
        try:
            values = self._forwards.run(names, params, feeds, key)
        except RuntimeError as err:
            if "deleted" not in str(err):
                raise
            raise TopologyError(
                "event.gm.getLayerOutputs must be called inside the event handler that received it."
            ) from err
        values = self._real_rows(names, values, _batch_rows(feeds, self._size))
        out, sources = {}, iter(values[len(names) :])
        for name, value in zip(names, values, strict=False):
            layer = self._forwards.topology.get_layer(name)
            source = next(sources) if _reports_max(layer) else None
            out[name] = _v2_fields(layer, value, source)
        return out

    def _real_rows(self, names: tuple[str, ...], values: list[Any], total: int) -> list[Any]:
        """The rows of ``values`` that belong to the batch's real samples (a short batch
        is padded to ``total`` rows); an error where a layer's rows do not split."""
        kept = [trim(v, self._size, total) for v in values]
        layers = self._forwards.layers(names)
        for layer, value, k in zip(layers, values, kept, strict=True):
            if k is None:
                rows = np.shape(value.data if isinstance(value, Seq) else value)[0]
                raise LayerConfigError(
                    f"layer '{layer.name}' ({layer.kind}) gives {rows} rows for this batch "
                    f"of {self._size} samples padded to {total}; the real samples' share, "
                    f"{rows} * {self._size} / {total}, is not a whole number of rows (v2 "
                    "refused such a batch in the layer itself); use a batch size whose "
                    "values fill whole rows of the layer, or paddle.batch(..., "
                    "drop_last=True) to leave out the short last batch."
                )
        return kept


def _batch_rows(feeds: Any, size: int) -> int:
    """The rows of a batch as it ran: its padded size where the trainer padded it (the
    row weights' length), else its ``size`` samples."""
    valid = feeds.get(VALID) if isinstance(feeds, dict) else None
    return size if valid is None else int(np.shape(valid)[0])


def _reports_max(layer: Layer) -> bool:
    """Whether the layer's v2 output also holds its input's largest value (max_id)."""
    return get_kind(layer.kind).reports_input_max


def _v2_fields(layer: Layer, value: Any, source: Any) -> dict[str, Any]:
    """v2's ``{"value", "id", "prob"}`` of one layer output (absent fields None)."""
    fields = output_fields(layer, value, source)
    if _reports_max(layer):  # v2's MaxIdLayer keeps the maximum in its value
        return {"value": fields["prob"], "id": fields["id"], "prob": None}
    return {"value": fields.get("value"), "id": fields.get("id"), "prob": None}


def _names(layer_names: Any) -> tuple[str, ...]:
    if isinstance(layer_names, str):
        return (layer_names,)
    if isinstance(layer_names, (list, tuple)) and all(isinstance(n, str) for n in layer_names):
        return tuple(layer_names)
    raise TopologyError(
        f"getLayerOutputs takes a layer name or a list of layer names; received {layer_names!r}."
    )


def machines_for(
    forwards: LayerForwards, device: DeviceState, chunk: Chunk, first_step: int
) -> Callable[[int], GradientMachine]:
    """``i -> GradientMachine`` of batch ``i`` of a dispatched chunk (``training.chunks.Chunk``)
    whose first step was number ``first_step``; the trainer's device state holds the parameters
    (read when the machine is called)."""

    def machine(i: int) -> GradientMachine:
        feeds = lambda: chunk.feeds[i]  # noqa: E731
        return GradientMachine(forwards, device, feeds, first_step + i, chunk.sizes[i])

    return machine
