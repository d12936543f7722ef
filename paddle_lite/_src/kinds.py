"""The layer-kind contract and its registry.

A kind computes one family of layers, and its class is everything the library knows
about them. Three methods compute:

- ``infer_spec(inputs, attrs) -> Spec``: the output spec from the input specs,
  raising ``LayerConfigError`` on a mismatch;
- ``param_specs(inputs, attrs) -> list[ParamDecl]``: the parameters it owns
  (role, shape, which user attribute configures it, default init);
- ``apply(params, inputs, attrs, *, key, mode)``: the output from the input values
  and the parameters (``{role: array}``), pure ``jax.numpy``. ``mode`` is
  ``"train"`` or ``"test"``; ``key`` a PRNG key or None.

and class attributes declare the rest, each with a default that fits most kinds:

- flags: ``stateful``, ``is_cost``, ``uses_row_weights``, ``per_row``,
  ``reports_input_max`` (see ``Kind``), and ``channels_last(attrs, ...)``;
- ``host``: a ``HostChecks``, what the host checks in each batch before it reaches a
  layer of the kind (ids below a bound, sequence lengths that must agree);
- ``v2``: a ``V2Layer``, how v2's ModelConfig writes such a layer and how a v2
  inference file's LayerConfig rebuilds it.

The layer's activation, ``ExtraAttr(drop_rate)`` and ``ExtraAttr(error_clipping_threshold)``
are applied after ``apply`` by ``run_layer.run``, so kinds compute the pre-activation value
(bias included). Users may register their own kinds with ``register_kind``.

Example:
    ```python
    class Double(Kind):
        name = "double"
        per_row = True
        host = HostChecks(keeps_lengths=True)

        def infer_spec(self, inputs, attrs):
            return inputs[0]

        def apply(self, params, inputs, attrs, *, key, mode):
            return with_data(inputs[0], 2 * data_of(inputs[0]))

    register_kind(Double())
    ```
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from paddle_lite._src.errors import LayerConfigError, LayerConfigWarning, did_you_mean
from paddle_lite._src.graph import Layer
from paddle_lite._src.specs import InitSpec, Spec
from paddle_lite._src.tracebacks import user_stacklevel


# parameters ---------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ParamAttrAt:
    """The parameter is configured by the layer's ``param_attr`` number ``index`` (one
    per input: the weight of input ``index``)."""

    index: int = 0


@dataclasses.dataclass(frozen=True)
class BiasAttr:
    """The parameter is configured by the layer's ``bias_attr``."""


@dataclasses.dataclass(frozen=True)
class Fixed:
    """No user attribute configures the parameter: internal state named after the layer
    only (batch-norm moving statistics, the parameters a recurrent group holds for its
    step's layers)."""


ParamSource = ParamAttrAt | BiasAttr | Fixed


@dataclasses.dataclass(frozen=True)
class ParamDecl:
    """One parameter a kind owns.

    ``role`` names it inside the layer (``w0``, ``wbias``); ``attr`` says which user
    attribute configures it (``ParamAttrAt(i)``, ``BiasAttr()`` or ``Fixed()``).
    ``default`` is the init when the user asks for none; ``static`` forces ``is_static``.
    """

    role: str
    shape: tuple[int, ...]
    attr: ParamSource
    default: InitSpec
    static: bool = False


