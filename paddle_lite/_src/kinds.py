"""The layer-kind contract and its registry.

A kind computes one family of layers. It defines exactly three things:

- ``infer_spec(inputs, attrs) -> Spec``: the output spec from the input specs,
  raising ``LayerConfigError`` on a mismatch;
- ``param_specs(inputs, attrs) -> list[ParamDecl]``: the parameters it owns
  (role, shape, which user attribute configures it, default init);
- ``apply(params, inputs, attrs, *, key, mode)``: the output from the input values
  and the parameters (``{role: array}``), pure ``jax.numpy``. ``mode`` is
  ``"train"`` or ``"test"``; ``key`` a PRNG key or None. A kind with ``stateful =
  True`` returns ``(value, {role: new_value})`` to update static state (batch-norm
  moving statistics) in training mode. A kind with ``uses_row_weights = True`` also
  receives ``row_weights``: see ``Kind``.

The layer's activation, ``ExtraAttr(drop_rate)`` and ``ExtraAttr(error_clipping_threshold)``
are applied after ``apply`` by ``run``, so kinds compute the pre-activation value
(bias included).
Users may register their own kinds with ``register_kind``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerConfigWarning, did_you_mean
from paddle_lite._src.graph import Layer
from paddle_lite._src.lowering.channels_last import ChannelsLast
from paddle_lite._src.specs import InitSpec, Spec
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import (
    Seq,
    data_of,
    lengths_agree,
    nan_unless,
    step_mask,
    steps_alike,
    with_data,
)


@dataclasses.dataclass(frozen=True)
class ParamDecl:
    """One parameter a kind owns.

    ``role`` names it inside the layer (``w0``, ``wbias``); ``attr`` says which user
    attribute configures it: ``("param", i)`` for the i-th ``param_attr``, ``("bias",)``
    for ``bias_attr``, ``("fixed",)`` for internal state that only follows the layer's
    own naming (batch-norm moving statistics). ``default`` is the init when the user
    asks for none; ``static`` forces ``is_static``.
    """

    role: str
    shape: tuple[int, ...]
    attr: tuple[Any, ...]
    default: InitSpec
    static: bool = False


class Kind:
    """Base class of layer kinds; see the module docstring for the contract."""

    name: str = ""
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
    # Its output has, sample by sample, the lengths of its first input of the same
    # sequence level (an fc or an lstm over a sequence); see ``lengths_input``.
    keeps_lengths: bool = False
    # It pairs the rows of its sequence inputs (an addto, a concat, a cost and its
    # label): their lengths must agree sample by sample; see ``aligned_inputs``.
    aligns_rows: bool = False

    def reads_ids_as_numbers(self, position: int) -> bool:
        """True when integer ids fed at input ``position`` are read as numbers (a 0/1
        label, a position), not as indices below the data layer's declared dim."""
        return False

    def id_bound(
        self, position: int, inputs: Sequence[Spec], attrs: Mapping[str, Any]
    ) -> int | None:
        """The ids fed at input ``position`` must be below this, when another input's
        width or an attribute sets it (a cost's label indexes its input's columns); None
        when the data layer's declared dim is the bound (an embedding has ``dim`` rows)."""
        return None

    def lengths_input(self, inputs: Sequence[Spec], out: Spec) -> int | None:
        """The input whose lengths the output has, sample by sample, or None when the
        kind computes new ones. A recurrent group's inputs are traced back through it to
        the data layers whose lengths the host checks (``feeding.lengths``)."""
        if not self.keeps_lengths:
            return None
        return next((i for i, s in enumerate(inputs) if s.seq_level == out.seq_level), None)

    def aligned_inputs(self, inputs: Sequence[Spec]) -> tuple[int, ...]:
        """The inputs whose rows the kind pairs, whose lengths the host checks sample by
        sample (``feeding.lengths``): those of the deepest sequence level, for a kind that
        ``aligns_rows``."""
        top = max((s.seq_level for s in inputs), default=0)
        if not self.aligns_rows or top == 0:
            return ()
        return tuple(i for i, s in enumerate(inputs) if s.seq_level == top)

    def recut_widths(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> tuple[int, ...]:
        """``(width, new_width)`` for a kind that re-cuts each sequence of its first
        input into steps of ``new_width`` values (``seq_reshape``): each sequence's
        ``length * width`` must be a multiple of ``new_width``, which the host checks for
        lengths from data layers (``feeding.lengths``); ``()`` for the others."""
        return ()

    def one_row_inputs(self, inputs: Sequence[Spec]) -> tuple[int, ...]:
        """The sequence inputs that must hold one row per sample (a cost pairing a
        sequence with a plain label, as v2 paired the batch's rows); the host checks
        those whose lengths come from data layers (``feeding.lengths``)."""
        return ()

    def infer_spec(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> Spec:
        raise NotImplementedError

    def param_specs(self, inputs: Sequence[Spec], attrs: Mapping[str, Any]) -> list[ParamDecl]:
        return []

    def apply(self, params, inputs, attrs, *, key, mode):
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


def get_kind(name: str) -> Kind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LayerConfigError(
            f"unknown layer kind {name!r}." + did_you_mean(name, _KINDS)
        ) from None


def run(
    layer: Layer,
    params: Mapping[str, Any],
    inputs: Sequence[Any],
    *,
    key,
    mode: str,
    row_weights: Any = None,
):
    """Compute ``layer``: its kind's ``apply``, then activation, dropout and error clipping.

    ``row_weights`` (``[batch]``, 0 on padding rows, or None) reach kinds that declare
    ``uses_row_weights``.

    Returns ``(value, state_updates)``; ``state_updates`` maps global parameter
    names to new values (empty unless the kind is stateful and ``mode == "train"``).
    """
    kind = get_kind(layer.kind)
    if layer.attrs.get(UNRUNNABLE):  # a configuration v2 built but could not run
        raise LayerConfigError(
            f"layer '{layer.name}' ({layer.kind}) cannot run: {layer.attrs[UNRUNNABLE]}"
        )
    agree = None
    if kind.aligns_rows:
        _check_rows(layer, inputs)
        inputs = steps_alike(list(inputs))
        aligned = kind.aligned_inputs([x.spec for x in layer.inputs])
        agree = lengths_agree([inputs[i] for i in aligned if isinstance(inputs[i], Seq)], True)
    local = {p.role: params[p.name] for p in layer.params}
    extra = {"row_weights": row_weights} if kind.uses_row_weights else {}
    out = kind.apply(local, list(inputs), layer.attrs, key=key, mode=mode, **extra)
    updates: dict[str, Any] = {}
    if kind.stateful:
        out, state = out
        by_role = {p.role: p.name for p in layer.params}
        updates = {by_role[role]: v for role, v in state.items()}
    act = layer.attrs.get("act")
    if act is not None:
        out = _apply_activation(act, out)
    drop_rate = layer.attrs.get("drop_rate")
    if drop_rate:
        out = _dropout(out, drop_rate, key=key, mode=mode)
    threshold = layer.attrs.get("error_clipping_threshold")
    if threshold:
        out = with_data(out, clip_gradient(data_of(out), float(threshold)))
    return nan_unless(out, agree), updates


def _check_rows(layer: Layer, inputs: Sequence[Any]) -> None:
    """A layer that pairs its inputs' rows needs as many of them in each (a ``resize``
    before it changes the count; v2 stopped on the first such batch)."""
    named = zip(layer.inputs, inputs, strict=False)
    rows = {x.name: getattr(data_of(v), "shape", ())[:1] for x, v in named}
    if len({r for r in rows.values() if r}) > 1:
        counts = {name: r[0] for name, r in rows.items() if r}
        raise LayerConfigError(
            f"layer '{layer.name}' ({layer.kind}) cannot run: it pairs its inputs row by row, "
            f"but they have {counts} rows in this batch; each needs one row per sample (a "
            "layer such as resize before it changes the count)."
        )


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, threshold: float):
    """The identity, whose gradient is clipped to ``[-threshold, threshold]`` (v2's
    ``ExtraAttr(error_clipping_threshold=...)``: the error reaching a layer's output)."""
    return x


def _clip_fwd(x, threshold):
    return x, None


def _clip_bwd(threshold, _, g):
    return (jnp.clip(g, -threshold, threshold),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def _apply_activation(act, out):
    if isinstance(out, ChannelsLast):  # element-wise only (``channels_last.joins``)
        return ChannelsLast(act.apply(out.data))
    if isinstance(out, Seq):
        return out._replace(data=act.apply(out.data, mask=step_mask(out)))
    return act.apply(out)


def _dropout(out, rate: float, *, key, mode: str):
    """v2 dropout is not inverted: a 0/1 mask in training, a ``(1 - rate)`` scale in test."""
    data = data_of(out)
    if mode == "train":
        if key is None:
            raise LayerConfigError("dropout in training mode needs a PRNG key; none was given.")
        keep = jax.random.bernoulli(key, 1.0 - rate, data.shape)
        data = jnp.where(keep, data, 0.0)
    else:
        data = data * (1.0 - rate)
    return with_data(out, data)
