"""A trainer's state besides its parameters, on the host: ``Snapshot``, and its files.

``DeviceState.snapshot`` takes one, as of one step, and ``DeviceState.restore`` takes
one back; a checkpoint stores it as arrays (``state.npz``) and ``checkpoint.json``
entries (``to_files`` / ``from_files``). Trees (an optimizer state, the pass totals)
travel as ``Saved``: their leaves by key path, so a restore checks them against the
structure the trainer expects (``check_fit``) before anything changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from paddle_lite._src.distributed.parallel import put_replicated
from paddle_lite._src.training.checkpoint_folders import CheckpointError
from paddle_lite._src.training.checkpoints import Meta


def named_leaves(tree: Any) -> tuple[list[str], list[Any]]:
    """The leaves of ``tree`` with their key paths, in flattening order."""
    pairs = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [jax.tree_util.keystr(p) for p, _ in pairs], [leaf for _, leaf in pairs]


@dataclasses.dataclass(frozen=True)
class Saved:
    """A tree on the host (an optimizer state, the pass totals), its leaves by key path;
    put on the device again by ``fill``."""

    paths: list[str]
    leaves: list[Any]

    @classmethod
    def of(cls, tree: Any) -> Saved:
        """``tree`` (host values) by key path."""
        return cls(*named_leaves(tree))


def check_fit(template: Any, saved: Saved, what: str) -> None:
    """Refuse ``saved`` unless it fits ``template``'s structure and shapes."""
    want_paths, want = named_leaves(template)
    paths = list(saved.paths)
    if want_paths != paths:
        raise CheckpointError(
            f"the checkpoint's {what} does not fit this trainer: saved entries {paths[:6]}"
            f"..., expected {want_paths[:6]}... (another optimizer or topology?)."
        )
    for path, leaf, spec in zip(paths, saved.leaves, want, strict=True):
        if tuple(np.shape(leaf)) != tuple(spec.shape):
            raise CheckpointError(
                f"the checkpoint's {what} entry {path} has shape {np.shape(leaf)}; this "
                f"trainer needs {tuple(spec.shape)}."
            )


def fill(template: Any, saved: Saved, what: str) -> Any:
    """``template``'s structure holding ``saved``'s leaves, checked, on the device."""
    check_fit(template, saved, what)
    tree = jax.tree_util.tree_structure(template)
    return put_replicated(jax.tree_util.tree_unflatten(tree, [np.asarray(x) for x in saved.leaves]))


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """A trainer's state besides its parameters, on the host, as of one step
    (``DeviceState.snapshot``): the optimizer state of each frozen set, the totals of a
    pass in progress (or None), the pruning masks, the PRNG key and the number of steps
    run."""

    opt_states: dict[frozenset[str], Saved]
    totals: Saved | None
    masks: dict[str, np.ndarray]
    key: np.ndarray
    step: int


def to_files(snapshot: Snapshot) -> tuple[dict[str, np.ndarray], Meta]:
    """The arrays (``state.npz``) and metadata (``checkpoint.json`` entries) of a
    ``Snapshot``."""
    arrays: dict[str, np.ndarray] = {"key": np.asarray(snapshot.key)}
    masks = sorted(snapshot.masks)
    meta: Meta = {"optimizer": [], "masks": masks, "step": snapshot.step}
    for i, (frozen, saved) in enumerate(snapshot.opt_states.items()):
        meta["optimizer"].append({"frozen": sorted(frozen), "paths": list(saved.paths)})
        arrays.update({f"opt{i}_{j}": np.asarray(x) for j, x in enumerate(saved.leaves)})
    for i, name in enumerate(masks):
        arrays[f"mask{i}"] = np.asarray(snapshot.masks[name])
    if snapshot.totals is not None:
        meta["totals"] = list(snapshot.totals.paths)
        arrays.update({f"totals{j}": np.asarray(x) for j, x in enumerate(snapshot.totals.leaves)})
    return arrays, meta


def from_files(arrays: Mapping[str, np.ndarray], meta: Meta) -> Snapshot:
    """The ``Snapshot`` ``to_files`` wrote."""
    opt_states = {}
    for i, entry in enumerate(meta["optimizer"]):
        leaves = [arrays[f"opt{i}_{j}"] for j in range(len(entry["paths"]))]
        opt_states[frozenset(entry["frozen"])] = Saved(entry["paths"], leaves)
    masks = {n: arrays[f"mask{i}"] for i, n in enumerate(meta["masks"])}
    paths = meta.get("totals")
    totals = Saved(paths, [arrays[f"totals{j}"] for j in range(len(paths))]) if paths else None
    return Snapshot(opt_states, totals, masks, arrays["key"], int(meta["step"]))
