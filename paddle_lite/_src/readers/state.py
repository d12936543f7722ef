"""The reader state protocol: what decides a reader's order of samples is training state.

A reader whose passes depend on what happened before (``shuffle(r, n, seed=s)`` shuffles
pass ``k`` with ``random.Random(s + k)``, so it counts the passes it started;
``bucket_by_length`` does the same) carries two attributes:

* ``reader.state()``: a JSON value (numbers, strings, lists, dicts) describing the state
  at this moment;
* ``reader.restore(state)``: put the reader back into that state.

``trainer.save_checkpoint`` takes the state of the reader ``train`` was given as it was
when the pass began (with Python's and numpy's global random states), and the ``train``
call after ``load_checkpoint`` restores it before the first pass, so a resumed run reads
the same samples in the same order as an uninterrupted one. The library's decorators
that wrap readers (``batch``, ``map_readers``, ``chain``, ``compose``, ``firstn``,
``cache``, ``buffered``, ``xmap_readers``, ``shard``, ``Fake`` ...) forward the protocol
to the readers they wrap; a user's reader may implement it the same way.

Example:
    ```python
    def my_reader():
        ...
    my_reader.state = lambda: {"epoch": epoch[0]}
    my_reader.restore = lambda s: epoch.__setitem__(0, s["epoch"])
    ```
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from paddle_lite._src.errors import DataError


def has_state(reader: Any) -> bool:
    """Whether ``reader`` implements the protocol (``state`` and ``restore`` callables)."""
    return callable(getattr(reader, "state", None)) and callable(getattr(reader, "restore", None))


def get_state(reader: Any) -> Any:
    """``reader.state()``, or None for a reader without the protocol."""
    return reader.state() if has_state(reader) else None


def restore_state(reader: Any, state: Any) -> None:
    """``reader.restore(state)`` when the reader implements the protocol."""
    if has_state(reader):
        reader.restore(state)


def forward(outer: Callable[..., Any], *inners: Any) -> Callable[..., Any]:
    """Give ``outer`` the protocol when any reader it wraps has it: its state is the list
    of the wrapped readers' states (None for those without one). A reader over one that
    reads a process's own share (``process_share``: ``cloud_reader``) does too."""
    share(outer, *inners)
    if not any(has_state(r) for r in inners):
        return outer

    def state() -> list[Any]:
        return [get_state(r) for r in inners]

    def restore(saved: Any) -> None:
        if not isinstance(saved, list) or len(saved) != len(inners):
            raise DataError(
                f"reader state: expected a list of {len(inners)} states (one per wrapped "
                f"reader); received {saved!r:.80}. The checkpoint was taken with another "
                "reader pipeline."
            )
        for reader, value in zip(inners, saved, strict=True):
            restore_state(reader, value)

    outer.state = state  # type: ignore[attr-defined]
    outer.restore = restore  # type: ignore[attr-defined]
    return outer


def share(outer: Any, *inners: Any) -> None:
    """Give ``outer`` the ``process_share`` of a reader it wraps that reads this process's
    own share (``cloud_reader``'s master client): in a multi-process job each process then
    trains on its own samples, and checkpoints record what the master handed out."""
    found = [r.process_share for r in inners if getattr(r, "process_share", None)]
    if found:
        outer.process_share = found[0]


class PassCounter:
    """The passes a seeded reader has started: its state is ``{"passes": n}``, plus
    ``"readers"``, the states of the readers it wraps, when they have one."""

    def __init__(self, where: str) -> None:
        self.where, self.passes = where, 0

    def next(self) -> int:
        """The number of the pass starting now (0, 1, ...)."""
        self.passes += 1
        return self.passes - 1

    def attach(self, reader: Callable[..., Any], *inners: Any) -> Callable[..., Any]:
        """Give ``reader`` (which wraps ``inners``) the protocol over this counter."""
        inner = forward(lambda: None, *inners)

        def state() -> dict[str, Any]:
            if has_state(inner):
                return {"passes": self.passes, "readers": inner.state()}
            return {"passes": self.passes}

        def restore(saved: Any) -> None:
            self.restore(saved)
            if has_state(inner) and "readers" in saved:
                inner.restore(saved["readers"])

        reader.state = state  # type: ignore[attr-defined]
        reader.restore = restore  # type: ignore[attr-defined]
        share(reader, *inners)
        return reader

    def restore(self, saved: Any) -> None:
        """Set the pass count from ``saved["passes"]``."""
        passes = saved.get("passes") if isinstance(saved, dict) else None
        if isinstance(passes, bool) or not isinstance(passes, numbers.Integral) or passes < 0:
            raise DataError(
                f"{self.where}: reader state must be {{'passes': n}} with n >= 0; received "
                f"{saved!r:.80}. The checkpoint was taken with another reader pipeline."
            )
        self.passes = int(passes)
