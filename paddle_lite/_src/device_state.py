"""A trainer's state on the device and the few host calls that move it.

:class:`DeviceState` holds, while ``train`` runs, the :class:`~steps.TrainState` of
the current (frozen set, precision, on_nan) program, and between runs the optimizer
state of every frozen set, the step count and the PRNG key, so a second ``train``
call continues where the first stopped. Host reads happen only when asked: pulling
the parameters into the user's ``Parameters``, reading the non-finite flag, or
exporting a checkpoint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from paddle_lite._src import config, pass_totals, steps
from paddle_lite._src.checkpoints import CheckpointError
from paddle_lite._src.distributed import put_params, put_replicated, row_shardings, to_host
from paddle_lite._src.programs import TrainProgram


def pruning_masks(specs: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """0/1 masks keeping, per pruned parameter, its largest ``(1 - ratio) * size``
    values by magnitude (v2's static pruning hook, computed when training starts)."""
    masks = {}
    for name, spec in specs.items():
        if spec.sparsity_ratio is None or spec.is_static:
            continue
        flat = np.abs(np.asarray(values[name])).ravel()
        keep = int(flat.size * (1.0 - spec.sparsity_ratio))
        mask = np.zeros(flat.size, np.float32)
        mask[np.argsort(-flat, kind="stable")[:keep]] = 1.0
        masks[name] = mask.reshape(spec.shape)
    return masks


def named_leaves(tree: Any) -> tuple[list[str], list[Any]]:
    """The leaves of ``tree`` with their key paths, in flattening order."""
    pairs = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [jax.tree_util.keystr(p) for p, _ in pairs], [leaf for _, leaf in pairs]


def fill(template: Any, paths: list[str], leaves: list[Any], what: str) -> Any:
    """``template``'s structure holding ``leaves`` (saved with ``paths``), checked."""
    want_paths, want = named_leaves(template)
    if want_paths != list(paths):
        raise CheckpointError(
            f"the checkpoint's {what} does not fit this trainer: saved entries {list(paths)[:6]}"
            f"..., expected {want_paths[:6]}... (another optimizer or topology?)."
        )
    for path, saved, spec in zip(paths, leaves, want, strict=True):
        if tuple(np.shape(saved)) != tuple(spec.shape):
            raise CheckpointError(
                f"the checkpoint's {what} entry {path} has shape {np.shape(saved)}; this "
                f"trainer needs {tuple(spec.shape)}."
            )
    tree = jax.tree_util.tree_structure(template)
    return put_replicated(jax.tree_util.tree_unflatten(tree, [np.asarray(x) for x in leaves]))


@dataclasses.dataclass(frozen=True)
class Saved:
    """An optimizer state read from a checkpoint, put on the device at the next start."""

    paths: list[str]
    leaves: list[Any]


class DeviceState:
    """The device side of a trainer; see the module docstring."""

    def __init__(  # noqa: ANN001
        self, costs, evaluators, equation, specs, parameters, own=None, aux_costs=()
    ) -> None:
        self._build = (costs, evaluators, equation, specs)
        self.aux_costs = tuple(aux_costs)  # costs trained for their gradient only
        self.specs = specs
        self.parameters = parameters
        self.own = own  # the topology's parameters the user's set lacks (trainer-held)
        self.programs: dict[tuple, TrainProgram] = {}
        self.opt_states: dict[frozenset[str], Any] = {}  # device trees, or Saved
        self.zeros = steps.make_zeros(costs, evaluators)
        self.state: steps.TrainState | None = None
        self.program: TrainProgram | None = None
        self.frozen: frozenset[str] = frozenset()
        self.masks: dict[str, np.ndarray] | None = None  # pruning hooks, fixed at first load
        self.version = -1
        self.step_count: Any = np.int32(0)  # steps run, carried across train() calls
        self.pass_id: Any = np.int32(0)  # the last pass trained
        self.key = np.asarray(jax.random.PRNGKey(config.default_seed()))
        self.saved_totals: tuple[list[str], list[Any]] | None = None  # a resumed pass's
        self.totals_layout: Any = None  # how the pass totals are packed (pass_totals)

    def program_for(self, frozen: frozenset[str], on_nan: str) -> TrainProgram:
        key = (frozen, config.get("precision", "float32"), on_nan)
        if key not in self.programs:
            self.programs[key] = TrainProgram(*self._build, frozen, key[1], on_nan, self.aux_costs)
        return self.programs[key]

    def holder(self, name: str) -> Any:
        """The ``Parameters`` that keeps ``name`` on the host: the user's, or the
        trainer's own set for a parameter the user's set lacks."""
        own = self.own
        return own if own is not None and name in own else self.parameters

    def host_values(self) -> dict[str, Any]:
        """The topology's parameters as the user's ``Parameters`` holds them, on the device."""
        host = self.parameters
        if host._pull != self.pull:
            host._refresh()  # another trainer may hold newer values
        values = {n: np.array(self.holder(n)._values[n]) for n in self.specs}
        if self.masks is None:
            self.masks = pruning_masks(self.specs, values)
        for name, mask in self.masks.items():
            values[name] = values[name] * mask
        return put_params(values, row_shardings(self.specs))

    def start(self, frozen: frozenset[str], on_nan: str) -> None:
        """Put the parameters and the optimizer state of ``frozen`` on the device."""
        self.program, self.frozen = self.program_for(frozen, on_nan), frozen
        values = self.host_values()
        self.version = self.parameters._version
        trainable = {n: values[n] for n in self.program.names}
        saved = self.opt_states.get(frozen)
        if saved is None:
            self.opt_states[frozen] = self.program.init(trainable)
        elif isinstance(saved, Saved):  # restored from a checkpoint
            template = jax.eval_shape(self.program.init, trainable)
            self.opt_states[frozen] = fill(template, saved.paths, saved.leaves, "optimizer state")
        self.state = steps.TrainState(
            trainable=trainable,
            fixed={n: v for n, v in values.items() if n not in trainable},
            opt_state=self.opt_states[frozen],
            totals=None,
            counters=put_replicated(steps.counters(self.step_count, 0)),
            key=put_replicated(self.key),
            masks=put_replicated({n: m for n, m in self.masks.items() if n in trainable}),
        )

    def reload(self) -> None:
        """Take parameter values ``set`` on the host since the last step."""
        values = self.host_values()
        self.version = self.parameters._version
        state = self.state
        self.state = state._replace(
            trainable={n: values[n] for n in state.trainable},
            fixed={n: values[n] for n in state.fixed},
        )

    def stop(self) -> None:
        """Keep the optimizer state and step count; let go of the device parameters."""
        state = self.state
        if state is not None:
            self.opt_states[self.frozen] = state.opt_state
            step, pass_id, _ = to_host(state.counters)
            self.step_count, self.pass_id = np.int32(step), np.int32(pass_id)
        self.state = None

    def params(self) -> dict[str, Any] | None:
        state = self.state
        return None if state is None else {**state.fixed, **state.trainable}

    def pull(self) -> None:
        """Copy the device parameters into the user's ``Parameters``."""
        params = self.params()
        if params is not None:
            for name, value in to_host(params).items():
                # A copy: the device buffer is donated to the next step.
                self.holder(name)._values[name] = np.array(value)

    def begin_pass(self, pass_id: int, feeds: Any, stacked: bool) -> None:
        """Zero the pass totals (shaped from the first batch) and set the pass id."""
        if stacked:
            feeds = jax.tree_util.tree_map(
                lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), feeds
            )
        totals = self.zeros(self.params(), feeds)
        self.totals_layout = pass_totals.layout(totals)
        if self.saved_totals is not None:
            totals = to_host(fill(totals, *self.saved_totals, "pass totals"))
            self.saved_totals = None
        self.state = self.state._replace(
            totals=put_replicated(pass_totals.pack(totals)),
            counters=self.program.set_pass(self.state.counters, put_replicated(np.int32(pass_id))),
        )

    def dispatch(self, chunk: Any) -> Any:
        """Run the steps of ``chunk`` (one device call); returns ``(costs, stats, finite)``."""
        if self.parameters._version != self.version:
            self.reload()
        run = self.program.steps if chunk.stacked else self.program.step
        self.state, out = run(self.state, chunk.feeds)
        return out

    def end_pass(self) -> None:
        """v2's end-of-pass catch-up of lazily decayed sparse rows."""
        if self.program.lazy_decay:
            self.state = self.program.catch_up(self.state)

    def bad_step(self) -> int:
        """The first step whose cost, gradients or update were not finite, or -1 (a host read)."""
        return int(to_host(self.state.counters)[2])

    def pass_totals(self) -> tuple[Any, list[Any]]:
        """The pass's ``(cost_sum, stats)`` so far, on the host (a host read)."""
        return pass_totals.unpack(to_host(self.state.totals), self.totals_layout)

    def eval_params(self) -> dict[str, Any]:
        """Values to test and save with: sparse rows' missed decay applied and
        model-averaged when the optimizer averages (the training state is untouched)."""
        state = self.state
        params = self.params() or self.host_values()
        if state is not None:
            return self.program.eval_view(state.opt_state, params, state.pass_id)
        ready = [(f, s) for f, s in self.opt_states.items() if not isinstance(s, Saved)]
        if not ready:
            return params
        frozen, opt_state = ready[0]
        program = next(p for (f, *_), p in self.programs.items() if f == frozen)
        return program.eval_view(opt_state, params, put_replicated(np.int32(self.pass_id)))

    # checkpoints ----------------------------------------------------------------------
    def export(self, mid_pass: bool) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and metadata a checkpoint keeps besides the parameters.

        ``mid_pass``: keep the current pass's totals too (a resume continues the pass).
        """
        opt_states = dict(self.opt_states)
        if self.state is not None:
            opt_states[self.frozen] = self.state.opt_state
        arrays: dict[str, np.ndarray] = {"key": self.key}
        meta: dict[str, Any] = {"optimizer": [], "masks": sorted(self.masks or {})}
        for i, (frozen, tree) in enumerate(opt_states.items()):
            paths, leaves = (
                (tree.paths, tree.leaves) if isinstance(tree, Saved) else named_leaves(tree)
            )
            meta["optimizer"].append({"frozen": sorted(frozen), "paths": paths})
            arrays.update({f"opt{i}_{j}": np.asarray(x) for j, x in enumerate(leaves)})
        for i, name in enumerate(meta["masks"]):
            arrays[f"mask{i}"] = self.masks[name]
        if mid_pass and self.state is not None and self.state.totals is not None:
            paths, leaves = named_leaves(self.pass_totals())
            meta["totals"] = paths
            arrays.update({f"totals{j}": np.asarray(x) for j, x in enumerate(leaves)})
        state = self.state
        meta["step"] = int(self.step_count if state is None else to_host(state.counters)[0])
        return to_host(arrays), meta

    def restore(self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
        """Take the state :meth:`export` wrote (the parameters are restored by the caller)."""
        self.opt_states = {}
        for i, entry in enumerate(meta["optimizer"]):
            leaves = [arrays[f"opt{i}_{j}"] for j in range(len(entry["paths"]))]
            self.opt_states[frozenset(entry["frozen"])] = Saved(entry["paths"], leaves)
        self.masks = {n: arrays[f"mask{i}"] for i, n in enumerate(meta["masks"])}
        totals = meta.get("totals")
        self.saved_totals = None
        if totals:
            self.saved_totals = (totals, [arrays[f"totals{j}"] for j in range(len(totals))])
        self.key = np.asarray(arrays["key"])
        self.step_count = np.int32(meta["step"])
