"""The v2 public names paddle_lite deliberately leaves out, each with the reason and what
to use instead — the one place they are listed.

Each public module resolves these names through ``module_getattr`` (its module-level
``__getattr__``): reading ``paddle.layer.roi_pool`` gives a stub, and calling the stub
raises ``NotImplementedError`` with the reason and the alternative, so a v2 program fails at
the first use with a message rather than an ``AttributeError`` at import. The stubs are not
in the modules' ``__all__``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from paddle_lite._src.errors import did_you_mean

_CLOUD = "a v2 feature tied to Paddle's own C++ runtime and cloud services"


@dataclasses.dataclass(frozen=True)
class Absent:
    """A v2 name paddle_lite does not provide: where, why, and what to use instead."""

    module: str
    name: str
    reason: str
    alternative: str

    def message(self) -> str:
        return (
            f"paddle.{self.module}.{self.name} is not provided by paddle_lite: {self.reason}. "
            f"Instead: {self.alternative}."
        )


ABSENT: tuple[Absent, ...] = (
    Absent(
        "reader.creator",
        "cloud_reader",
        "it reads from Paddle's Go master service (etcd), " + _CLOUD,
        "paddle.reader.creator.recordio over files shared with the trainers, "
        "sharded with paddle.dataset.common.cluster_files_reader",
    ),
    Absent(
        "master",
        "client",
        "the ctypes client of Paddle's Go master service (etcd), " + _CLOUD,
        "paddle.reader.creator.recordio and cluster_files_reader for sharded data",
    ),
)

_BY_MODULE: dict[str, dict[str, Absent]] = {}
for _entry in ABSENT:
    _BY_MODULE.setdefault(_entry.module, {})[_entry.name] = _entry


def stub(entry: Absent) -> Callable[..., Any]:
    """A callable standing for ``entry``: calling it raises ``NotImplementedError``."""

    def absent(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(entry.message())

    absent.__name__ = absent.__qualname__ = entry.name
    absent.__doc__ = entry.message()
    absent.absent = entry  # type: ignore[attr-defined]
    return absent


def module_getattr(module: str, aliases: dict[str, Any] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``aliases`` and the absent names of ``module``.

    Example:
        ```python
        __getattr__ = module_getattr("layer", {"print": printer})
        ```
    """
    entries = _BY_MODULE.get(module, {})
    extra = dict(aliases or {})

    def __getattr__(name: str) -> Any:
        if name in extra:
            return extra[name]
        if name in entries:
            return stub(entries[name])
        raise AttributeError(
            f"module 'paddle_lite.{module}' has no attribute {name!r}"
            + did_you_mean(name, [*entries, *extra])
        )

    return __getattr__
