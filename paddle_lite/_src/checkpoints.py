"""Checkpoint folders: everything a training run needs to resume exactly.

A checkpoint is a folder of three files:

- ``parameters.tar``: the parameters in v2's tar format (``Parameters.from_tar``
  reads it alone, as the design doc keeps parameters apart from training state);
- ``state.npz``: the other arrays (optimizer state of each frozen set, pass totals,
  pruning masks, the PRNG key), read without pickle;
- ``checkpoint.json``: where training stands (pass, next batch, steps run), the
  random states readers shuffle with, a fingerprint of the topology, the parameter
  shapes and the library version.

A checkpoint is written into a temporary sibling folder, every file flushed and
fsynced, and then renamed into place, so a crash leaves either the previous
checkpoint or the new one, never a part. ``train(checkpoint_dir=...)`` keeps several
as ``<dir>/ckpt-<steps run>``; :func:`latest` finds the newest complete one.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import re
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy as np

from paddle_lite._src.distributed import is_writer
from paddle_lite._src.errors import PaddleLiteError, ParameterError

FORMAT = 1
PARAMS, ARRAYS, META = "parameters.tar", "state.npz", "checkpoint.json"
_NAME = re.compile(r"^ckpt-(\d+)$")


class CheckpointError(PaddleLiteError, ValueError):
    """A checkpoint is missing, incomplete, or belongs to another network."""


def _fsync_write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _new_folder(dirname: str) -> Iterator[str]:
    """A temporary sibling folder that replaces ``dirname`` when the block succeeds."""
    dirname = os.path.abspath(dirname)
    parent = os.path.dirname(dirname)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(dirname)}.", dir=parent)
    try:
        yield tmp
        _fsync_dir(tmp)
        old = None
        if os.path.exists(dirname):
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(dirname)}.old.", dir=parent)
            os.rename(dirname, os.path.join(old, "previous"))
        os.rename(tmp, dirname)
        _fsync_dir(parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def save(dirname: str, parameters: Any, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write one checkpoint folder atomically (see the module docstring); in a
    multi-process job only process 0 writes."""
    if not is_writer():
        return
    with _new_folder(dirname) as tmp:
        buffer = io.BytesIO()
        parameters.to_tar(buffer)
        _fsync_write(os.path.join(tmp, PARAMS), buffer.getvalue())
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        _fsync_write(os.path.join(tmp, ARRAYS), buffer.getvalue())
        text = json.dumps({"format": FORMAT, **meta}, indent=1, sort_keys=True)
        _fsync_write(os.path.join(tmp, META), text.encode())


def is_checkpoint(dirname: str) -> bool:
    return all(os.path.isfile(os.path.join(dirname, f)) for f in (PARAMS, ARRAYS, META))


def load(dirname: str) -> tuple[Any, dict[str, np.ndarray], dict]:
    """``(parameters, arrays, meta)`` of the checkpoint folder ``dirname``."""
    from paddle_lite._src.parameters import Parameters  # checkpoints sit below parameters

    if not is_checkpoint(dirname):
        raise CheckpointError(
            f"{dirname!r} is not a checkpoint: it needs {PARAMS}, {ARRAYS} and {META}."
        )
    with open(os.path.join(dirname, META), encoding="utf-8") as f:
        meta = json.load(f)
    if meta.get("format") != FORMAT:
        raise CheckpointError(
            f"checkpoint {dirname!r} has format {meta.get('format')!r}; this version reads "
            f"format {FORMAT}."
        )
    params = Parameters.from_tar(os.path.join(dirname, PARAMS))
    with np.load(os.path.join(dirname, ARRAYS), allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return params, arrays, meta


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
    """``dirname`` itself when it is a checkpoint, else its newest checkpoint, or None."""
    if is_checkpoint(dirname):
        return dirname
    found = listed(dirname)
    return found[-1] if found else None


def prune(checkpoint_dir: str, keep: int) -> None:
    """Delete all but the newest ``keep`` checkpoints (and abandoned temporary folders)."""
    if not is_writer():
        return
    for path in listed(checkpoint_dir)[:-keep]:
        shutil.rmtree(path, ignore_errors=True)
    for name in os.listdir(checkpoint_dir):
        if name.startswith(".ckpt-"):
            shutil.rmtree(os.path.join(checkpoint_dir, name), ignore_errors=True)


def check_parameters(meta: dict, shapes: dict[str, tuple[int, ...]], where: str) -> None:
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


def random_states() -> dict[str, Any]:
    """The global ``random`` and ``numpy.random`` states (what v2 readers shuffle with)."""
    version, internal, gauss = random.getstate()
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "python": [version, list(internal), gauss],
        "numpy": [name, keys.tolist(), int(pos), int(has_gauss), float(cached)],
    }


def restore_random(states: dict[str, Any]) -> None:
    """Set the global random states :func:`random_states` returned."""
    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, pos, has_gauss, cached = states["numpy"]
    np.random.set_state((name, np.asarray(keys, np.uint32), pos, has_gauss, cached))


def fingerprint(topology: Any) -> str:
    """A digest of the topology's layers and parameters (its JSON form)."""
    text = json.dumps(topology.to_json(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
