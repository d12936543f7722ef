"""Checkpoint folders: everything a training run needs to resume exactly.

A checkpoint is a folder of four files:

- ``parameters.tar``: the parameters in v2's tar format (``Parameters.from_tar``
  reads it alone, as the design doc keeps parameters apart from training state);
- ``state.npz``: the other arrays (optimizer state of each frozen set, pass totals,
  pruning masks, the PRNG key), read without pickle, sizes checked before reading;
- ``checkpoint.json``: where training stands (pass, next batch, steps run), the
  random states readers shuffle with and the readers' own state, a fingerprint of the
  topology, the parameter shapes and the library version;
- ``manifest.json``, written last: each other file's size and sha256, checked before
  anything is read, and the save's sequence number.

Saving never passes through a moment where the name the user gave holds no loadable
checkpoint (``checkpoint_folders``): the files go into a hidden sibling folder
(``.<name>.<random>``), each flushed and fsynced, and the finished folder is swapped
with the old one in one atomic exchange (Linux ``renameat2``); where the system has no
exchange, the old folder is renamed aside and the new one into place, and a load that
finds no folder under the name takes the newest complete sibling. The next save removes
the hidden siblings a killed save left. ``train(checkpoint_dir=...)`` keeps several as
``<dir>/ckpt-<steps run>``; ``latest`` finds the newest complete one.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from typing import Any, TypedDict

import numpy as np

from paddle_lite._src.distributed.parallel import is_writer
from paddle_lite._src.errors import ParameterError
from paddle_lite._src.files import bounded_json
from paddle_lite._src.files.npz import NpzReader, write_npz
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.specs import ParamSpec
from paddle_lite._src.topology import Topology
from paddle_lite._src.training import checkpoint_folders, folder_lock
from paddle_lite._src.training.checkpoint_folders import CheckpointError, fsync_write

FORMAT = 1
PARAMS, ARRAYS, META = "parameters.tar", "state.npz", "checkpoint.json"
FILES = (PARAMS, ARRAYS, META)
_NAME = re.compile(r"^ckpt-(\d+)$")
_ARRAY_KINDS = "fiub"  # numbers and booleans; never objects or text
SAVE_WAIT_S = 10.0  # how long a save waits for another save into its folder


class OptimizerEntry(TypedDict):
    """One frozen set's optimizer state in ``checkpoint.json``: the names left unchanged
    and the key paths of its leaves (``opt<i>_<j>`` in ``state.npz``)."""

    frozen: list[str]
    paths: list[str]


class Meta(TypedDict, total=False):
    """``checkpoint.json`` (format ``FORMAT``), written in three parts and read back whole:
    the device state's (``snapshot.to_files``: ``step``, ``optimizer``, ``masks``,
    ``totals``), where training stands (``resume.position_meta``: ``pass_id`` to
    ``reader``) and the trainer's (``SGD.save_checkpoint``: the rest). ``check_meta``
    checks what a trainer reads of a loaded one."""

    format: int
    step: int
    optimizer: list[OptimizerEntry]
    masks: list[str]
    totals: list[str]  # key paths of a pass in progress's totals
    pass_id: int
    batch_id: int
    samples: int
    batch_size: int
    random: dict[str, Any]  # resume.random_states
    reader: Any  # the reader's own state() (JSON), or None
    master: dict[str, Any]  # own_shares.trained_tasks, for a process-share reader
    fingerprint: str
    parameters: dict[str, list[int]]  # name -> shape
    version: str
    call_end: int  # the pass the call the checkpoint was taken in ends before


class ResumeError(CheckpointError):
    """A run resumed from a checkpoint would not continue where it stands: its reader ends
    before the checkpoint's batch, or its batches hold other samples (a changed batch
    size); raised before anything trains."""


def save(
    dirname: str,
    parameters: Parameters,
    arrays: dict[str, np.ndarray],
    meta: Meta,
    owner: object = None,
) -> None:
    """Write one checkpoint folder (see the module docstring), holding the lock of the
    folder it goes into for ``owner`` (the trainer: ``folder_lock``; None: nobody that
    holds it already); in a multi-process job only process 0 writes."""
    if not is_writer():
        return
    parent = os.path.dirname(os.path.abspath(dirname))
    owner = object() if owner is None else owner
    with folder_lock.holding(parent, owner, folder_lock.SAVING, SAVE_WAIT_S, target=dirname):
        _write(dirname, parameters, arrays, meta)


def _write(dirname: str, parameters: Parameters, arrays: dict[str, np.ndarray], meta: Meta) -> None:
    with checkpoint_folders.replacing(dirname, FILES) as tmp:
        buffer = io.BytesIO()
        parameters.to_tar(buffer)
        fsync_write(os.path.join(tmp, PARAMS), buffer.getvalue())
        buffer = io.BytesIO()
        write_npz(buffer, arrays)
        fsync_write(os.path.join(tmp, ARRAYS), buffer.getvalue())
        fsync_write(os.path.join(tmp, META), _meta_text(meta))


def _meta_text(meta: Meta) -> bytes:
    try:
        text = json.dumps({"format": FORMAT, **meta}, indent=1, sort_keys=True)
    except (TypeError, ValueError) as err:  # a user reader's state() that is not JSON
        raise CheckpointError(
            f"cannot save the checkpoint: {err}; a reader's state() must return JSON values "
            "(numbers, strings, lists, dicts)."
        ) from None
    return text.encode()


def is_checkpoint(dirname: str) -> bool:
    """Whether ``dirname`` is a complete checkpoint folder (its manifest written)."""
    return checkpoint_folders.is_complete(dirname, FILES)


def load(dirname: str) -> tuple[Parameters, Arrays, Meta]:
    """``(parameters, arrays, meta)`` of the checkpoint folder ``dirname``.

    The manifest is checked first (each file's size, then its sha256); every failure
    is a ``CheckpointError`` naming the checkpoint and the file.
    """
    if not is_checkpoint(dirname):
        raise CheckpointError(
            f"{dirname!r} is not a checkpoint: it needs {PARAMS}, {ARRAYS}, {META} and "
            f"{checkpoint_folders.MANIFEST}."
        )
    data = checkpoint_folders.verified(dirname, FILES)
    meta: Meta = bounded_json.loads(data[META], _where(dirname, META), CheckpointError)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise CheckpointError(
            f"checkpoint {dirname!r} has format {found!r}; this version reads format {FORMAT}."
        )
    try:
        params = Parameters.from_tar(io.BytesIO(data[PARAMS]))
        arrays = Arrays(_arrays(data[ARRAYS], _where(dirname, ARRAYS)), dirname)
    except ParameterError as err:
        raise CheckpointError(f"checkpoint {dirname!r}: {err}") from None
    return params, arrays, meta


def _where(dirname: str, name: str) -> str:
    return f"checkpoint {dirname!r}, file {name!r}"


def _arrays(data: bytes, where: str) -> dict[str, np.ndarray]:
    with NpzReader(io.BytesIO(data), where) as npz:
        return {name: npz.array(name, kind=_ARRAY_KINDS) for name in npz.names()}


class Arrays(dict[str, np.ndarray]):
    """The arrays of a checkpoint; a missing one is a ``CheckpointError`` naming it."""

    def __init__(self, arrays: dict[str, np.ndarray], where: str) -> None:
        super().__init__(arrays)
        self.where = where

    def __missing__(self, name: str) -> np.ndarray:
        raise CheckpointError(f"checkpoint {self.where!r}: {ARRAYS} has no array {name!r}.")


def name_for(step: int) -> str:
    """The folder name of the checkpoint taken after ``step`` training steps."""
    return f"ckpt-{step:010d}"


def listed(checkpoint_dir: str) -> list[str]:
    """The complete checkpoints under ``checkpoint_dir``, oldest first."""
    if not os.path.isdir(checkpoint_dir):
        return []
    found = []
    for name in os.listdir(checkpoint_dir):
        match = _NAME.match(name)
        path = os.path.join(checkpoint_dir, name)
        if match and is_checkpoint(path):
            found.append((int(match[1]), path))
    return [path for _, path in sorted(found)]


def latest(dirname: str) -> str | None:
    """``dirname`` itself when it is a checkpoint, else its newest checkpoint, else the
    newest complete hidden sibling a save killed between two renames left, or None."""
    if is_checkpoint(dirname):
        return dirname
    found = listed(dirname)
    if found:
        return found[-1]
    return checkpoint_folders.recoverable(dirname, FILES)


def prune(checkpoint_dir: str, keep: int) -> None:
    """Delete all but the newest ``keep`` checkpoints (and abandoned temporary folders)."""
    if not is_writer():
        return
    for path in listed(checkpoint_dir)[:-keep]:
        shutil.rmtree(path, ignore_errors=True)
    for name in os.listdir(checkpoint_dir):
        if name.startswith(".ckpt-"):
            shutil.rmtree(os.path.join(checkpoint_dir, name), ignore_errors=True)


_META_TYPES = {
    "pass_id": int,
    "batch_id": int,
    "random": dict,
    "parameters": dict,
    "fingerprint": str,
}


def check_meta(meta: Meta, where: str) -> None:
    """Refuse a ``checkpoint.json`` that lacks what a trainer reads from it."""
    wrong = [k for k, t in _META_TYPES.items() if not isinstance(meta.get(k), t)]
    shapes = meta.get("parameters")
    if not isinstance(shapes, dict):
        shapes = {}
    if any(not isinstance(s, list) or not all(type(d) is int for d in s) for s in shapes.values()):
        wrong.append("parameters (shapes)")
    if wrong:
        raise CheckpointError(
            f"checkpoint {where!r}: {META} lacks or mistypes {wrong}; it was not written by "
            "save_checkpoint, or it was edited."
        )


def load_for(
    path: str, specs: Mapping[str, ParamSpec], topology: Topology
) -> tuple[Parameters, Arrays, Meta]:
    """``load`` the checkpoint ``path`` for a trainer of ``topology`` (whose parameter
    specs are ``specs``): its metadata, parameter shapes, layers and parameters checked."""
    params, arrays, meta = load(path)
    check_meta(meta, path)
    check_parameters(meta, {n: s.shape for n, s in specs.items()}, path)
    if meta["fingerprint"] != fingerprint(topology):
        raise CheckpointError(
            f"checkpoint {path!r} has this topology's parameters but its layers differ "
            "(another network shares the parameter names); load its parameters.tar with "
            "Parameters.from_tar instead."
        )
    lacking = [n for n in specs if n not in params]
    if lacking:
        raise CheckpointError(f"checkpoint {path!r}: {PARAMS} lacks the parameters {lacking}.")
    return params, arrays, meta


@contextlib.contextmanager
def restoring(path: str) -> Iterator[None]:
    """Turn what restoring a checkpoint's state raises into a ``CheckpointError``."""
    try:
        yield
    except CheckpointError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise CheckpointError(
            f"checkpoint {path!r}: its optimizer state does not fit this trainer "
            f"({type(err).__name__}: {err})."
        ) from None


def check_parameters(meta: Meta, shapes: dict[str, tuple[int, ...]], where: str) -> None:
    """Refuse a checkpoint whose parameters differ from ``shapes`` (this topology's)."""
    saved = {n: tuple(s) for n, s in meta["parameters"].items()}
    missing = sorted(set(shapes) - set(saved))
    extra = sorted(set(saved) - set(shapes))
    changed = sorted(n for n in set(saved) & set(shapes) if saved[n] != shapes[n])
    if missing or extra or changed:
        details = [f"{n}: checkpoint {saved[n]}, topology {shapes[n]}" for n in changed]
        raise ParameterError(
            f"checkpoint {where!r} was written for another topology: parameters missing from "
            f"it {missing}, not in this topology {extra}, of another shape {details}."
        )


def fingerprint(topology: Topology) -> str:
    """A digest of the topology's layers and parameters (its JSON form)."""
    text = json.dumps(topology.to_json(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
