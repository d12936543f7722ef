"""v2 names a public module serves under a second name, through its module ``__getattr__``.

``paddle.layer.print`` (a Python keyword-like name a module cannot define without shadowing
the builtin), ``paddle.evaluator.base`` and ``paddle.activation.Base`` are v2 aliases, and
the names of earlier v2 releases that later ones renamed (``early_names``) resolve with a
``DeprecationWarning`` naming the new one: all resolve on access and stay out of the
modules' ``__all__``. Any other missing name is an ``AttributeError`` with a suggestion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paddle_lite._src.compat import early_names
from paddle_lite._src.errors import did_you_mean


def module_getattr(module: str, aliases: dict[str, Any] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``aliases`` and the renamed names of earlier v2
    releases (``early_names``).

    Example:
        ```python
        __getattr__ = module_getattr("layer", {"print": printer})
        ```
    """
    extra = dict(aliases or {})
    renamed = early_names.BY_MODULE.get(module, {})

    def __getattr__(name: str) -> Any:
        if name in extra:
            return extra[name]
        if name in renamed:
            return early_names.resolve(renamed[name])
        raise AttributeError(
            f"module 'paddle_lite.{module}' has no attribute {name!r}"
            + did_you_mean(name, [*extra, *renamed])
        )

    return __getattr__
