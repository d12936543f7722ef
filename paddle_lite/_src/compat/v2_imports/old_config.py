"""The names of PaddlePaddle's v1 config API that paddle.v2 programs never used.

``paddle.trainer_config_helpers`` and ``paddle.trainer.PyDataProvider2`` held, beside
the activations, attributes, layers and data types paddle.v2 renamed and kept, the
machinery of v1's config files: ``settings(...)``, ``outputs(...)``,
``define_py_data_sources2(...)``, the ``@provider`` data providers, the learning-method
classes ``settings`` took. A v2 program imports them with ``import *`` and never calls
them, so importing them works; using one raises ``V1ConfigError`` saying what it
was and what a v2 program writes instead.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src.errors import V1ConfigError
from paddle_lite._src.tracebacks import api_boundary


class V1ConfigName:
    """A v1 config name kept for ``import *``: calling it, or reading an attribute of it,
    raises ``V1ConfigError`` with what to write instead.

    Args:
        module: the v1 module it came from (``paddle.trainer_config_helpers``).
        name: its name there.
        what: what it did in a v1 config file.
        instead: what a v2 program writes for it.

    Example:
        >>> settings = V1ConfigName("paddle.trainer_config_helpers", "settings",
        ...                         "set v1's training options", "pass an optimizer")
        >>> settings.message().startswith("paddle.trainer_config_helpers.settings is")
        True
    """

    def __init__(self, module: str, name: str, what: str, instead: str) -> None:
        self._where = f"{module}.{name}"
        self.__name__ = name
        self._what = what
        self._instead = instead

    def message(self) -> str:
        """What the name was and what to write instead."""
        return (
            f"{self._where} is PaddlePaddle's v1 config API: it {self._what}. paddle.v2 "
            f"programs (and paddle_lite, which runs them) have no use for it; {self._instead}."
        )

    @api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise V1ConfigError(self.message())

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        raise V1ConfigError(f"{self._where}.{attribute}: {self.message()}")

    def __repr__(self) -> str:
        return f"<v1 config name {self._where} (not for paddle.v2 programs)>"
