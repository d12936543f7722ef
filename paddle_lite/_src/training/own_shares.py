"""Readers whose every process reads its own share, in a synchronous multi-process job.

A reader marked ``reader.process_share`` (``cloud_reader``: v2's master hands each trainer
its own tasks) gives each process different samples, and not the same number of them. The
processes must still run the same steps: each process's batch is its rows of the global
batch, and a process whose share has ended feeds rows of weight 0. ``shared_batches``
reads a window of ``WINDOW`` of the process's own batches, then makes one exchange with
the others (``distributed.exchange``, a host exchange): how many batches each has, their
sizes and their padded shapes. The window's steps are as many as the most any process
has; each step's global batch is every process's batch padded to the same rows and the
same padded lengths, and a process short of batches repeats rows of a batch it read
before, with weight 0 (a process that has read none yet gets one batch from the first
process that has one, in a second exchange). The pass ends when every process's share
has ended.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

import jax
import numpy as np

from paddle_lite._src.distributed import parallel as distributed
from paddle_lite._src.distributed.parallel import LocalRows, pad_rows
from paddle_lite._src.values import VALID, Seq, Sparse

WINDOW = 16  # batches a process reads before the one exchange that agrees on them
_KINDS = {"Seq": Seq, "Sparse": Sparse}


def tagged(batches: Iterable[Any], share: Any, tags: deque[int]) -> Iterator[Any]:
    """``batches``, noting in ``tags`` after each one how many tasks the master client
    ``share`` has finished: a task is finished once the record after its last is read, so
    all of their records are in the batches read so far."""
    for batch in batches:
        tags.append(len(share.finished_tasks))
        yield batch


def shared_batches(
    converted: Iterator[Any], padding: Any, read: deque, steps_tags: deque
) -> Iterator[tuple[LocalRows, int]]:
    """``(this process's rows, samples of the global batch)`` of each step of a pass over a
    process-share reader, whose converted batches are ``converted`` (see the module
    docstring). ``padding.rows``, the rows of a process's share of a batch, only grows.
    ``read`` holds the tag (``tagged``) of each batch read; ``steps_tags`` gets the tag of
    each step yielded (a step of rows of weight 0 repeats the last one)."""
    template, tag = None, 0
    while True:
        window = [pad_rows(f, _rows(f)) for f in itertools.islice(converted, WINDOW)]
        window_tags = [read.popleft() for _ in window]
        template = window[-1] if window else template
        mine = {
            "sizes": [_rows(f) for f in window],
            "shapes": [shapes_of(f) for f in window],
            "template": None if template is None else shapes_of(template),
        }
        every = [json.loads(text) for text in distributed.exchange("shares", json.dumps(mine))]
        steps = max(len(e["sizes"]) for e in every)
        if not steps:
            return
        template = _share_template(every, template)
        padding.rows = max([padding.rows, *(n for e in every for n in e["sizes"])])
        rows = -(-padding.rows // _local_devices()) * _local_devices()
        for step in range(steps):
            feeds = pad_rows(window[step], rows) if step < len(window) else _idle(template, rows)
            tag = window_tags[step] if step < len(window) else tag
            steps_tags.append(tag)
            target = _target(every, step)
            global_samples = sum(e["sizes"][step] for e in every if step < len(e["sizes"]))
            total = rows * distributed.process_count()
            yield LocalRows(grown(feeds, target), total), global_samples


def trained_tasks(share: Any, count: int) -> dict[str, Any]:
    """What a checkpoint records of a process-share reader: the pass its master client
    reads, and the tasks of that pass whose records were all trained (the first ``count``
    tasks the client finished, every process's: one exchange, on every process)."""
    pass_id = share.reading_pass
    mine = [task for p, task in share.finished_tasks[:count] if p == pass_id]
    if distributed.multi_process():
        every = distributed.exchange("trained", json.dumps(mine))
        mine = [task for text in every for task in json.loads(text)]
    return {"pass": pass_id, "trained": sorted(mine)}


def reopen(share: Any, recorded: dict[str, Any]) -> None:
    """Before a resumed pass: give the master's queue back the tasks of the checkpoint's
    pass it had not trained (process 0 does it; the others wait for it)."""
    if distributed.process_index() == 0 and recorded.get("pass") is not None:
        share.reopen(recorded["pass"], recorded["trained"])
    if distributed.multi_process():
        distributed.exchange("reopened", "")


def _local_devices() -> int:
    return distributed.device_count() // distributed.process_count()


def _rows(feeds: Any) -> int:
    return int(np.shape(jax.tree_util.tree_leaves(feeds)[0])[0])


def shapes_of(feeds: Any) -> list[list[int]]:
    """The shape of each leaf of ``feeds`` past its rows."""
    return [list(np.shape(x))[1:] for x in jax.tree_util.tree_leaves(feeds)]


def largest(shapes: list[list[list[int]]]) -> list[list[int]]:
    """Per leaf and dimension, the largest of several ``shapes_of``."""
    return [list(map(max, *dims)) for dims in zip(*shapes, strict=True)]


def _idle(template: Any, rows: int) -> Any:
    """Rows of weight 0: ``template``'s rows repeated (valid values, so no mean of nothing
    turns into NaN), their weights zeroed."""
    feeds = pad_rows(template, rows)
    return {**feeds, VALID: np.zeros(rows, np.float32)}


def _target(every: list[dict[str, Any]], step: int) -> list[list[int]]:
    """Per leaf, the largest shape (past the rows) any process feeds at ``step``."""
    shapes = [e["shapes"][step] if step < len(e["sizes"]) else e["template"] for e in every]
    return largest([s for s in shapes if s is not None])


def grown(feeds: Any, target: list[list[int]]) -> Any:
    """``feeds`` with each leaf padded with zeros, past its rows, to ``target``'s shape."""
    leaves, tree = jax.tree_util.tree_flatten(feeds)
    out = []
    for x, shape in zip(leaves, target, strict=True):
        extra = [want - have for have, want in zip(np.shape(x)[1:], shape, strict=True)]
        out.append(np.pad(x, [(0, 0), *((0, e) for e in extra)]) if any(extra) else x)
    return jax.tree_util.tree_unflatten(tree, out)


def _share_template(every: list[dict[str, Any]], template: Any) -> Any:
    """``template``, or, for a process that has read no batch yet, one batch of the first
    process that has one (a second exchange, made by every process when some process
    lacks a batch); each needy process's entry in ``every`` takes the batch's shapes."""
    needy = [e for e in every if e["template"] is None]
    if not needy:
        return template
    donor = next(r for r, e in enumerate(every) if e["template"] is not None)
    mine = json.dumps(_encode(template)) if distributed.process_index() == donor else ""
    sent = distributed.exchange("template", mine)[donor]
    for entry in needy:
        entry["template"] = every[donor]["template"]
    return template if template is not None else _decode(json.loads(sent))


def _encode(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {"dict": {k: _encode(v) for k, v in tree.items()}}
    if isinstance(tree, (Seq, Sparse)):
        return {type(tree).__name__: [_encode(v) for v in tree]}
    if tree is None:
        return None
    array = np.ascontiguousarray(tree)
    return {"array": base64.b64encode(array.tobytes()).decode(), "dtype": array.dtype.str,
            "shape": list(array.shape)}  # fmt: skip


def _decode(value: Any) -> Any:
    if value is None:
        return None
    if "dict" in value:
        return {k: _decode(v) for k, v in value["dict"].items()}
    for name, kind in _KINDS.items():
        if name in value:
            return kind(*(_decode(v) for v in value[name]))
    raw = base64.b64decode(value["array"])
    return np.frombuffer(raw, np.dtype(value["dtype"])).reshape(value["shape"]).copy()