# what the host checks -----------------------------------------------------------------
class LengthRule:
    """A rule on each sample's length in one sequence input of a layer, which the host
    checks where the lengths are a data layer's (``feeding.lengths``).

    ``position`` is the input; ``broken(lengths)`` marks, among ``[batch]`` lengths, the
    samples that break the rule; ``says(row, length)`` ends the error for sample ``row``
    of ``length`` steps (it follows "input <i> '<name>' (data layer '<data>') ").
    Subclasses are frozen dataclasses (``CostKind``'s one row per sample, ``seq_reshape``'s
    whole new steps).
    """

    position: int

    def broken(self, lengths: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def says(self, row: int, length: int) -> str:
        raise NotImplementedError


class GroupStep(NamedTuple):
    """The step a recurrent group runs: its in-link placeholders (one per group input
    split into steps, which come first among the group's inputs) and its layers."""

    inlinks: tuple[str, ...]
    nodes: Sequence[Layer]


@dataclasses.dataclass(frozen=True)
class HostChecks:
    """What the host checks in each batch before it reaches a layer of a kind.

    In the jitted program ids and lengths are data and nothing can be raised, so what a
    layer needs of them is checked where the feeder has just converted a batch, on the
    data layers they come from (``feeding.checks``, ``feeding.lengths``). Everything
    defaults to "nothing to check"; a kind sets ``host = HostChecks(...)``, or an instance
    of a subclass overriding the methods it needs.

    Fields:
        keeps_lengths: the output has, sample by sample, the lengths of the first input of
            its sequence level (an fc or an lstm over a sequence), so lengths are traced
            through the layer back to a data layer (``lengths_input``).
        aligns_rows: it pairs the rows of its sequence inputs (an addto, a concat, a cost
            and its label): those of the deepest level must have the same lengths, sample
            by sample (``aligned_inputs``). ``run`` checks it too, on the device, where
            the lengths are computed there.
        needs_a_step: its value on a sequence of no steps is undefined (it picks or
            compares steps: ``last_seq``, max pooling, a CRF), so an empty sequence
            reaching it is refused.
        lengths_of: the input whose lengths the output has, where that is a given one
            (an ``expand``'s ``expand_as``).
        id_bounds: ``(position, input specs, attrs) -> bound or None``, the bound on the
            ids fed at an input where the data layer's dim is not it (see ``id_bound``).
    """

    keeps_lengths: bool = False
    aligns_rows: bool = False
    needs_a_step: bool = False
    lengths_of: int | None = None
    id_bounds: Callable[[int, Sequence[Spec], Mapping[str, Any]], float | None] | None = None

    def id_bound(
        self, position: int, inputs: Sequence[Spec], attrs: Mapping[str, Any]
    ) -> float | None:
        """The ids fed at input ``position`` must be below this where another input's
        width or an attribute sets it (a cost's label indexes its input's columns);
        ``math.inf`` where they are read as numbers (a 0/1 label, a position), not as
        indices; None where the data layer's declared dim bounds them."""
        return None if self.id_bounds is None else self.id_bounds(position, inputs, attrs)

    def lengths_input(self, inputs: Sequence[Spec], out: Spec) -> int | None:
        """The input whose lengths the output has, sample by sample (see
        ``keeps_lengths`` and ``lengths_of``), or None where the kind computes new ones."""
        if self.lengths_of is not None:
            return self.lengths_of
        if not self.keeps_lengths:
            return None
        return next((i for i, s in enumerate(inputs) if s.seq_level == out.seq_level), None)

    def aligned_inputs(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> tuple[int, ...]:
        """The inputs whose lengths must agree sample by sample: for a kind that
        ``aligns_rows``, those of the deepest sequence level."""
        top = max((s.seq_level for s in inputs), default=0)
        if not self.aligns_rows or top == 0:
            return ()
        return tuple(i for i, s in enumerate(inputs) if s.seq_level == top)

    def length_rules(
        self, inputs: Sequence[Spec], attrs: Mapping[str, Any]
    ) -> tuple[LengthRule, ...]:
        """Rules on the lengths of single inputs (see ``LengthRule``)."""
        return ()

    def group_step(self, attrs: Mapping[str, Any]) -> GroupStep | None:
        """A recurrent group's step, whose layers the host checks too: there an in-link
        carries its sub-sequence lengths, which the group's own check leaves to them.
        None for every other kind."""
        return None


# how v2 reads a layer ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class V2Layer:
    """How v2's ModelConfig writes a layer of a kind (``proto.layers``, checked against
    v2's golden configs) and how a v2 inference file's ``LayerConfig`` rebuilds one
    (``proto.inference_file``). The defaults are v2's usual form; a kind sets
    ``v2 = V2Layer(...)`` where its own differs.

    Fields:
        type: v2's layer type, or a function of the layer where its attributes pick it
            (a convolution is ``exconv`` or ``exconvt``); ``""``: the kind's name.
        size: the ``size`` v2 writes, a number (0: none) or a function of the layer (a
            crf writes its number of classes); None: the output width.
        active_type: the activation v2 writes (``""``: none); None: the layer's own.
        inputs: a function of the layer giving the indices of the inputs v2 lists, in
            its order; None: every input, in order, each with the weight ``w<i>`` it
            multiplies.
        owns_params: False where v2 writes no parameters and no bias for the layer (an
            output read from another layer, which holds them).
        fields: a function of the layer and its written inputs giving the other
            ``LayerConfig`` fields v2 writes (a convolution's image sizes); it may set
            fields of the inputs too.
        dimless: the roles of the parameters v2 declares by size only, with no dims (a
            convolution's filter), or a function of the layer giving them.
        rebuild: ``(LayerConfig, input layers) -> Layer``, the layer built again from
            v2's config by the public layer function; None: a v2 inference file holding
            such a layer is refused.
        reads: the v2 types ``rebuild`` takes; ``()``: the type written (when a string),
            else the kind's name.
    """

    type: str | Callable[[Layer], str] = ""
    size: int | Callable[[Layer], int] | None = None
    active_type: str | None = None
    inputs: Callable[[Layer], Sequence[int]] | None = None
    owns_params: bool = True
    fields: Callable[[Layer, list[Any]], dict[str, Any]] | None = None
    dimless: tuple[str, ...] | Callable[[Layer], Iterable[str]] = ()
    rebuild: Callable[[Any, list[Layer]], Layer] | None = None
    reads: tuple[str, ...] = ()


# the kind -----------------------------------------------------------------------------
class Kind:
    """Base class of layer kinds; see the module docstring for the contract."""

    name: str = ""
    # ``apply`` returns ``(value, {role: new_value})``, updating static state in training
    # mode (batch-norm moving statistics).
    stateful: bool = False
    # A cost seeds its own gradient (v2's cost layers ignore their output gradient), so
    # a cost among a trainer's ``extra_layers`` is trained too.
    is_cost: bool = False
    # A kind whose output for one row depends on other rows of the batch (batch
    # statistics) receives ``apply(..., row_weights=w)``: ``w`` is ``[batch]`` floats, 1
    # for a real row and 0 for a padding row (a short batch padded to the batch size,
    # or to a multiple of the device count), or None when every row is real. Padding
    # rows must count nowhere in what the kind computes over the batch.
    uses_row_weights: bool = False
    # Its value for a sample depends only on that sample's inputs, deterministically (no
    # randomness, no batch statistics): in a recurrent group's step it can run once after
    # the scan, over every step's values at once (``recurrent.tail``).
    per_row: bool = False
    # v2's output of the layer also holds its first input's largest value in each row
    # (max_id: ``infer(field="prob")``, and ``value`` in ``event.gm.getLayerOutputs``).
    reports_input_max: bool = False
    host: HostChecks = HostChecks()
    v2: V2Layer = V2Layer()

    def infer_spec(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> Spec:
        raise NotImplementedError

    def param_specs(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> list[ParamDecl]:
        return []

    def apply(
        self,
        params: Mapping[str, Any],
        inputs: list[Any],
        attrs: Mapping[str, Any],
        *,
        key: Any,
        mode: str,
    ) -> Any:
        raise NotImplementedError

    def channels_last(self, attrs: Mapping[str, Any], input_is_channels_last: bool) -> bool:
        """Whether ``apply`` takes and returns a ``ChannelsLast`` image here (see
        ``channels_last``); such a kind's ``apply`` still takes flat values too."""
        return False


# configurations v2 built but could not run, noted while a layer is built ----------
UNRUNNABLE = "unrunnable"  # the layer attribute holding why the layer cannot run
_NOTING: list[list[tuple[str, bool]]] = []


def cannot_run(message: str) -> None:
    """Note that the layer being built is one v2 built but could not run.

    Inside a layer's build (``base.build``) the layer is still built (and parsed, as v2
    did); the message is kept in its ``unrunnable`` attribute, a ``LayerConfigWarning``
    says so at once, and compiling or running the layer raises ``LayerConfigError``
    with it. Outside a build (no ``noting``) the message is raised at once.
    """
    if not _NOTING:
        raise LayerConfigError(message)
    _NOTING[-1].append((message, False))


def suspicious(message: str) -> None:
    """Warn (naming the layer being built) about a configuration that v2 built and ran but
    that is very likely a mistake; the layer runs."""
    if not _NOTING:
        warnings.warn(message, LayerConfigWarning, stacklevel=user_stacklevel())
        return
    _NOTING[-1].append((message, True))


@contextlib.contextmanager
def noting() -> Iterator[list[tuple[str, bool]]]:
    """Collect the notes of the layer built inside: ``(message, runs)`` pairs."""
    _NOTING.append([])
    try:
        yield _NOTING[-1]
    finally:
        _NOTING.pop()


_KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind) -> Kind:
    """Add ``kind`` to the catalogue under ``kind.name`` (replacing any previous one)."""
    if not isinstance(kind, Kind) or not kind.name:
        raise LayerConfigError(f"register_kind needs a named Kind instance; received {kind!r}.")
    _KINDS[kind.name] = kind
    return kind


def all_kinds() -> tuple[Kind, ...]:
    """Every registered kind, in registration order."""
    return tuple(_KINDS.values())


def get_kind(name: str) -> Kind:
    """The kind registered under ``name``; an unknown name is a ``LayerConfigError``
    suggesting the nearest known one."""
    try:
        return _KINDS[name]
    except KeyError:
        raise LayerConfigError(
            f"unknown layer kind {name!r}." + did_you_mean(name, _KINDS)
        ) from None
