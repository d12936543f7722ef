"""The ``paddle`` logger as v2 programs found it after ``import paddle.v2``.

v2's config parser ran ``logging.basicConfig(format=...)`` on import and set the
``paddle`` logger to INFO, so a program's ``logging.getLogger("paddle").info(...)`` printed
without any setup of its own. paddle_lite leaves the root logger alone: it gives the
``paddle`` logger INFO (unless a level was set) and a fallback handler with v2's line
format that writes to the current ``sys.stderr`` only while the root logger has no
handlers, so a program that configures logging itself sees each line once, in its format.
"""

from __future__ import annotations

import logging
import sys

V2_FORMAT = "[%(levelname)s %(asctime)s %(filename)s:%(lineno)s] %(message)s"
LOGGER_NAME = "paddle"


class _FallbackHandler(logging.StreamHandler):
    """Writes to the ``sys.stderr`` of the moment, while the root logger is unconfigured."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(logging.Formatter(V2_FORMAT))

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass  # always the current sys.stderr

    def emit(self, record: logging.LogRecord) -> None:
        if not logging.getLogger().handlers:
            super().emit(record)


def install() -> None:
    """Give the ``paddle`` logger v2's INFO level and the fallback handler (once)."""
    logger = logging.getLogger(LOGGER_NAME)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    if not any(isinstance(h, _FallbackHandler) for h in logger.handlers):
        logger.addHandler(_FallbackHandler())
