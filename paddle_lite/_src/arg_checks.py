"""Checks of the arguments users most often get wrong, with answers that say what to write.

``require_parameters`` (``parameters=None`` or a layer where ``Parameters`` belong),
``warn_unless_costs`` (a prediction passed as ``cost=``: v2 trained it, so this warns)
``frozen_names`` (``immutable_parameters`` given as parameter names, name prefixes,
layer names or layers), ``not_their_network`` (parameters of another network given to
``infer``) and ``renamed`` (an argument given by the name the v2 of early 2017
had for it: ``reader_dict`` for ``feeding``, ``output`` for ``output_layer``).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from paddle_lite._src.compat import early_names
from paddle_lite._src.errors import ArgumentTypeError, CostWarning, ParameterError
from paddle_lite._src.graph import Layer
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.tracebacks import user_stacklevel

_CREATE = "paddle.parameters.create(cost)"


def _describe(value: Any) -> str:
    if isinstance(value, Layer):
        return f"the layer '{value.name}' ({value.kind})"
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], Layer):
        return f"a list of layers ({', '.join(repr(v.name) for v in value[:3])})"
    return f"{value!r} of type {type(value).__name__}"


def require_parameters(value: object, where: str) -> Parameters:
    """``value``, a ``Parameters``; anything else raises, and the message says how to make
    one."""
    if isinstance(value, Parameters):
        return value
    hint = f"create them with parameters = {_CREATE}"
    if isinstance(value, Layer) or (isinstance(value, (list, tuple)) and value):
        hint += (
            "; layers go in cost= (training) or output_layer= (inference), "
            "the Parameters in parameters="
        )
    elif value is None:
        hint += " (or load trained ones with paddle.parameters.Parameters.from_tar(f))"
    raise ArgumentTypeError(
        f"{where}: parameters must be a paddle.parameters.Parameters; received "
        f"{_describe(value)}; {hint}."
    )


def renamed(new: Any, old: Any, names: tuple[str, str], where: str) -> Any:
    """``new``, or ``old`` where only that was given: the same argument under the name
    ``names[1]`` it had in the v2 of early 2017 (``names[0]`` is today's name), which
    warns (``DeprecationWarning``)."""
    if old is None:
        return new
    same = new is old or (isinstance(new, (dict, list, tuple)) and new == old)
    if new is not None and not same:
        raise ArgumentTypeError(
            f"{where} received both {names[0]}= and {names[1]}= (its early-2017 name); "
            f"pass only {names[0]}=."
        )
    early_names.warn_renamed(
        f"{where}: {names[1]}=", f"{names[0]}=", early_names.ARGUMENTS[names[1]][1]
    )
    return old


def warn_unless_costs(costs: Sequence[Any]) -> None:
    """Warn for each cost that gives more than one value per sample (not a cost layer).

    v2 trained any layer as a cost (the sum of its outputs), so this does not refuse;
    a softmax output, for one, sums to 1 for every sample: a constant cost, nothing learns.
    """
    for layer in costs:
        if not isinstance(layer, Layer) or layer.spec.size == 1:
            continue
        act = layer.attrs.get("act") if hasattr(layer.attrs, "get") else None
        act_name = getattr(act, "name", None) or ""
        why = f"it gives {layer.spec.size} values per sample, a cost layer gives one"
        if act_name == "softmax":
            why += (
                "; its softmax values sum to 1 per sample, so the cost stays 1.0 and nothing learns"
            )
        warnings.warn(
            f"cost= received the layer '{layer.name}' ({layer.kind}), which is not a cost: "
            f"{why}. Train a cost of it, e.g. paddle.layer.classification_cost("
            f"input={layer.name}, label=<label data layer>) or square_error_cost(...).",
            CostWarning,
            stacklevel=user_stacklevel(),
        )


def _layer_params(layers: Iterable[Layer]) -> dict[str, list[str]]:
    return {layer.name: [p.name for p in layer.params] for layer in layers}


def _unmatched(entry: str, names: list[str], owners: dict[str, list[str]]) -> ParameterError:
    candidates = names + [n for n, params in owners.items() if params]
    close = difflib.get_close_matches(entry, candidates, n=3, cutoff=0.5)
    near = f" Close matches: {close}." if close else ""
    return ParameterError(
        f"immutable_parameters entry {entry!r} matches no parameter or layer of this "
        f"topology.{near} Give parameter names ('_D.w0'), a prefix before a '.' ('_D'), "
        f"layer names ('D') or layers; parameters: {names}."
    )


def frozen_names(
    immutable: Any, names: Iterable[str], layers: Iterable[Layer] = ()
) -> frozenset[str]:
    """Parameter names matched by ``immutable``.

    Each entry is a parameter name, a prefix before a ``.`` (``"_D"`` freezes ``_D.w0``
    and ``_D.wbias``), a layer name (all the parameters the layer owns) or a layer
    object; an entry matching nothing is an error listing the close matches.
    """
    if immutable is None:
        return frozenset()
    if isinstance(immutable, (str, Layer)):
        immutable = [immutable]
    names = list(names)
    owners = _layer_params(layers)
    frozen: set[str] = set()
    for entry in immutable:
        if isinstance(entry, Layer):
            hits = {p.name for p in entry.params} & set(names)
            entry = entry.name
        elif isinstance(entry, str):
            hits = {n for n in names if n == entry or n.startswith(entry + ".")}
            hits |= set(owners.get(entry, ()))
        else:
            raise ArgumentTypeError(
                "immutable_parameters entries must be parameter names, layer names or "
                f"layers; received {_describe(entry)}."
            )
        if not hits:
            raise _unmatched(entry, names, owners)
        frozen |= hits
    return frozenset(frozen)


def not_their_network(topology: Any, parameters: Parameters, missing: list[str]) -> str:
    """Why the parameters lack what the outputs need (a layer of another network), and
    the two ways out."""
    owners = sorted({n.name for n in topology.nodes if {s.name for s in n.params} & set(missing)})
    theirs = parameters.names()
    return (
        f"the parameters lack {missing[:6]}{' ...' if len(missing) > 6 else ''} of layer(s) "
        f"{owners}, which output_layer {[o.name for o in topology.outputs]} needs: those "
        "layers are not in the network the parameters were created for (it has "
        f"{theirs[:6]}{' ...' if len(theirs) > 6 else ''}). Infer a layer of that network "
        "(the same layer objects, or the network built again with the same names: call "
        "paddle.layer.reset_names() before building it again), or create parameters for "
        "this one: paddle.parameters.create(output_layer) (untrained)."
    )
